"""A wrong-but-plausible submission loses exactly its function's points and is told why."""

from __future__ import annotations

import importlib

import pytest

from autograder.registry import SOLUTIONS, load_course
from conftest import write_variant

COURSE = load_course(SOLUTIONS)
CASES = [
    pytest.param(notebook, case, id=f"{case['function']}: {case['misconception']}")
    for notebook in COURSE.notebooks
    for case in importlib.import_module(f"misconceptions.{notebook.id}").CASES
]


def test_every_graded_function_has_a_misconception_case():
    covered = {case["function"] for _, case in (p.values for p in CASES)}
    assert covered == {f.name for f in COURSE.functions}


@pytest.mark.parametrize(("notebook", "case"), CASES)
def test_a_misconception_costs_exactly_its_functions_points(grade, tmp_path, notebook, case):
    submission = tmp_path / notebook.filename
    write_variant(notebook.path, submission, {case["function"]: case["source"]})

    graded = grade(submission)

    target = COURSE.function(case["function"])
    exercise = graded.exercise(case["function"])
    assert exercise["status"] == "failed"
    assert exercise["score"] == 0
    assert graded.report["score"] == notebook.points - target.points
    messages = " ".join(t["message"] for t in exercise["tests"])
    assert case["teaches"] in messages
