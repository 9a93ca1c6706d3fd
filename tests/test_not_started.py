"""A function whose cell still holds the released stub is *not started*: decided in the
grading process from the notebook's text, it scores 0 with no failure, no section to reread
and no hint, whatever the stub does when run, and every format says so in one line a chapter."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from rich.console import Console

from autograder.execute.run import Limits
from autograder.grade import plugin
from autograder.grade.submission import grade_submission
from autograder.learner import progress
from autograder.load.course import EXERCISES, SOLUTIONS, load_course
from autograder.load.handed_in import DAMAGED
from autograder.load.stubs import not_started, released_stubs, stub_of
from autograder.load.submissions import Submission, find_submissions
from autograder.report import console, feedback, formats
from autograder.report.model import ExerciseResult, Report, StudentResult, TestResult
from conftest import write_variant

COURSE = load_course(SOLUTIONS)
LEAVES = COURSE.notebook("leaves")
TREEDEF = COURSE.notebook("treedef_api")


def untouched(notebook, folder: Path) -> Path:
    """The exercise as released, unanswered, in ``folder``."""
    return write_variant(notebook.released_path, folder / notebook.filename, {})


def graded(notebook, path: Path) -> StudentResult:
    return grade_submission(Submission("eve", {notebook.id: path}), COURSE, Limits())


def test_an_untouched_function_scores_zero_with_no_message_pointer_or_hint(tmp_path):
    result = graded(LEAVES, untouched(LEAVES, tmp_path))
    for exercise in result.exercises:
        assert (exercise.status, exercise.hint, exercise.started) == ("not-started", "", False)
        for test in exercise.tests:
            assert (test.outcome, test.kind, test.points) == ("not-started", "not-started", 0)
            assert test.message == "" and test.pointer is None


def test_a_stub_that_raises_at_the_top_of_its_cell_is_not_started_and_gets_no_note(tmp_path):
    result = graded(TREEDEF, untouched(TREEDEF, tmp_path))
    assert {e.status for e in result.exercises} == {"not-started"}
    assert result.notes == []


def test_an_edited_cell_that_still_raises_is_not_written(tmp_path):
    function = LEAVES.functions[0]
    stub = released_stubs(LEAVES)[function.name]
    path = write_variant(
        LEAVES.released_path, tmp_path / LEAVES.filename, {function.name: f"# tried\n{stub}"}
    )
    result = graded(LEAVES, path)
    assert result.exercises[0].status == "failed"
    assert {t.kind for t in result.exercises[0].tests} == {"not-written"}
    assert {e.status for e in result.exercises[1:]} == {"not-started"}


def test_a_function_written_in_a_cell_of_its_own_below_its_stub_is_started(tmp_path):
    function = LEAVES.functions[0]
    path = write_variant(
        LEAVES.released_path, tmp_path / LEAVES.filename, {}, append=(function.source,)
    )
    assert graded(LEAVES, path).exercises[0].status == "passed"


def test_a_function_written_below_its_stub_in_a_cell_led_by_a_magic_is_started(tmp_path):
    function = LEAVES.functions[0]
    answer = f"%time 1 + 1\n{function.source}"
    path = write_variant(LEAVES.released_path, tmp_path / LEAVES.filename, {}, append=(answer,))
    assert function.name not in not_started(nbformat.read(path, as_version=4), LEAVES)


def test_a_notebook_with_nothing_started_starts_no_worker(tmp_path, monkeypatch):
    def no_worker(*args, **kwargs):
        raise AssertionError("a worker was started")

    monkeypatch.setattr(plugin, "NotebookRun", no_worker)
    result = graded(LEAVES, untouched(LEAVES, tmp_path))
    assert {e.status for e in result.exercises} == {"not-started"}


def test_only_the_tests_of_started_functions_run(tmp_path, monkeypatch):
    ran = []
    real = plugin.run_test_cell

    def recording(test, *args, **kwargs):
        ran.append(test.function)
        return real(test, *args, **kwargs)

    monkeypatch.setattr(plugin, "run_test_cell", recording)
    first = LEAVES.functions[0]
    path = write_variant(
        LEAVES.released_path, tmp_path / LEAVES.filename, {first.name: first.source}
    )
    result = graded(LEAVES, path)
    assert set(ran) == {first.name}
    assert [e.status for e in result.exercises][:1] == ["passed"]


@pytest.mark.parametrize("notebook", COURSE.notebooks, ids=lambda n: n.id)
def test_the_stubs_made_from_the_solutions_are_the_released_ones(notebook):
    # what check in the course's own repository compares a learner's exercises/ with
    released = released_stubs(notebook)
    assert released
    for function in notebook.functions:
        assert stub_of(function.source).strip() == released[function.name]


def test_check_in_the_course_repository_takes_the_stubs_from_the_solutions(tmp_path):
    exercises = load_course(EXERCISES).notebook("leaves")
    assert exercises.path == exercises.released_path  # the learner's own file...
    function = LEAVES.functions[0]
    answered = write_variant(exercises.path, tmp_path / "a.ipynb", {function.name: "pass"})
    # ...as check loads it once the learner has answered a function in it
    loaded = replace(exercises, source=answered.read_bytes(), released=answered.read_bytes())
    assert released_stubs(loaded) == released_stubs(LEAVES)


def exercise(notebook: str, name: str, outcome: str) -> ExerciseResult:
    points = 1.0 if outcome == "passed" else 0.0
    test = TestResult(f"test_{name}", outcome, points, 1.0, kind=outcome)
    return ExerciseResult(f"{notebook}.ipynb", name, 1.0, [test])


def bob() -> StudentResult:
    """Started leaves (one function failing); structure and mapping untouched."""
    return StudentResult(
        "bob",
        [
            exercise("leaves", "count_leaves", "passed"),
            exercise("leaves", "leaves_in_order", "failed"),
            exercise("leaves", "is_leaf_type", "not-started"),
            exercise("structure", "same_structure", "not-started"),
            exercise("mapping", "ones_from_shapes", "not-started"),
            exercise("mapping", "sgd_update", "not-started"),
        ],
    )


ONE_LINE = "Not started: structure, mapping"


def test_chapters_not_started_are_those_with_every_function_not_started_in_course_order():
    assert bob().chapters_not_started() == ["structure", "mapping"]


def class_table() -> str:
    out = Console(record=True, width=400, color_system=None)
    console.print_report(out, Report([bob(), StudentResult("zoe")], "bubblewrap"))
    return out.export_text()


def test_the_class_table_row_names_the_chapters_not_started_once_and_lists_only_started():
    (row,) = [line for line in class_table().splitlines() if "bob" in line]
    assert "leaves_in_order (failed); " + ONE_LINE in row
    assert "is_leaf_type" not in row and "sgd_update" not in row


def test_the_markdown_summary_row_names_the_chapters_not_started_in_one_line():
    text = formats.to_markdown(Report([bob()], "bubblewrap"))
    row = next(line for line in text.splitlines() if line.startswith("| bob |"))
    assert ONE_LINE in row and "sgd" not in row  # the score table's row, before the hints'


def test_feedback_leads_with_what_to_do_next_and_names_chapters_not_started_once():
    lines = feedback.to_feedback(bob()).splitlines()
    assert lines[4].startswith("**Next:** leaves\\_in\\_order in leaves.ipynb: read its feedback")
    assert sum("Not started" in line for line in lines) == 2  # the chapters, leaves' function
    assert "## structure.ipynb" not in lines and "sgd\\_update" not in "\n".join(lines)


def test_the_feedback_of_a_learner_who_started_nothing_is_a_few_lines():
    nothing = StudentResult(
        "ann",
        [exercise(n.id, f.name, "not-started") for n in COURSE.notebooks for f in n.functions],
    )
    text = feedback.to_feedback(nothing)
    assert len(text.splitlines()) <= 8
    assert f"**Next:** start {COURSE.notebooks[0].id}." in text


def test_feedback_with_every_started_function_passing_sends_the_learner_to_one_not_started():
    almost = StudentResult(
        "cy",
        [
            exercise("leaves", "count_leaves", "passed"),
            exercise("leaves", "is_leaf_type", "not-started"),
        ],
    )
    assert "**Next:** start is\\_leaf\\_type in leaves.ipynb." in feedback.to_feedback(almost)


def test_junit_skips_the_tests_of_functions_not_started():
    suite = ET.fromstring(formats.to_junit(Report([bob()], "bubblewrap"))).find("testsuite")
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "4")
    skipped = suite.findall("./testcase[skipped]")
    assert len(skipped) == 4 and not any(case.find("failure") is not None for case in skipped)


def test_the_csv_says_which_functions_are_not_started_all_for_a_chapter():
    rows = list(csv.DictReader(io.StringIO(formats.to_csv(Report([bob()], "bubblewrap")))))
    said = {row["assignment"]: row[formats.NOT_STARTED_COLUMN] for row in rows}
    assert said == {"leaves": "is_leaf_type", "structure": "all", "mapping": "all"}


def test_gradescope_says_not_started_for_each_test_and_names_the_chapters():
    results = json.loads(formats.to_gradescope(Report([bob()], "bubblewrap")))
    assert ONE_LINE in results["output"].splitlines()
    outputs = [t["output"] for t in results["tests"] if "sgd_update" in t["name"]]
    assert outputs == [formats.NOT_STARTED_WORDS]


def test_status_shows_a_function_check_found_not_started(tmp_path, monkeypatch):
    from autograder.learner.status import print_chapter

    monkeypatch.setenv("PYTREES_PROGRESS", str(tmp_path / "progress.json"))
    progress.record({LEAVES.functions[0].name: None}, "leaves.ipynb")
    out = Console(record=True, width=200, color_system=None)
    print_chapter(out, LEAVES, progress.load(), progress.sources())
    assert f"⏸️ NOT STARTED  {LEAVES.functions[0].name}" in out.export_text()


def test_a_damaged_notebook_is_listed_as_not_graded_with_why(tmp_path):
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / "leaves.ipynb").write_text('{"cells": [', encoding="utf-8")
    (eve,) = find_submissions(tmp_path / "eve", COURSE)
    (listed,) = eve.files
    assert (listed.graded, listed.why) == (False, DAMAGED)
    assert eve.notebooks["leaves"] == tmp_path / "eve" / "leaves.ipynb"  # graded: corrupt


def test_a_damaged_notebook_is_on_the_learners_row_and_atop_the_feedback(tmp_path):
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / "leaves.ipynb").write_text('{"cells": [', encoding="utf-8")
    (submission,) = find_submissions(tmp_path / "eve", COURSE, ["leaves"])
    result = grade_submission(submission, COURSE, Limits())
    said = f"not graded leaves.ipynb ({DAMAGED})"
    assert result.files_summary() == said
    lines = feedback.to_feedback(result).splitlines()
    assert lines[4].startswith("**Next:** re-save or re-download leaves.ipynb")
    assert f"Files: {said}" in lines[:10]
    data = json.loads(Report([result], "bubblewrap").to_json())["students"][0]["files"]
    assert data == [{"path": "leaves.ipynb", "chapter": "leaves", "graded": False, "why": DAMAGED}]


def test_a_notebook_read_back_keeps_its_untouched_cells_apart(tmp_path):
    # a learner's cell stored as a list of lines is the same text
    path = untouched(LEAVES, tmp_path)
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.source = cell.source.splitlines(True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert {e.status for e in graded(LEAVES, path).exercises} == {"not-started"}


def test_the_gradebook_comments_a_chapter_not_started(tmp_path):
    from nbgrader.api import Gradebook

    from autograder.report.gradebook import write_gradebook

    course = COURSE.only(["leaves", "structure"])
    learner = StudentResult("bob", [e for e in bob().exercises if "mapping" not in e.notebook])
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    write_gradebook(Report([learner], "bubblewrap"), course, url)
    with Gradebook(url) as gradebook:
        comments = {
            notebook.id: gradebook.find_comment(
                notebook.functions[0].name, notebook.id, notebook.id, "bob"
            ).auto_comment
            for notebook in course.notebooks
        }
    assert comments == {"leaves": None, "structure": "Not started"}
