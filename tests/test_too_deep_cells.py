"""A learner's cell nested deeper than Python's parser (or ``ast.unparse``) goes costs that
learner nothing but the cell, and costs the rest of the batch nothing.

The grader reads each learner cell as data before any worker runs it (which functions are
started, which cell is the course's install cell, which cells reach into the grader); a
cell that makes that reading raise would stop the whole batch with no report.
"""

from __future__ import annotations

import pytest
from attack_cases import Attack, write_learners

from autograder.load.install_cell import _definition, is_install_cell
from autograder.load.learner_notebook import top_level_names
from conftest import VICTIM, grade_leaves_class

# deeper than ast.unparse recurses, shallow enough to parse
DOTTED_CALL = "a" + ".a" * 600 + "()"
# deeper than the parser builds
TOO_DEEP = "del " + "a." * 5000 + "b"
# the install cell's definition, then a call of a deeply dotted name in place of its call
INSTALL_CELL_DEEP_CALL = f"{_definition()}{DOTTED_CALL}\ndel install_course"
# the install cell's definition and call, then a statement too deep to parse
INSTALL_CELL_TOO_DEEP = f"{_definition()}install_course()\n{TOO_DEEP}"
DEEP_LEARNERS = {
    "a_install_cell_deep_call": INSTALL_CELL_DEEP_CALL,
    "a_too_deep_to_parse": TOO_DEEP,
}


@pytest.mark.parametrize(
    "source", [INSTALL_CELL_DEEP_CALL, INSTALL_CELL_TOO_DEEP], ids=["unparse", "parse"]
)
def test_a_cell_too_deep_to_read_is_not_the_install_cell(source):
    assert not is_install_cell(source)


def test_a_cell_too_deep_to_parse_binds_no_name():
    assert top_level_names(TOO_DEEP) == set()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("deep")
    attacks = {name: Attack(name, append=(cell,)) for name, cell in DEEP_LEARNERS.items()}
    write_learners(folder, {**attacks, VICTIM: Attack("correct")})
    return grade_leaves_class(folder, tmp_path_factory.mktemp("report") / "r.json", 1)


@pytest.mark.slow
def test_the_victim_graded_after_a_too_deep_cell_keeps_full_marks(graded):
    assert graded[VICTIM]["score"] == graded[VICTIM]["max_score"]


@pytest.mark.slow
@pytest.mark.parametrize("learner", DEEP_LEARNERS)
def test_a_learner_with_a_too_deep_cell_earns_what_their_functions_earn(graded, learner):
    assert graded[learner]["score"] == graded[learner]["max_score"]


@pytest.mark.slow
def test_a_cell_too_deep_for_the_grader_to_read_is_noted_as_one_that_may_patch_jax(graded):
    notes = [note["message"] for note in graded["a_too_deep_to_parse"]["notes"]]
    assert any("reach into the grader" in note and TOO_DEEP[:20] in note for note in notes), notes
