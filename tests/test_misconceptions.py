"""A wrong-but-plausible submission loses exactly its function's points and is told why.

Every case of ``tests/misconceptions/`` is graded in one run of the real CLI (a class
folder), so the cases share the grader's start-up: a learner of the class hands in a
chapter's notebook with one case of each of some of its functions
(``misconception_class``), and each case costs exactly its own function's points.
The same run says whether each case's visible tests passed, which is what ``check``
tells the learner: a case that ``check`` passes must say why in its file
(``"visible_passes"``), its mistake showing only on inputs the visible tests do not give.
"""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest
from misconception_class import CASES, CLASS, COURSE, kept_right
from misconception_class import learner as _learner

from autograder.load.course import REPO_ROOT
from conftest import Graded, run_cli, write_variant

# "Reread <Chapter> → <Section>": what a message says when it names the section to reread.
SECTION_NAMED = re.compile(r"Reread \S.* → \S")


def test_every_graded_function_has_at_least_three_misconception_cases():
    counts = Counter(case["function"] for _, case in CASES)
    assert {f.name: counts[f.name] for f in COURSE.functions if counts[f.name] < 3} == {}


def test_the_readme_gives_the_number_of_cases():
    readme = " ".join((REPO_ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"`tests/misconceptions/` holds {len(CASES)} wrong-but-plausible" in readme
    learners = len(CLASS)
    assert f"graded as a class of {learners} learners" in readme
    assert f"so that {learners} notebooks hold the {len(CASES)} cases" in readme


def test_every_case_names_the_section_its_message_sends_the_learner_to():
    assert [c["misconception"] for _, c in CASES if not SECTION_NAMED.search(c["teaches"])] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "index", range(len(CASES)), ids=[f"{c['function']}: {c['misconception']}" for _, c in CASES]
)
def test_a_misconception_costs_exactly_its_functions_points(graded_cases, index):
    notebook, case = CASES[index]
    learner = graded_cases.student(_learner(index))
    exercises = [e for e in learner["exercises"] if e["notebook"] == notebook.filename]
    target = next(e for e in exercises if e["name"] == case["function"])
    assert target["status"] in ("failed", "error") and target["score"] == 0, target
    right = [e for e in exercises if e["name"] in kept_right(_learner(index))]
    assert [e["name"] for e in right if e["score"] != e["max_score"]] == []
    messages = " ".join(test["message"] for test in target["tests"])
    assert case["teaches"] in messages


def _target(graded: Graded, index: int) -> dict:
    """The graded function of case ``index``, as its learner's report gives it."""
    notebook, case = CASES[index]
    learner = graded.student(_learner(index))
    return next(
        e
        for e in learner["exercises"]
        if e["notebook"] == notebook.filename and e["name"] == case["function"]
    )


def _passes_visible_tests(exercise: dict) -> bool:
    return all(test["visible_passed"] for test in exercise["tests"])


@pytest.mark.slow
@pytest.mark.parametrize(
    "index", range(len(CASES)), ids=[f"{c['function']}: {c['misconception']}" for _, c in CASES]
)
def test_check_fails_a_misconception_unless_its_mistake_shows_only_on_other_inputs(
    graded_cases, index
):
    _, case = CASES[index]
    visible_passes = _passes_visible_tests(_target(graded_cases, index))
    if "visible_passes" in case:
        assert visible_passes, "marked visible_passes, but the visible tests fail it: unmark it"
    else:
        assert not visible_passes, (
            "check passes this case and the grade fails it: make the visible tests check the "
            "mechanism, or say in the case's visible_passes why only other inputs show it"
        )


# A few cases checked by the real ``check`` command too, to show that the report's
# visible_passed is what ``check`` says: each notebook is the solution but one function.
CHECKED_BY_THE_COMMAND = (
    "x and scale are both numbers to compute with, so both are children",
    "a Python loop over the batches is as good as a scan",
    "None is a leaf",
    "the wrong count is an assertion error",
)


def _case_of(misconception: str) -> int:
    return next(i for i, (_, c) in enumerate(CASES) if c["misconception"] == misconception)


def test_the_check_command_is_compared_on_cases_it_passes_and_cases_it_fails():
    marked = ["visible_passes" in CASES[_case_of(m)][1] for m in CHECKED_BY_THE_COMMAND]
    assert any(marked) and not all(marked)


@pytest.mark.slow
@pytest.mark.parametrize("misconception", CHECKED_BY_THE_COMMAND)
def test_the_reports_visible_passed_is_what_the_check_command_says(
    graded_cases, misconception, tmp_path
):
    index = _case_of(misconception)
    notebook, case = CASES[index]
    learner = write_variant(
        notebook.path, tmp_path / f"{notebook.id}-Copy1.ipynb", {case["function"]: case["source"]}
    )
    done = run_cli(
        "check", learner, env={**os.environ, "PYTREES_PROGRESS": str(tmp_path / "progress.json")}
    )
    assert done.returncode in (0, 1), done.stderr
    assert (done.returncode == 0) == _passes_visible_tests(_target(graded_cases, index))
