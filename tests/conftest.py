"""Shared helpers: run the real CLI in a subprocess and read its JSON report."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from filelock import FileLock

from autograder.devices import use_cpu_devices
from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS, load_course
from autograder.store.folder import cache_environment

# The suite's checks run in their own processes unless a test asks for the warm checker
# (tests/test_warm_check.py): a run with -s has a terminal, and would leave checkers behind.
os.environ.setdefault("AUTOGRADER_WARM_CHECK", "0")

# The grader's own process gives JAX its CPU devices before its first operation; the
# tests that grade in this process must have the same count set first.
use_cpu_devices()


@dataclass
class Graded:
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None

    def student(self, name: str) -> dict[str, Any]:
        assert self.report is not None, self.stderr
        return next(s for s in self.report["students"] if s["student"] == name)

    def exercise(self, name: str, student: str | None = None) -> dict[str, Any]:
        assert self.report is not None, self.stderr
        students = [self.student(student)] if student else self.report["students"]
        return next(e for s in students for e in s["exercises"] if e["name"] == name)


def run_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder this test run's processes share: pytest's base temp, or with pytest-xdist
    (``./course test`` runs the files on several workers) the one above each worker's."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Graded]
) -> Graded:
    """``make(folder)``, computed by the first worker of this run to ask, read back by the rest.

    The costly session fixtures (grading a class, the solutions, the exercises) would
    otherwise run once in every worker; a file lock makes the others wait for the first.
    """
    root = run_root(tmp_path_factory)
    saved = root / f"{name}.json"
    with FileLock(root / f"{name}.lock"):
        if saved.exists():
            return Graded(**json.loads(saved.read_text(encoding="utf-8")))
        folder = root / name
        folder.mkdir(exist_ok=True)  # left by a worker whose attempt raised: this one tries again
        graded = make(folder)
        saved.write_text(json.dumps(dataclasses.asdict(graded)), encoding="utf-8")
        return graded


# The order ./course test hands files to its workers (--no-loadscope-reorder keeps it):
# the long ones first, so that no worker is left with one at the end, and the other files
# that read the book's build or the graded misconception class last, so that they seldom
# wait for the file that makes it. The browser walk, the longest of those, comes once
# the files before it have kept the other worker busy about as long as the book's build
# takes. Seconds are each file's, in a run on 2 cores.
FIRST = (
    "test_nbgrader.py",  # nbgrader generates and grades every chapter: 213 s
    "test_misconceptions.py",  # grades the misconception class: 254 s
    "test_grade_cli.py",  # grades the solutions and the exercises: 64 s
    "test_worker_cpu.py",  # busy sessions beside a victim, on one core: 98 s
    "test_book.py",  # builds the book: 103 s
    "test_authoring.py",
    "test_learner_tools.py",  # 50 s
    "test_semester.py",  # releases, collects and grades a class: 55 s
    "test_attacks.py",
    "test_browser.py",  # walks the built book: 103 s
)
LAST = (
    "test_book_links.py",
    "test_course_script.py",
    "test_links.py",
    "test_progress_page.py",
    "test_insight_page.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        if name in FIRST:
            return FIRST.index(name) - len(FIRST)
        return LAST.index(name) + 1 if name in LAST else 0

    items.sort(key=rank)  # stable: each file's own order stays


@pytest.fixture(autouse=True, scope="session")
def private_result_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep the grader's result and compile caches of this test run out of the user's own
    cache folder; the workers of one run share them, as they share the compile store."""
    # A test run started by a test (tests/test_authoring.py) shares its caller's cache.
    cache = Path(os.environ.get("PYTREES_TEST_CACHE") or run_root(tmp_path_factory) / "cache")
    cache.mkdir(exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = os.environ["PYTREES_TEST_CACHE"] = str(cache)


def run_cli(
    *args: str | Path, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=timeout,
    )


def grade_with_cli(path: Path, report_path: Path, *extra: str, timeout: float = 600) -> Graded:
    """Grade PATH with the real CLI, writing the JSON report to ``report_path``."""
    report_path.unlink(missing_ok=True)
    done = run_cli("grade", path, "--json", report_path, *extra, timeout=timeout)
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return Graded(done.returncode, done.stdout, done.stderr, report)


def grade_leaves_class(folder: Path, report: Path, jobs: int) -> dict[str, dict]:
    """Grade the leaves chapter of the class in ``folder`` with the real CLI, with ``jobs``
    grading processes and no result cache; each learner's row of the report, by name."""
    done = run_cli(
        "grade", folder, "--json", report, "--assignment", "leaves", "--no-cache",
        "--jobs", str(jobs),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {s["student"]: s for s in json.loads(report.read_text())["students"]}


@pytest.fixture
def grade(tmp_path: Path) -> Callable[..., Graded]:
    """Grade PATH with the real CLI; extra arguments are passed on."""
    return lambda path, *extra: grade_with_cli(path, tmp_path / "report.json", *extra)


@pytest.fixture(scope="session")
def graded_solutions(tmp_path_factory) -> Graded:
    return once_per_run(
        tmp_path_factory, "solutions", lambda folder: grade_with_cli(SOLUTIONS, folder / "r.json")
    )


@pytest.fixture(scope="session")
def graded_exercises(tmp_path_factory) -> Graded:
    return once_per_run(
        tmp_path_factory, "exercises", lambda folder: grade_with_cli(EXERCISES, folder / "r.json")
    )


@pytest.fixture(scope="session")
def graded_cases(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    """The misconception cases graded as a class (``misconception_class``), once per run."""
    # imported here: misconception_class imports this module, and loads the course
    from misconception_class import write_class

    # every case of the course in one run: minutes, so a wider guard against a hang
    return once_per_run(
        tmp_path_factory,
        "misconceptions",
        lambda folder: grade_with_cli(
            write_class(folder / "class"), folder / "report.json", timeout=1800
        ),
    )


def build_book(root: Path) -> subprocess.CompletedProcess[str]:
    """Build the book at ``root`` with warnings as errors, as CI does.

    The chapters' kernels share JAX's persistent compilation cache, under ``_build``:
    they run many of the same small operations, and a build from an empty ``_build/``
    took 151 s with it, 181 s without.
    """
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    return subprocess.run(
        [str(jupyter_book), "build", ".", "-n", "-W", "--keep-going"],
        cwd=root,
        env={**os.environ, **cache_environment(str(root / "_build" / "jax-cache"))},
        capture_output=True,
        text=True,
        timeout=1800,
    )


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The book, built into ``_build/html`` once per test run, with warnings as errors."""
    done = once_per_run(tmp_path_factory, "book", lambda _: _built_in_place())
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    return REPO_ROOT / "_build" / "html"


def _built_in_place() -> Graded:
    done = build_book(REPO_ROOT)
    return Graded(done.returncode, done.stdout, done.stderr, None)


@pytest.fixture(scope="session")
def course():
    return load_course(SOLUTIONS)


@pytest.fixture(scope="session")
def released_course():
    return load_course(EXERCISES)


def write_variant(
    source: Path, target: Path, replacements: dict[str, str], append: tuple[str, ...] = ()
) -> Path:
    """Copy notebook ``source`` to ``target``, replacing cells by nbgrader grade_id.

    ``append`` adds plain code cells at the end, as a learner's own cells.
    """
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in replacements:
            cell.source = replacements[grade_id]
    nb.cells.extend(nbformat.v4.new_code_cell(code) for code in append)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    return target


def names(sources: list[str], name: str) -> bool:
    """Whether one of ``sources`` names ``name`` as a whole word (a function that names
    another may call it)."""
    return any(re.search(rf"\b{re.escape(name)}\b", source) for source in sources)


VICTIM = "b_victim"
"""The correct learner that every cross-learner attack is graded next to."""


def write_class(
    folder: Path,
    attacker: dict[str, tuple[dict[str, str], tuple[str, ...]]],
    victim_notebooks: tuple[str, ...] = ("leaves",),
    attacker_name: str = "a_attacker",
) -> Path:
    """A class folder: ``attacker_name``'s notebooks, and a victim who hands in the solutions.

    ``attacker`` maps a notebook id to (replacements by grade_id, appended cells), as
    :func:`write_variant` takes them. The attacker's name sorts first, so in one
    grading process the attacker's notebook of a chapter runs before the victim's.
    """
    for notebook_id, (replacements, append) in attacker.items():
        source = SOLUTIONS / notebook_id / f"{notebook_id}.ipynb"
        write_variant(source, folder / attacker_name / source.name, replacements, append)
    for notebook_id in victim_notebooks:
        source = SOLUTIONS / notebook_id / f"{notebook_id}.ipynb"
        write_variant(source, folder / VICTIM / source.name, {})
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (see ``tests/chromium.py``), one for each test module using it."""
    from chromium import CHROMIUM_ARGS, chromium_path
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
