"""The attack suite, graded with the real CLI: an attack earns exactly what its functions earn."""

from __future__ import annotations

import json
import sys
import time
from html.parser import HTMLParser

import pytest
from attack_cases import CASES, EXPECTED, SUITE, differences, expectations, write_suite

from autograder.isolate import bubblewrap, processes
from autograder.load.course import grader_sources
from conftest import run_cli

LIMITS = ("--timeout", "60", "--cell-timeout", "5", "--call-timeout", "5")
SANDBOXED = bubblewrap.bubblewrap() is not None
CAPPED = processes.available()


# CPython 3.13.0 to 3.13.7 skip the recursion limit's check on some calls (python/cpython
# issue 132744): there a runaway recursion ends at the memory or time limit, not in
# RecursionError, and is reported so; the function still earns nothing.
RECURSION_UNCHECKED = (3, 13) <= sys.version_info[:3] < (3, 13, 8)
RUNAWAY_ENDINGS = {"timeout", "memory", "crashed"}


def runnable_here(attack) -> bool:
    return (SANDBOXED or not attack.needs_sandbox) and (CAPPED or not attack.needs_process_cap)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade ``tests/attacks`` as it is where every wall is up, else the cases safe here."""
    cases = [attack for attack in CASES if runnable_here(attack)]
    folder = SUITE
    if len(cases) < len(CASES):
        folder = tmp_path_factory.mktemp("attacks")
        write_suite(folder, cases)
    package_before = {p: p.read_bytes() for p in grader_sources()}
    report = tmp_path_factory.mktemp("report") / "r.json"
    started = time.monotonic()
    done = run_cli("grade", folder, "--json", report, *LIMITS, timeout=600)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    package_after = {p: p.read_bytes() for p in grader_sources()}
    return cases, json.loads(report.read_text()), elapsed, package_before == package_after


def test_the_suite_has_at_least_thirty_attacks():
    assert len(CASES) >= 30


def test_the_committed_suite_is_what_the_cases_write(tmp_path):
    write_suite(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(SUITE) for p in SUITE.rglob("*") if p.is_file())
    assert written == committed
    for path in written:
        assert (tmp_path / path).read_bytes() == (SUITE / path).read_bytes(), path


def test_every_attack_is_graded_and_the_batch_goes_on(graded):
    cases, report, _, _ = graded
    assert sorted(s["student"] for s in report["students"]) == sorted(c.name for c in cases)


@pytest.mark.parametrize("attack", CASES, ids=[c.name for c in CASES])
def test_an_attack_gets_exactly_the_score_and_statuses_its_functions_earn(graded, attack):
    cases, report, _, _ = graded
    if attack not in cases:
        pytest.skip("needs bubblewrap and a process cap to be harmless")
    expected = expectations([attack])
    if RECURSION_UNCHECKED and attack.name == "deep_recursion":
        (learner,) = [s for s in report["students"] if s["student"] == attack.name]
        status = {e["name"]: e["status"] for e in learner["exercises"]}["count_leaves"]
        assert status in RUNAWAY_ENDINGS and learner["score"] == expected[attack.name]["score"]
        return
    assert differences(report, expected) == []


def test_the_expectations_file_lists_every_case():
    assert set(json.loads((SUITE / EXPECTED).read_text())) == {c.name for c in CASES}


def test_the_whole_suite_finishes_within_five_minutes(graded):
    _, _, elapsed, _ = graded
    assert elapsed < 300


def test_no_attack_changed_the_grader(graded):
    _, _, _, unchanged = graded
    assert unchanged


class _PageElements(HTMLParser):
    """The learners' names as the class page's rows show them, and every element's tag
    and attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.tags: list[tuple[str, list[str]]] = []
        self._in_name = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, [name for name, _ in attrs]))
        self._in_name = tag == "td" and ("data-name", "learner") in attrs
        if self._in_name:
            self.names.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_name = self._in_name and tag != "td"

    def handle_data(self, data: str) -> None:
        if self._in_name:
            self.names[-1] += data


def test_the_class_page_of_the_attacks_shows_their_names_and_messages_as_text(graded, tmp_path):
    _, report, _, _ = graded
    (tmp_path / "r.json").write_text(json.dumps(report), encoding="utf-8")
    done = run_cli("insight", tmp_path / "r.json", "--html", tmp_path / "class.html")
    assert done.returncode == 0, done.stderr
    page = _PageElements()
    page.feed((tmp_path / "class.html").read_text(encoding="utf-8"))
    assert sorted(page.names) == sorted(s["student"] for s in report["students"])
    assert [tag for tag, _ in page.tags if tag in ("script", "img", "iframe", "object")] == [
        "script"
    ]
    assert [tag for tag, attrs in page.tags if any(a.startswith("on") for a in attrs)] == []
