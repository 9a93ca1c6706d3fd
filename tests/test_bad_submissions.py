"""Broken submissions get a clear status and message, and the rest of the batch is graded."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from conftest import write_variant

LIMITS = ("--timeout", "60", "--cell-timeout", "5", "--call-timeout", "5")
HANDED_IN = 2


@pytest.fixture(scope="module")
def batch(tmp_path_factory, course):
    """A class where every learner but `honest` hands in something broken in the first notebook.

    Learners hand in the first two notebooks only: the second shows that the rest
    of a broken submission is graded; the others would only make the batch slower.
    """
    root = tmp_path_factory.mktemp("class")
    first = course.notebooks[0]
    function = first.functions[0]

    def student(name: str) -> Path:
        folder = root / name
        folder.mkdir()
        for notebook in course.notebooks[:HANDED_IN]:
            shutil.copy(notebook.path, folder / notebook.filename)
        return folder / first.filename

    student("honest")
    student("corrupt").write_text('{"cells": [', encoding="utf-8")
    student("empty").write_bytes(b"")
    solution = _cell_source(first.path, function.name)
    replaced = {
        "renamed": solution.replace(f"def {function.name}(", f"def {function.name}_v2("),
        "hangs_in_call": solution.replace(":\n", ":\n    while True:\n        pass\n", 1),
    }
    for name, source in replaced.items():
        write_variant(first.path, student(name), {function.name: source})
    wrong = f"def {function.name}(*args, **kwargs):\n    return None"
    write_variant(
        first.path, student("tamperer"), {function.name: wrong, f"test_{function.name}": "pass"}
    )
    appended = {
        "raises": "raise RuntimeError('oops')",
        "loops": "while True:\n    pass",
        "exits": "import sys\nsys.exit()",
        "noisy": "import sys, warnings\nwarnings.warn('a warning on stderr')\n"
        "print('=== 99 failed in 0.1s ===', file=sys.stderr)\nprint('=== 0 passed ===')",
    }
    for name, source in appended.items():
        write_variant(first.path, student(name), {}, append=(source,))
    (root / "missing").mkdir()
    for notebook in course.notebooks[1:HANDED_IN]:
        shutil.copy(notebook.path, root / "missing" / notebook.filename)
    return root


def _cell_source(path: Path, grade_id: str) -> str:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return next(
        c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )


@pytest.fixture(scope="module")
def graded(batch, tmp_path_factory):
    import json

    from conftest import run_cli

    report = tmp_path_factory.mktemp("report") / "r.json"
    started = time.monotonic()
    done = run_cli("grade", batch, "--json", report, *LIMITS)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text()), elapsed


def _student(report, name):
    return next(s for s in report["students"] if s["student"] == name)


def _handed_in(student, course):
    """The student's result, counting only the notebooks of the class's hand-in."""
    names = {notebook.filename for notebook in course.notebooks[:HANDED_IN]}
    exercises = [e for e in student["exercises"] if e["notebook"] in names]
    score = sum(e["score"] for e in exercises)
    max_score = sum(e["max_score"] for e in exercises)
    return {**student, "exercises": exercises, "score": score, "max_score": max_score}


def _first_notebook(student, course):
    return [e for e in student["exercises"] if e["notebook"] == course.notebooks[0].filename]


def test_every_student_gets_a_result(graded):
    report, _ = graded
    names = {s["student"] for s in report["students"]}
    assert names == {
        "honest",
        "corrupt",
        "empty",
        "renamed",
        "raises",
        "loops",
        "exits",
        "hangs_in_call",
        "missing",
        "noisy",
        "tamperer",
    }


@pytest.mark.parametrize("student", ["honest", "noisy"])
def test_correct_code_gets_full_marks_whatever_it_prints(graded, course, student):
    report, _ = graded
    result = _handed_in(_student(report, student), course)
    assert result["score"] == result["max_score"] > 0


@pytest.mark.parametrize(
    ("student", "why"),
    [("corrupt", "its JSON is cut off or broken at line 1"), ("empty", "it is empty")],
)
def test_a_damaged_notebook_is_corrupt_with_one_line_that_names_the_file(
    graded, course, student, why
):
    report, _ = graded
    result = _student(report, student)
    first = _first_notebook(result, course)
    assert {e["status"] for e in first} == {"corrupt"}
    assert {e["score"] for e in first} == {0}
    assert not any(test["message"] for e in first for test in e["tests"])
    assert not any(e["hint"] for e in first)
    damaged = [n["message"] for n in result["notes"] if "damaged" in n["message"]]
    assert len(damaged) == 1
    assert damaged[0].startswith(f"the notebook file {course.notebooks[0].filename} is damaged")
    assert why in damaged[0] and damaged[0].endswith("re-save or re-download it")


@pytest.mark.parametrize(
    "student",
    ["corrupt", "empty", "renamed", "raises", "loops", "exits", "hangs_in_call", "missing"],
)
def test_the_other_notebooks_of_a_broken_submission_are_still_graded(graded, course, student):
    report, _ = graded
    others = [
        e
        for e in _handed_in(_student(report, student), course)["exercises"]
        if e["notebook"] != course.notebooks[0].filename
    ]
    assert others and all(e["status"] == "passed" for e in others)


def test_a_renamed_function_is_missing_and_the_message_names_the_new_name(graded, course):
    report, _ = graded
    function = course.notebooks[0].functions[0].name
    exercise = next(e for e in _student(report, "renamed")["exercises"] if e["name"] == function)
    assert exercise["status"] == "missing" and exercise["score"] == 0
    assert f"{function} is not defined" in exercise["tests"][0]["message"]
    assert f"{function}_v2" in exercise["tests"][0]["message"]


@pytest.mark.parametrize(
    ("student", "note"),
    [
        ("raises", "raised RuntimeError: oops"),
        ("loops", "did not finish within 5 s"),
        ("exits", "raised SystemExit"),
    ],
)
def test_a_cell_that_fails_is_reported_and_the_functions_are_still_graded(
    graded, course, student, note
):
    report, _ = graded
    result = _handed_in(_student(report, student), course)
    assert result["score"] == result["max_score"]
    notes = [n["message"] for n in result["notes"] if n["notebook"] == course.notebooks[0].filename]
    assert any(note in text for text in notes), notes


def test_a_function_that_never_returns_times_out_and_costs_only_its_points(graded, course):
    report, _ = graded
    result = _handed_in(_student(report, "hangs_in_call"), course)
    function = course.notebooks[0].functions[0]
    exercise = next(e for e in result["exercises"] if e["name"] == function.name)
    assert exercise["status"] == "timeout" and exercise["score"] == 0
    assert "did not return within its time limit" in exercise["tests"][0]["message"]
    assert result["score"] == result["max_score"] - function.points


def test_a_missing_notebook_is_missing(graded, course):
    report, _ = graded
    first = _first_notebook(_student(report, "missing"), course)
    assert {e["status"] for e in first} == {"missing"}
    assert "was not found in the submission" in first[0]["tests"][0]["message"]


def test_the_batch_finishes_within_its_limits(graded):
    _, elapsed = graded
    assert elapsed < 240


def test_editing_a_test_cell_earns_nothing_and_is_reported(graded, course):
    report, _ = graded
    result = _handed_in(_student(report, "tamperer"), course)
    function = course.notebooks[0].functions[0]
    exercise = next(e for e in result["exercises"] if e["name"] == function.name)
    assert exercise["score"] == 0 and exercise["tampered"] is True
    assert result["score"] == result["max_score"] - function.points
    notes = [n["message"] for n in result["notes"]]
    assert f"the locked cell test_{function.name} was changed" in " ".join(notes)


def test_untouched_locked_cells_are_not_reported_as_tampered(graded):
    report, _ = graded
    honest = _student(report, "honest")
    assert not any(e["tampered"] for e in honest["exercises"])
