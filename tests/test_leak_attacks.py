"""Attacks on what reports show, each graded with the real CLI next to a correct victim.

A learner's code sees a hidden test's inputs when it is called on them. These attacks try
to carry them into the learner's own report, through every text the worker sends back: a
message, an exception's type name, the names a ``missing`` reply lists. Others put
terminal escapes and invisible characters into file names and messages.
"""

from __future__ import annotations

import re

import pytest

from autograder.load.course import SOLUTIONS, load_course
from conftest import VICTIM, grade_with_cli, run_cli, write_class

LIMITS = ("--timeout", "120", "--cell-timeout", "30", "--call-timeout", "10")
MARKER = "LEAK"
"""What the attacker's code puts before every input it carries out."""
HIDDEN_INPUTS = ("no None here", "OrderedDict()", "Opaque object")
"""Inputs that only the hidden tests of ``leaves`` give (the visible ones give none)."""

RAISES_AS_A_WATCHER = """
import jax

_trees = []


class WatcherError(Exception):
    pass


def count_leaves(tree, *, none_is_leaf=False):
    _trees.append(repr((tree, none_is_leaf)))
    if len(_trees) > 5:
        raise WatcherError("LEAK " + " ; ".join(_trees))
    is_leaf = (lambda node: node is None) if none_is_leaf else None
    return len(jax.tree.leaves(tree, is_leaf=is_leaf))
"""

LISTS_THE_INPUTS_AS_NAMES = """
import re
from collections import OrderedDict, defaultdict

_seen = []


def _walk(tree):
    if tree is None:
        return []
    kind = type(tree)
    if kind is list or kind is tuple or (isinstance(tree, tuple) and hasattr(tree, "_fields")):
        children = list(tree)
    elif kind is dict or kind is defaultdict:
        children = [tree[key] for key in sorted(tree)]
    elif kind is OrderedDict:
        children = list(tree.values())
    else:
        return [tree]
    return [leaf for child in children for leaf in _walk(child)]


def leaves_in_order(tree):
    _seen.append(repr(tree))
    if len(_seen) == 4:  # a hidden call: the next call finds no leaves_in_order
        for seen in _seen:
            globals()["LEAK_" + re.sub(r"\\W", "_", seen)] = print
        del globals()["leaves_in_order"]
    return _walk(tree)
"""

NAMES_ITS_EXCEPTION_AFTER_THE_INPUTS = """
import jax

_values = []


def is_leaf_type(value):
    _values.append(repr(value))
    if len(_values) > 8:
        raise type("LEAK[" + " ; ".join(_values) + "]", (Exception,), {})()
    return jax.tree.structure(value) == jax.tree.structure(0)
"""

ESCAPING_NAME = (
    "zz\x1b]0;PWNED-TITLE\x07\x1b[2K\x1b[1A\x1b[2K\x1b[32m"
    "Total: 7 ∕ 7 (100.0%) all passed\x1b[0m.ipynb"
)
NOTE = "all passed.ipynb (damaged: re-save or re-download it)"
"""The note on the file, as it must read: the title sequence gone, the rest plain text."""
INVISIBLE = "\u202e\u200b"
RAISES_WITH_INVISIBLE_CHARACTERS = f"""
def count_leaves(tree, *, none_is_leaf=False):
    raise ValueError("reversed{INVISIBLE}text")
"""


def leaves_points() -> float:
    return load_course(SOLUTIONS).notebook("leaves").points


def texts_of(student: dict) -> str:
    """Everything a learner's entry in the JSON report says, as one string."""
    return repr(student)


