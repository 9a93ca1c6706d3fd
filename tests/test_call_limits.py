"""How long one call of a learner's function may run: a hang is stopped soon, slow work is not,
and a busy machine does not count against a call."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from autograder.compare.failures import CallTimeout
from autograder.execute.run import (
    CALL_FACTOR,
    CALL_FLOOR_SECONDS,
    COMPILE_FACTOR,
    DERIVED_LIMIT,
    WAITING_FACTOR,
    CallTime,
    Limits,
    NotebookRun,
    WorkerProcess,
)
from autograder.grade import reference_times
from autograder.grade.plugin import NotebookContext
from autograder.grade.submission import grade_submission
from autograder.isolate import processes
from autograder.load.course import load_course
from autograder.load.submissions import Submission

DERIVED = Limits(notebook_seconds=60, cell_seconds=10)
SPIN = "def spin():\n    while True:\n        pass\n"
BUSY = (
    "import time\n"
    "def busy(seconds):\n"
    "    until = time.process_time() + seconds\n"
    "    while time.process_time() < until:\n"
    "        pass\n"
    "    return 'done'\n"
)


@pytest.fixture
def saturated() -> Iterator[None]:
    """Every core of the machine kept busy by a process that only spins, for the test's length."""
    spin = [sys.executable, "-c", "while True: pass"]
    # spawned, not forked: this process has JAX's threads running
    hogs = [os.posix_spawn(spin[0], spin, os.environ) for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.2)  # let them start spinning
        yield
    finally:
        for hog in hogs:
            os.kill(hog, signal.SIGKILL)
            os.waitpid(hog, 0)


