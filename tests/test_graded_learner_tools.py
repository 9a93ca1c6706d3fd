"""A learner's tools left in a handed-in notebook change nothing in its grade: a ``status()``
cell, and the import cell the course's docs once told learners to add, are graded next to a
correct victim; each earns what its functions earn, with no note in the report."""

from __future__ import annotations

import pytest
from attack_cases import Attack, write_learners

from conftest import VICTIM, grade_leaves_class

pytestmark = pytest.mark.slow

STATUS_CELLS = {
    "a_calls_status": ("status()",),
    "a_imports_status": ("from autograder.notebook import status", "status()"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    learners = {name: Attack(name, append=cells) for name, cells in STATUS_CELLS.items()}
    write_learners(folder, {**learners, VICTIM: Attack("correct")})
    return grade_leaves_class(folder, tmp_path_factory.mktemp("report") / "r.json", 1)


@pytest.mark.parametrize("learner", STATUS_CELLS)
def test_a_status_cell_earns_what_the_functions_earn_with_no_note(graded, learner):
    student = graded[learner]
    assert [note["message"] for note in student["notes"]] == []
    assert student["score"] == student["max_score"]


def test_the_victim_next_to_them_keeps_full_marks(graded):
    assert graded[VICTIM]["score"] == graded[VICTIM]["max_score"]
