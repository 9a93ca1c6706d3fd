"""The attack suite, graded with the real CLI: an attack earns exactly what its functions earn."""

from __future__ import annotations

import json
import time

import pytest
from attacks import CASES, NOTEBOOK, expected_statuses, write_suite

from autograder import isolation
from autograder.registry import REPO_ROOT
from conftest import run_cli

LIMITS = ("--timeout", "60", "--cell-timeout", "5", "--call-timeout", "5")
SANDBOXED = isolation.bubblewrap() is not None


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("attacks")
    cases = write_suite(folder, sandboxed=SANDBOXED)
    package_before = {p: p.read_bytes() for p in (REPO_ROOT / "autograder").glob("*.py")}
    report = tmp_path_factory.mktemp("report") / "r.json"
    started = time.monotonic()
    done = run_cli("grade", folder, "--json", report, *LIMITS, timeout=600)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    package_after = {p: p.read_bytes() for p in (REPO_ROOT / "autograder").glob("*.py")}
    return cases, json.loads(report.read_text()), elapsed, package_before == package_after


def test_the_suite_has_at_least_thirty_attacks():
    assert len(CASES) >= 30


def test_every_attack_is_graded_and_the_batch_goes_on(graded):
    cases, report, _, _ = graded
    assert sorted(s["student"] for s in report["students"]) == sorted(c.name for c in cases)


@pytest.mark.parametrize("attack", CASES, ids=[c.name for c in CASES])
def test_an_attack_gets_exactly_the_score_and_statuses_its_functions_earn(graded, course, attack):
    cases, report, _, _ = graded
    if attack not in cases:
        pytest.skip("needs bubblewrap to be harmless")
    student = next(s for s in report["students"] if s["student"] == attack.name)
    graded_here = [e for e in student["exercises"] if e["notebook"] == NOTEBOOK]
    expected = expected_statuses(attack, [e["name"] for e in graded_here])
    assert {e["name"]: e["status"] for e in graded_here} == expected
    earned = sum(
        course.function(name).points for name, status in expected.items() if status == "passed"
    )
    assert student["score"] == earned


def test_the_whole_suite_finishes_within_five_minutes(graded):
    _, _, elapsed, _ = graded
    assert elapsed < 300


def test_no_attack_changed_the_grader(graded):
    _, _, _, unchanged = graded
    assert unchanged
