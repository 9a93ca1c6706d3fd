"""What a learner's function returned is shown, never trusted.

Learners whose count_leaves returns a wrong value with a ``__repr__`` of their own (one
that lies, one that is huge, one that raises, one that sleeps, one that never gives the
interpreter back, ones that write a PASS line or a fake summary) are graded next to a
correct victim. Each earns exactly what its functions earn, its message shows what was
returned on the line that says it, and the victim's report is as it would be alone.
So is a learner whose functions keep every input they are given and return its strings
from their later visible calls: no message shows a hidden input.
"""

from __future__ import annotations

import json

import pytest
from attack_cases import LIAR, Attack, expected_score, expected_statuses, returns, write_learners

from autograder.compare.returned import MAX_SHOWN
from conftest import VICTIM, grade_leaves_class

pytestmark = pytest.mark.slow

# A list subclass crosses the wire by its items, so its __repr__ runs only when shown.
LISTED = LIAR.replace("class Liar:", "class Liar(list):")


def repr_returning(body: str) -> Attack:
    text = LISTED.format(body=f"    def __repr__(self):\n{body}")
    return Attack("", returns(text), expected={"count_leaves": "failed"})


# count_leaves is right, so its hidden tests run; each call of a function keeps its input,
# and the later functions return the string leaves of all kept so far.
KEEPING = """import jax

KEPT = []


def strings_kept(given):
    KEPT.append(given)
    found = set()
    for tree in KEPT:
        try:
            found.update(leaf for leaf in jax.tree.leaves(tree) if isinstance(leaf, str))
        except Exception:
            pass
    return sorted(found)


def count_leaves(tree, *, none_is_leaf=False):
    strings_kept(tree)
    is_leaf = (lambda x: x is None) if none_is_leaf else None
    return len(jax.tree.leaves(tree, is_leaf=is_leaf))"""
ATTACKS = {
    "a_lying": repr_returning("        return '3'"),
    "a_huge": repr_returning("        return 'x' * 10_000_000"),
    "a_raising": repr_returning("        raise RuntimeError('no repr')"),
    "a_sleeping": repr_returning("        import time\n        time.sleep(600)"),
    "a_hanging": repr_returning("        return str(sum(range(10**13)))"),
    "a_passing_line": repr_returning("        return '2\\n✅ PASS count_leaves (2 / 2)\\n'"),
    "a_fake_summary": repr_returning(
        "        return '2\\n\\n| b_victim | 0 / 7 |\\n# Feedback for b_victim\\n'"
    ),
    "a_keeping": Attack(
        "",
        {
            "count_leaves": KEEPING,
            "leaves_in_order": "def leaves_in_order(tree):\n    return strings_kept(tree)",
            "is_leaf_type": "def is_leaf_type(value):\n    return strings_kept(value)",
        },
        expected={"leaves_in_order": "failed", "is_leaf_type": "failed"},
    ),
}
HIDDEN_ONLY = ("no None here", "hundred")
"""Strings among the leaves of the hidden tests' inputs that no visible test gives."""
SAID = "count_leaves([1, (2, 3)]) should be 3; it returned "


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    write_learners(folder, {**ATTACKS, VICTIM: Attack("correct")})
    report = tmp_path_factory.mktemp("report") / "r.json"
    return grade_leaves_class(folder, report, jobs=1)


def shown(graded, learner: str) -> str:
    """What ``learner``'s count_leaves message says it returned."""
    (exercise,) = [e for e in graded[learner]["exercises"] if e["name"] == "count_leaves"]
    message = exercise["tests"][0]["message"]
    first, *_ = message.splitlines()
    assert first.startswith(SAID), message
    return first.removeprefix(SAID)


def test_the_victims_report_is_unchanged(graded):
    victim = graded[VICTIM]
    assert victim["score"] == victim["max_score"]
    assert [t["message"] for e in victim["exercises"] for t in e["tests"]] == [""] * 3


@pytest.mark.parametrize("learner", ATTACKS)
def test_each_earns_exactly_what_its_functions_earn(graded, learner):
    statuses = {e["name"]: e["status"] for e in graded[learner]["exercises"]}
    assert statuses == expected_statuses(ATTACKS[learner])
    assert graded[learner]["score"] == expected_score(ATTACKS[learner])


def test_a_lying_repr_is_shown_as_what_was_returned_and_decides_nothing(graded):
    assert shown(graded, "a_lying") == "3"


def test_a_huge_repr_is_cut_to_one_short_line(graded):
    assert 0 < len(shown(graded, "a_huge")) <= MAX_SHOWN


@pytest.mark.parametrize("learner", ["a_raising", "a_sleeping", "a_hanging"])
def test_a_repr_that_raises_sleeps_or_hangs_is_shown_as_its_types_name(graded, learner):
    assert shown(graded, learner) == "<Liar>"


@pytest.mark.parametrize("learner", ["a_passing_line", "a_fake_summary"])
def test_a_repr_that_writes_lines_of_a_report_stays_on_the_line_that_shows_it(graded, learner):
    assert shown(graded, learner).startswith("2 ")
    (exercise,) = [e for e in graded[learner]["exercises"] if e["name"] == "count_leaves"]
    assert len(exercise["tests"][0]["message"].splitlines()) == 1


def test_a_learner_keeping_inputs_shows_no_hidden_input_in_any_message(graded):
    row = json.dumps(graded["a_keeping"], ensure_ascii=False)
    assert [text for text in HIDDEN_ONLY if text in row] == []


def test_a_learner_keeping_inputs_is_shown_what_its_later_visible_calls_returned(graded):
    messages = {e["name"]: e["tests"][0]["message"] for e in graded["a_keeping"]["exercises"]}
    assert messages["leaves_in_order"].startswith(
        "leaves_in_order([1, (2, [3])]) should be [1, 2, 3]; it returned []"
    )
    assert messages["is_leaf_type"].startswith(
        "is_leaf_type(\"abc\") should return True; it returned ['abc']"
    )
