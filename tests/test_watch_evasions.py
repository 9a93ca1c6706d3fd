"""Ways around the watchers earn what the honest lazy version earns, graded next to a correct
victim with one grading process and with two.

``leaves_in_order`` must walk a tree without JAX; each learner here hands in JAX's own
leaves: the honest lazy learner by calling ``jax.tree.leaves``, the others by a way around
the watch (the registry's own flatten, a thread started before the call, the profile hook
removed with ctypes and put back, JAX's function replaced under another name, an answer
that differs while the profile hook is set, a copy of JAX's function's code, a function
compiled under JAX's file name in JAX's module's globals).
"""

from __future__ import annotations

import pytest
from attack_cases import (
    CASES,
    HELD_REGISTRY_METHOD,
    WATCH_EVASIONS,
    Attack,
    write_learners,
)

from conftest import VICTIM, grade_leaves_class

pytestmark = pytest.mark.slow

LAZY = "c_lazy_honest"
HELD = "a_held_registry_method"
EVASIONS = [attack for attack in CASES if attack.name in WATCH_EVASIONS]


@pytest.fixture(scope="module", params=[1, 2], ids=["jobs-1", "jobs-2"])
def graded(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    learners = {f"a_{attack.name}": attack for attack in EVASIONS}
    learners[LAZY] = next(attack for attack in CASES if attack.name == "lazy_leaves_in_order")
    learners[HELD] = Attack("held", {"leaves_in_order": HELD_REGISTRY_METHOD})
    learners[VICTIM] = Attack("correct")
    write_learners(folder, learners)
    report = tmp_path_factory.mktemp("report") / "r.json"
    return grade_leaves_class(folder, report, request.param)


def _notes(student: dict) -> list[str]:
    return [note["message"] for note in student["notes"]]


def _leaves_in_order(student: dict) -> dict:
    return next(e for e in student["exercises"] if e["name"] == "leaves_in_order")


def test_the_victim_keeps_full_marks_and_no_note(graded):
    assert graded[VICTIM]["score"] == graded[VICTIM]["max_score"]
    assert _notes(graded[VICTIM]) == []


def test_the_honest_lazy_version_loses_leaves_in_orders_points_without_a_note(graded):
    assert graded[LAZY]["score"] == 4
    assert _leaves_in_order(graded[LAZY])["score"] == 0
    assert _notes(graded[LAZY]) == []


@pytest.mark.parametrize("evasion", sorted(WATCH_EVASIONS))
def test_a_way_around_the_watchers_earns_what_the_honest_lazy_version_earns(graded, evasion):
    learner = graded[f"a_{evasion}"]
    assert learner["score"] == graded[LAZY]["score"]
    assert _leaves_in_order(learner)["score"] == 0


def test_a_cell_that_replaces_jaxs_function_under_another_name_is_noted(graded):
    notes = _notes(graded["a_watch_dodged_by_alias_patch"])
    assert any("replaces JAX's own jax.tree.leaves" in note for note in notes), notes


@pytest.mark.parametrize("evasion", ["watch_dodged_by_ctypes", "watch_dodged_by_registry"])
def test_a_cell_that_reaches_ctypes_or_jaxs_registry_is_noted(graded, evasion):
    notes = _notes(graded[f"a_{evasion}"])
    assert any("reach into the grader or JAX" in note for note in notes), notes


@pytest.mark.parametrize("evasion", ["watch_dodged_by_ctypes", "watch_dodged_by_thread"])
def test_a_watch_that_could_have_missed_calls_says_so_in_the_courses_words(graded, evasion):
    messages = [test["message"] for test in _leaves_in_order(graded[f"a_{evasion}"])["tests"]]
    assert any("could not be checked" in message for message in messages), messages


def test_a_cell_that_holds_the_registrys_flatten_bound_is_noted_however_it_spells_the_name(
    graded,
):
    notes = _notes(graded[HELD])
    assert any("holds JAX's jax.tree_util.default_registry.flatten bound" in n for n in notes), (
        notes
    )
