"""Attacks on what the tests rely on besides return values, each graded next to a correct
victim: a course-given helper redefined by the learner, and a watcher dodged."""

from __future__ import annotations

import nbformat
import pytest

from conftest import SOLUTIONS, VICTIM, write_class, write_variant
from misconceptions.aux_data import _layer

pytestmark = pytest.mark.slow

# The misconception of a tree_unflatten that drops the name it was given as aux_data.
DROPS_THE_NAME = _layer("(self.weight, self.bias), self.name", "cls(*children, None)")

# Still goes through the jitted _doubled (so its traces count as the tests expect), but
# hands back a layer built by hand instead of the one tree_unflatten rebuilt.
REDEFINED_HELPER = """def doubled_layer(weight, bias, name):
    _doubled(make_layer(weight, bias, name))
    return LayerParams(2 * jnp.asarray(weight), 2 * jnp.asarray(bias), name)
"""


def _score(graded, student: str) -> float:
    return graded.student(student)["score"]


def _notes(graded, student: str, notebook: str) -> list[str]:
    """What the report notes on ``student``'s ``notebook`` (the chapters a test's class
    does not hand in are noted as missing, and left out here)."""
    notes = graded.student(student)["notes"]
    return [note["message"] for note in notes if note["notebook"] == notebook]


def test_a_given_helper_redefined_in_a_new_cell_earns_what_the_broken_code_earns(grade, tmp_path):
    folder = write_class(
        tmp_path / "class",
        {"aux_data": ({"make_layer": DROPS_THE_NAME}, (REDEFINED_HELPER,))},
        victim_notebooks=("aux_data",),
    )
    honest = SOLUTIONS / "aux_data" / "aux_data.ipynb"
    write_variant(honest, folder / "c_honest" / honest.name, {"make_layer": DROPS_THE_NAME})
    graded = grade(folder)
    assert _score(graded, VICTIM) == 9
    assert _score(graded, "c_honest") == 7
    assert _score(graded, "a_attacker") == _score(graded, "c_honest")
    assert graded.exercise("make_layer", "a_attacker")["score"] == 0
    assert any(
        "doubled_layer" in note and "course's own definitions" in note
        for note in _notes(graded, "a_attacker", "aux_data.ipynb")
    )
    assert _notes(graded, "c_honest", "aux_data.ipynb") == []
    assert _notes(graded, VICTIM, "aux_data.ipynb") == []


LAZY = "def leaves_in_order(tree):\n    return jax.tree.leaves(tree)\n"
DEFAULT_ARGUMENT = "def leaves_in_order(tree, _leaves=jax.tree.leaves):\n    return _leaves(tree)\n"
# What the attackers do to the watchers' own module: their spies hand back the function
# they watch, so calls through its name go unrecorded.
UNSPIED = "w._spy = lambda api, original, records: original\n"
PLAIN_PATCH = "import autograder.learner.watchers as w\n" + UNSPIED
OBFUSCATED = "import sys\nw = sys.modules['auto' + 'grader.learner.watchers']\n" + UNSPIED


def _with_locked_cell(path, source: str) -> None:
    """Append ``source`` as a cell whose own metadata claims it is a locked course cell."""
    nb = nbformat.read(path, as_version=4)
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"locked": True, "grade_id": "helpers", "solution": False,
                                 "grade": False, "schema_version": 3}  # fmt: skip
    nb.cells.append(cell)
    nbformat.write(nb, path)


def test_a_watcher_sees_jax_reached_through_a_held_reference_or_a_patched_spy(grade, tmp_path):
    folder = tmp_path / "class"
    source = SOLUTIONS / "leaves" / "leaves.ipynb"

    def learner(name: str, replacement: str, *append: str):
        replaced = {"leaves_in_order": replacement}
        return write_variant(source, folder / name / source.name, replaced, append)

    write_class(folder, {}, victim_notebooks=("leaves",))
    learner("c_lazy_honest", LAZY)
    learner("a_default_arg", DEFAULT_ARGUMENT)
    _with_locked_cell(learner("a_locked_meta", LAZY), PLAIN_PATCH)
    learner("a_obfuscated", LAZY, OBFUSCATED)
    learner("a_plain_patch", LAZY, PLAIN_PATCH)
    graded = grade(folder)

    assert _score(graded, VICTIM) == 7
    assert _score(graded, "c_lazy_honest") == 4
    for attacker in ("a_default_arg", "a_locked_meta", "a_obfuscated", "a_plain_patch"):
        assert _score(graded, attacker) <= 4, attacker
        assert graded.exercise("leaves_in_order", attacker)["score"] == 0, attacker
    assert _notes(graded, "c_lazy_honest", "leaves.ipynb") == []
    assert _notes(graded, "a_default_arg", "leaves.ipynb") == []
    assert _notes(graded, VICTIM, "leaves.ipynb") == []
    for patcher in ("a_locked_meta", "a_obfuscated", "a_plain_patch"):
        assert any(
            "reach into the grader" in note for note in _notes(graded, patcher, "leaves.ipynb")
        ), patcher