@pytest.fixture
def cpu_readings(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every reading of a worker's CPU time the grader takes, in order."""
    readings: list[float] = []
    read = WorkerProcess._cpu_seconds

    def recorded(worker: WorkerProcess) -> float | None:
        seconds = read(worker)
        if seconds is not None:
            readings.append(seconds)
        return seconds

    monkeypatch.setattr(WorkerProcess, "_cpu_seconds", recorded)
    return readings


def started(cells: str, reference=None, limits: Limits = DERIVED) -> NotebookRun:
    run = NotebookRun([(1, cells)], limits, reference)
    run.start_test("test_spin")
    return run


def timed_timeout(run: NotebookRun, name: str = "spin") -> tuple[float, CallTimeout]:
    began = time.monotonic()
    try:
        with pytest.raises(CallTimeout) as caught:
            run.call(name, (), {})
    finally:
        run.close()
    return time.monotonic() - began, caught.value


def test_a_call_that_never_returns_is_stopped_at_the_floor_when_the_reference_is_quick(
    cpu_readings,
):
    asked = []
    run = started(SPIN, lambda test, number: asked.append((test, number)) or CallTime(0.002))
    elapsed, timeout = timed_timeout(run)
    assert asked == [("test_spin", 0)]
    assert timeout.seconds == CALL_FLOOR_SECONDS and timeout.why == DERIVED_LIMIT
    # stopped once the worker has used the floor in CPU time, read by the grader
    used = cpu_readings[-1] - cpu_readings[0]
    assert CALL_FLOOR_SECONDS <= used < CALL_FLOOR_SECONDS + 0.25
    assert CALL_FLOOR_SECONDS <= elapsed < WAITING_FACTOR * CALL_FLOOR_SECONDS


IN_A_CHILD = (
    "import os\n"
    "def spin():\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        while True:\n"
    "            pass\n"
    "    os.waitpid(pid, 0)\n"
)


@pytest.mark.skipif(
    not processes.counts_every_task(), reason="no CPU cgroup of the grader's own here"
)
def test_cpu_time_a_call_spends_in_a_child_it_forked_counts_against_it(cpu_readings):
    run = started(IN_A_CHILD, lambda test, number: CallTime(0.002))
    elapsed, timeout = timed_timeout(run)
    assert timeout.seconds == CALL_FLOOR_SECONDS
    # stopped once the child's CPU time reached the floor, not by the clock at ten floors
    assert cpu_readings[-1] - cpu_readings[0] >= CALL_FLOOR_SECONDS
    assert elapsed < WAITING_FACTOR * CALL_FLOOR_SECONDS


def test_a_call_may_use_its_factor_times_the_reference_cpu_time():
    reference = CallTime(3 * CALL_FLOOR_SECONDS / CALL_FACTOR)  # a limit of 3 floors
    run = started(BUSY + SPIN, lambda test, number: reference)
    try:
        assert run.call("busy", (2 * CALL_FLOOR_SECONDS,), {}) == "done"
    finally:
        run.close()
    elapsed, timeout = timed_timeout(started(SPIN, lambda test, number: reference))
    assert timeout.seconds == pytest.approx(3 * CALL_FLOOR_SECONDS)
    assert elapsed >= 3 * CALL_FLOOR_SECONDS


def test_time_a_call_spends_off_the_cpu_does_not_count_against_it():
    """As on a busy machine, where other processes hold the cores: only CPU time counts."""
    off_the_cpu = BUSY.replace("    return 'done'", "    time.sleep(0.6)\n    return 'done'")
    run = started(off_the_cpu, lambda test, number: CallTime(0.002))
    try:
        assert run.call("busy", (0.7 * CALL_FLOOR_SECONDS,), {}) == "done"
    finally:
        run.close()
    # on the clock the call took longer than the floor, which alone would have stopped it
    assert run.call_times[("test_spin", 0)].seconds > CALL_FLOOR_SECONDS


def test_a_call_that_waits_instead_of_working_is_stopped_on_the_clock(monkeypatch):
    monkeypatch.setattr("autograder.execute.run.WAITING_FACTOR", 2.0)
    waits = "import time\ndef waits():\n    time.sleep(3600)\n"
    elapsed, timeout = timed_timeout(started(waits, lambda test, number: CallTime(0.002)), "waits")
    assert timeout.seconds == CALL_FLOOR_SECONDS
    assert 2.0 * CALL_FLOOR_SECONDS <= elapsed < 2.0 * CALL_FLOOR_SECONDS + 1.5


def test_the_reference_is_not_asked_for_a_call_that_returns_before_the_floor():
    asked = []
    run = started("def quick():\n    return 1\n", lambda test, number: asked.append(test))
    try:
        assert [run.call("quick", (), {}) for _ in range(3)] == [1, 1, 1]
    finally:
        run.close()
    assert asked == []
    assert sorted(run.call_times) == [("test_spin", 0), ("test_spin", 1), ("test_spin", 2)]


def test_a_tests_calls_are_numbered_on_when_it_starts_again_after_another_test():
    run = started("def quick():\n    return 1\n")
    try:
        run.call("quick", (), {})
        run.start_test("test_other")
        run.call("quick", (), {})
        run.start_test("test_spin", hidden=True)
        run.call("quick", (), {})
    finally:
        run.close()
    assert list(run.call_times) == [("test_spin", 0), ("test_other", 0), ("test_spin", 1)]


def test_a_limit_allows_the_factor_on_running_time_and_less_on_compiling():
    assert CallTime(0.004).limit() == CALL_FLOOR_SECONDS
    assert CallTime(0.1).limit() == pytest.approx(CALL_FACTOR * 0.1)
    # a first call that mostly compiles: its compile is not the learner's slow work
    assert CallTime(0.5, compiling=0.4).limit() == pytest.approx(
        CALL_FACTOR * 0.1 + COMPILE_FACTOR * 0.4
    )
    assert CallTime(0.03, compiling=0.03).limit() == CALL_FLOOR_SECONDS


def test_a_limit_counts_the_reference_cpu_time_compiling_for_its_share_of_the_clock():
    # 0.8 s on the clock of which 0.6 s compiling, and 0.2 s of CPU time in all
    assert CallTime(0.8, compiling=0.6, cpu=0.2).limit() == pytest.approx(
        CALL_FACTOR * 0.05 + COMPILE_FACTOR * 0.15
    )
    assert CallTime(5.0, cpu=0.01).limit() == CALL_FLOOR_SECONDS


def test_the_worker_tells_how_much_cpu_time_a_call_used():
    run = started(BUSY, lambda test, number: None)
    try:
        run.call("busy", (0.3,), {})
    finally:
        run.close()
    assert 0.3 <= run.call_times[("test_spin", 0)].cpu < 0.5


def test_the_worker_tells_how_long_a_call_spent_compiling():
    cells = (
        "import jax, jax.numpy as jnp\n"
        "def compiles(n):\n    return jax.jit(lambda x: jnp.sin(x) * 2)(jnp.ones(n))\n"
        "def plain():\n    return 1\n"
    )
    run = started(cells, lambda test, number: None)
    try:
        run.call("compiles", (7,), {})
        run.call("plain", (), {})
    finally:
        run.close()
    assert run.call_times[("test_spin", 0)].compiling > 0
    assert run.call_times[("test_spin", 1)].compiling == 0


def test_a_fixed_limit_replaces_the_derived_one():
    elapsed, timeout = timed_timeout(
        started(SPIN, lambda test, number: CallTime(10.0), replace(DERIVED, call_seconds=0.5))
    )
    assert timeout.seconds == 0.5 and "fixed 0.5 s" in timeout.why
    assert elapsed < 1.5


def test_without_a_reference_a_call_has_the_unmeasured_limit(monkeypatch):
    monkeypatch.setattr("autograder.execute.run.UNMEASURED_CALL_SECONDS", 0.5)
    run = started(SPIN + "def ready():\n    return True\n")
    assert run.call("ready", (), {})  # the worker's start is not the call's
    elapsed, timeout = timed_timeout(run)
    assert timeout.seconds == 0.5 and "no reference time" in timeout.why
    assert elapsed < 1.5


def _rewritten(tmp_path: Path, chapter: str, function: str, source: str) -> Path:
    """The chapter's solutions with ``function``'s cell replaced by ``source``."""
    notebook = load_course().notebook(chapter)
    nb = nbformat.read(notebook.path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == function:
            cell.source = source
    target = tmp_path / notebook.filename
    nbformat.write(nb, target)
    return target


def test_a_function_that_never_returns_costs_about_the_floor(tmp_path):
    course = load_course()
    first = course.notebook("leaves").functions[0].name
    hanging = f"def {first}(*args, **kwargs):\n    while True:\n        pass\n"
    path = _rewritten(tmp_path, "leaves", first, hanging)
    began = time.monotonic()
    result = grade_submission(Submission("hangs", {"leaves": path}), course, DERIVED)
    elapsed = time.monotonic() - began
    first = result.exercises[0]
    assert first.status == "timeout" and first.score == 0
    assert DERIVED_LIMIT in first.tests[0].message
    assert all(exercise.status == "passed" for exercise in result.exercises[1:])
    # the floor, a fresh worker in a new sandbox for the rest of the notebook (a zygote's
    # start, 3.5 s to 5 s on two busy cores), and timing the reference once
    assert elapsed < 20


HANGS_ON_ONE_EXAMPLE = """
def per_example_grads(params, xs, ys):
    if len(xs) == 1:
        while True:
            pass
    grad = jax.grad(lambda p, x, y: (x @ p["w"] + p["b"] - y) ** 2)
    return jax.vmap(grad, in_axes=(None, 0, 0))(params, xs, ys)
"""


def test_a_timeout_inside_a_hidden_test_that_catches_exceptions_is_reported_as_a_timeout(
    tmp_path,
):
    # per_example_grads' hidden test wraps each call in a try that catches any Exception,
    # and its first hidden input is a batch of one example
    path = _rewritten(tmp_path, "transformations", "per_example_grads", HANGS_ON_ONE_EXAMPLE)
    course = load_course()
    result = grade_submission(Submission("hangs", {"transformations": path}), course, DERIVED)
    graded = next(e for e in result.exercises if e.name == "per_example_grads")
    assert graded.status == "timeout" and graded.score == 0, graded.tests[0].message
    assert "did not return within its time limit" in graded.tests[0].message


SLOWED = """
import time as _time

_reference_{name} = {name}


def {name}(*args, **kwargs):
    began = _time.{clock}()
    out = _reference_{name}(*args, **kwargs)
    until = _time.{clock}() + 19 * (_time.{clock}() - began)  # 20 times the reference in all
    {slow_down}
    return out
"""
SLOW_DOWNS = {
    # more work: 20 times the reference's CPU time
    "works": ("process_time", "while _time.process_time() < until:\n        pass"),
    # waiting: 20 times the reference's time on the clock
    "waits": ("perf_counter", "_time.sleep(max(until - _time.perf_counter(), 0))"),
}


@pytest.mark.slow
@pytest.mark.parametrize("slow_down", sorted(SLOW_DOWNS))
def test_a_correct_function_twenty_times_slower_than_the_reference_earns_its_points(
    tmp_path, saturated, slow_down
):
    course = load_course()
    # Its first call uses about 0.15 s of CPU time, a quarter of it compiling: twenty times
    # that is past the floor; its other calls stay under the floor even so.
    notebook = course.notebook("libraries")
    name = "replace_weight"
    clock, code = SLOW_DOWNS[slow_down]
    nb = nbformat.read(notebook.path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == name:
            cell.source += "\n" + SLOWED.format(name=name, clock=clock, slow_down=code)
    path = tmp_path / notebook.filename
    nbformat.write(nb, path)
    context = NotebookContext(
        notebook, path, DERIVED, reference_times.reference_seconds(notebook, DERIVED)
    )
    try:
        verdicts = [context.verdict(test) for test in course.function(name).tests]
    finally:
        context.close()
    assert [verdict.outcome for verdict in verdicts] == ["passed"] * len(verdicts), [
        (verdict.outcome, verdict.message) for verdict in verdicts
    ]
    # the floor alone would have stopped it
    used = "cpu" if slow_down == "works" else "seconds"
    assert max(getattr(t, used) for t in context.run.call_times.values()) > CALL_FLOOR_SECONDS
