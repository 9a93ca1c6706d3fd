"""The page of a class of 100 is quick to write and light to send.

The class is the benchmark's synthetic one (``benchmarks/grading.py``): each learner's
notebooks drawn among its kinds with its seeds. Grading 1400 notebooks takes many
minutes, so its report is built here as grading gives it for each kind: every test
passes (full), the second half of the functions not started (partial), every check
failed, pointing to a section of the chapter (wrong), the notebook's process killed
(crashing), the first function never returning (hanging).
"""

from __future__ import annotations

import random
import sys
import time

import pytest

from autograder.load.book import book_sections
from autograder.load.course import REPO_ROOT, SOLUTIONS, load_course
from autograder.report.insight.command import write_page
from autograder.report.insight.page import class_page
from autograder.report.model import (
    ExerciseResult,
    Report,
    StudentResult,
    TestPointer,
    TestResult,
    read_reports,
)

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
from grading import KINDS  # noqa: E402

COURSE = load_course(SOLUTIONS)
OUTCOME_OF_KIND = {
    "wrong": "failed",
    "crashing": "crashed",
    "hanging": "timeout",
}


def _test(test, kind: str, written: bool, pointers: list[TestPointer], draw: random.Random):
    if kind == "full" or (kind == "partial" and written) or (kind == "hanging" and written):
        return TestResult(test.grade_id, "passed", test.points, test.points, kind="")
    if kind == "partial":  # the released stub, left as it is
        return TestResult(test.grade_id, "not-started", 0.0, test.points, kind="not-started")
    pointer = draw.choice(pointers) if kind == "wrong" else None
    message = {
        "wrong": f"returned None, not the tree it should. Reread {pointer and pointer.section}.",
        "crashing": "the worker ended (exit code 1) while it was running.",
        "hanging": "did not return within its time limit: look for a loop that never ends.",
    }[kind]
    kinds = {"wrong": "failed-check"}
    return TestResult(
        test.grade_id, OUTCOME_OF_KIND[kind], 0.0, test.points, f"{test.function} {message}",
        kind=kinds.get(kind, OUTCOME_OF_KIND[kind]), pointer=pointer,
    )  # fmt: skip


def benchmark_class(students: int = 100) -> Report:
    sections = book_sections().values()
    pointers = {
        notebook.id: [
            TestPointer(f"{s.chapter}#{s.anchor}", s.chapter, s.heading, s.anchor)
            for s in sections
            if s.chapter == notebook.id
        ]
        for notebook in COURSE.notebooks
    }
    learners = []
    for index in range(students):
        draw = random.Random(index)
        kinds = draw.choices(list(KINDS), list(KINDS.values()), k=len(COURSE.notebooks))
        exercises = []
        for notebook, kind in zip(COURSE.notebooks, kinds, strict=True):
            for number, function in enumerate(notebook.functions):
                written = number < len(notebook.functions) // 2 if kind == "partial" else number > 0
                tests = [
                    _test(t, kind, written, pointers[notebook.id], draw) for t in function.tests
                ]
                hints = draw.choice([0, 0, 0, 1, 2]) if function.hints else 0
                exercises.append(
                    ExerciseResult(
                        notebook.filename,
                        function.name,
                        function.points,
                        tests,
                        hints_opened=hints,
                    )  # fmt: skip
                )
        learners.append(StudentResult(f"learner{index:04d}", exercises))
    return Report(learners, "bubblewrap", seed=0)


@pytest.fixture(scope="module")
def report() -> Report:
    return benchmark_class()


def test_the_page_of_a_class_of_100_is_written_from_its_report_in_under_2_seconds(report, tmp_path):
    """From the report's file to the page's: reading, the numbers, the charts, writing.
    Python's start and the imports (Matplotlib's 0.9 s among them) are not counted."""
    source = tmp_path / "report.json"
    source.write_text(report.to_json(), encoding="utf-8")
    write_page(tmp_path / "class.html", report, ["report.json"])  # the first draw sets up fonts
    times = []
    for _ in range(2):  # the quicker of two: one write may share the cores with a neighbour
        started = time.perf_counter()
        write_page(tmp_path / "class.html", read_reports([source]), ["report.json"])
        times.append(time.perf_counter() - started)
    assert min(times) < 2.0


def test_the_page_of_a_class_of_100_weighs_under_2_mb(report):
    page = class_page(report, ["report.json"], "../_build/html")
    assert len(page.encode("utf-8")) < 2 * 2**20