@pytest.fixture(scope="module")
def hidden_leak(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hidden_leak")
    attacker = {
        "count_leaves": RAISES_AS_A_WATCHER,
        "leaves_in_order": LISTS_THE_INPUTS_AS_NAMES,
        "is_leaf_type": NAMES_ITS_EXCEPTION_AFTER_THE_INPUTS,
    }
    write_class(folder / "class", {"leaves": (attacker, ())})
    feedback = folder / "feedback"
    graded = grade_with_cli(folder / "class", folder / "r.json", *LIMITS, "--feedback", feedback)
    assert graded.report is not None, graded.stderr
    return graded, feedback


@pytest.mark.slow
def test_hidden_inputs_reach_neither_the_attackers_report_nor_feedback(hidden_leak):
    graded, feedback = hidden_leak
    attacker = texts_of(graded.student("a_attacker"))
    handed_back = "".join(p.read_text(encoding="utf-8") for p in feedback.iterdir())
    for text in (attacker, handed_back):
        assert MARKER not in text
        assert not [hidden for hidden in HIDDEN_INPUTS if hidden in text]


@pytest.mark.slow
def test_the_attacker_is_told_only_the_courses_words(hidden_leak):
    graded, _ = hidden_leak
    messages = {
        exercise["name"]: exercise["tests"][0]["message"]
        for exercise in graded.student("a_attacker")["exercises"]
    }
    # the hidden tests catch what a call raised (a watcher's complaint, a function gone
    # missing, an exception named after the inputs) and say it in the course's words
    attacked = [messages[name] for name in ("count_leaves", "leaves_in_order", "is_leaf_type")]
    assert all(re.search(r"Reread Leaves → [^.]+\.$", m) for m in attacked), attacked
    assert MARKER not in repr(messages)


@pytest.mark.slow
def test_the_leaking_functions_earn_nothing_and_the_victim_everything(hidden_leak):
    graded, _ = hidden_leak
    assert graded.student("a_attacker")["score"] == 0
    assert graded.student(VICTIM)["score"] == leaves_points()


@pytest.fixture(scope="module")
def report_lies(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report_lies")
    attacker = {"count_leaves": RAISES_WITH_INVISIBLE_CHARACTERS}
    classroom = write_class(folder / "class", {"leaves": (attacker, ())})
    (classroom / "a_attacker" / ESCAPING_NAME).write_text("{}", encoding="utf-8")
    outputs = {"markdown": folder / "r.md", "feedback": folder / "feedback"}
    graded = grade_with_cli(
        classroom, folder / "r.json", *LIMITS,
        "--markdown", outputs["markdown"], "--feedback", outputs["feedback"],
    )  # fmt: skip
    assert graded.report is not None, graded.stderr
    return graded, outputs, classroom


@pytest.mark.slow
def test_a_file_name_puts_no_escape_into_the_class_reports(report_lies):
    graded, outputs, _ = report_lies
    written = [outputs["markdown"], *outputs["feedback"].iterdir()]
    for text in (graded.stdout, graded.stderr, *(p.read_text(encoding="utf-8") for p in written)):
        assert "\x1b" not in text and "\x07" not in text
    assert NOTE in outputs["markdown"].read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_file_name_puts_no_escape_on_the_console_of_one_learner(report_lies):
    _, _, classroom = report_lies
    done = run_cli("grade", classroom / "a_attacker", *LIMITS, "--no-cache")
    assert "\x1b" not in done.stdout + done.stderr
    assert NOTE in " ".join(done.stdout.split()), done.stderr


@pytest.mark.slow
def test_a_message_reaches_the_report_without_invisible_characters(report_lies):
    graded, _, _ = report_lies
    message = graded.exercise("count_leaves", "a_attacker")["tests"][0]["message"]
    assert "reversedtext" in message
    assert not set(INVISIBLE) & set(message)


@pytest.mark.slow
def test_the_victim_keeps_its_points_next_to_a_lying_report(report_lies):
    graded, _, _ = report_lies
    assert graded.student(VICTIM)["score"] == leaves_points()
    count_leaves = next(f for f in load_course(SOLUTIONS).functions if f.name == "count_leaves")
    assert graded.student("a_attacker")["score"] == leaves_points() - count_leaves.points


KEEPS_THE_INPUTS = """
import jax

KEPT = []


def count_leaves(tree, *, none_is_leaf=False):
    KEPT.append(repr((tree, none_is_leaf)))
    is_leaf = (lambda node: node is None) if none_is_leaf else None
    return len(jax.tree.leaves(tree, is_leaf=is_leaf))
"""

RAISES_THE_KEPT_INPUTS = """
def leaves_in_order(tree):
    raise ValueError("LEAK " + " ; ".join(KEPT))
"""


@pytest.fixture(scope="module")
def kept_for_a_visible_test(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kept")
    attacker = {"count_leaves": KEEPS_THE_INPUTS, "leaves_in_order": RAISES_THE_KEPT_INPUTS}
    write_class(folder / "class", {"leaves": (attacker, ())})
    graded = grade_with_cli(folder / "class", folder / "r.json", *LIMITS)
    assert graded.report is not None, graded.stderr
    return graded


@pytest.mark.slow
def test_inputs_kept_from_a_hidden_test_do_not_leave_through_a_later_visible_one(
    kept_for_a_visible_test,
):
    attacker = texts_of(kept_for_a_visible_test.student("a_attacker"))
    assert not [hidden for hidden in HIDDEN_INPUTS if hidden in attacker]
    # every visible test runs before the hidden ones: the error it shows holds visible inputs
    message = kept_for_a_visible_test.exercise("leaves_in_order", "a_attacker")["tests"][0]
    assert message["message"].startswith("leaves_in_order raised ValueError: LEAK ([1, (2, 3)]")


@pytest.mark.slow
def test_keeping_the_inputs_costs_only_the_function_that_shows_them(kept_for_a_visible_test):
    exercises = kept_for_a_visible_test.student("a_attacker")["exercises"]
    statuses = {e["name"]: e["status"] for e in exercises if e["notebook"] == "leaves.ipynb"}
    assert statuses == {
        "count_leaves": "passed",
        "leaves_in_order": "error",
        "is_leaf_type": "passed",
    }
    victim = kept_for_a_visible_test.student(VICTIM)
    assert victim["score"] == leaves_points()


NAMES_ITS_EXCEPTION_AFTER_ITS_INPUT = """
import jax
import jax.numpy as jnp
from jax import lax

_calls = []


def tree_cumsum(tree):
    _calls.append(repr(tree))
    if len(_calls) > 4:  # past the visible test's four calls (one through watch_calls)
        raise type("LEAK[" + " ; ".join(_calls[4:]) + "]", (Exception,), {})()

    def accumulator(leaf):
        floating = jnp.issubdtype(leaf.dtype, jnp.floating)
        return jnp.zeros(leaf.shape[1:], jnp.float32 if floating else leaf.dtype)

    def add_row(totals, rows):
        totals = jax.tree.map(lambda total, row: total + row.astype(total.dtype), totals, rows)
        return totals, jax.tree.map(lambda total, row: total.astype(row.dtype), totals, rows)

    return lax.scan(add_row, jax.tree.map(accumulator, tree), tree)[1]
"""


@pytest.mark.slow
def test_a_hidden_tests_own_message_names_no_exception_the_learner_named(tmp_path):
    """The course's tests put the type of what a call raised into their own messages."""
    attacker = {"tree_cumsum": NAMES_ITS_EXCEPTION_AFTER_ITS_INPUT}
    write_class(tmp_path / "class", {"control_flow": (attacker, ())}, ("control_flow",))
    graded = grade_with_cli(
        tmp_path / "class", tmp_path / "r.json", *LIMITS, "--assignment", "control_flow"
    )
    assert graded.report is not None, graded.stderr
    assert MARKER not in texts_of(graded.student("a_attacker"))
    victim = graded.student(VICTIM)
    assert victim["score"] == victim["max_score"]
