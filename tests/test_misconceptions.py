"""A wrong-but-plausible submission loses exactly its function's points and is told why.

Every case of ``tests/misconceptions/`` is graded as a learner of its own, all in
one run of the real CLI (a class folder), so the cases share the grader's start-up.
"""

from __future__ import annotations

import importlib
import re
from collections import Counter

import pytest

from autograder.load.course import REPO_ROOT, SOLUTIONS, load_course
from conftest import Graded, grade_with_cli, write_variant

COURSE = load_course(SOLUTIONS)
CASES = [
    (notebook, case)
    for notebook in COURSE.notebooks
    for case in importlib.import_module(f"misconceptions.{notebook.id}").CASES
]
# "Reread <Chapter> → <Section>": what a message says when it names the section to reread.
SECTION_NAMED = re.compile(r"Reread \S.* → \S")


def _learner(index: int) -> str:
    return f"case{index:03d}"


@pytest.fixture(scope="module")
def graded_cases(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    root = tmp_path_factory.mktemp("misconceptions")
    for index, (notebook, case) in enumerate(CASES):
        target = root / "class" / _learner(index) / notebook.filename
        write_variant(notebook.path, target, {case["function"]: case["source"]})
    # every case of the course in one run: minutes, so a wider guard against a hang
    return grade_with_cli(root / "class", root / "report.json", timeout=1800)


def test_every_graded_function_has_at_least_three_misconception_cases():
    counts = Counter(case["function"] for _, case in CASES)
    assert {f.name: counts[f.name] for f in COURSE.functions if counts[f.name] < 3} == {}


def test_the_readme_gives_the_number_of_cases():
    readme = " ".join((REPO_ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"`tests/misconceptions/` holds {len(CASES)} wrong-but-plausible" in readme


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
    assert [e["name"] for e in exercises if e is not target and e["score"] != e["max_score"]] == []
    messages = " ".join(test["message"] for test in target["tests"])
    assert case["teaches"] in messages
