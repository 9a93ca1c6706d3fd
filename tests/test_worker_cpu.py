"""A worker's CPU: every process it starts counts against its calls, and however many sessions
it makes, it weighs as one worker beside the learner graded next to it.

Each attack is graded with the real command line next to a correct victim.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_call_limits import SLOW_DOWNS, SLOWED

from autograder.isolate import processes
from autograder.load.course import SOLUTIONS
from conftest import VICTIM, run_cli, write_class, write_variant

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not processes.counts_every_task(), reason="no CPU cgroup of the grader's own here"
    ),
]

BUSY = """
import os
import time


def _busy(seconds):
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def _in_a_child(seconds):
    pid = os.fork()
    if pid == 0:
        _busy(seconds)
        os._exit(0)
    os.waitpid(pid, 0)


_honest_count_leaves = count_leaves


def count_leaves(tree, *, none_is_leaf=False):
    {work}(1.5)
    return _honest_count_leaves(tree, none_is_leaf=none_is_leaf)
"""


def _graded(folder: Path, *options: str) -> dict[str, dict]:
    report = folder.parent / f"{folder.name}.json"
    done = run_cli("grade", folder, "--json", report, "--no-cache", *options)
    assert done.returncode == 0, done.stderr
    return {s["student"]: s for s in json.loads(report.read_text())["students"]}


def _statuses(student: dict) -> dict[str, str]:
    return {e["name"]: e["status"] for e in student["exercises"]}


def test_work_done_in_a_forked_child_times_out_as_the_same_work_in_the_worker(tmp_path):
    folder = tmp_path / "class"
    write_class(folder, {"leaves": ({}, (BUSY.format(work="_busy"),))}, (), "c_slow_honest")
    write_class(folder, {"leaves": ({}, (BUSY.format(work="_in_a_child"),))}, ("leaves",))
    graded = _graded(folder, "--assignment", "leaves")
    honest, forked = _statuses(graded["c_slow_honest"]), _statuses(graded["a_attacker"])
    assert honest["count_leaves"] == "timeout"
    assert forked == honest
    assert graded[VICTIM]["score"] == graded[VICTIM]["max_score"]


SPAWN_BUSY_SESSIONS = """
import os
import time

if os.fork() == 0:
    for _ in range(100):
        try:
            if os.fork() == 0:
                os.setsid()
                until = time.monotonic() + 120
                while time.monotonic() < until:
                    pass
                os._exit(0)
        except OSError:
            break
    os._exit(0)
"""
WAIT_WHILE_THEY_RUN = "import time\n\ntime.sleep(20)"
KEEP_THE_WORKER_ALIVE = """
import functools
import time


def _slowed(function):
    @functools.wraps(function)
    def slowed(*args, **kwargs):
        time.sleep(3)
        return function(*args, **kwargs)

    return slowed


count_leaves, leaves_in_order, is_leaf_type = map(
    _slowed, (count_leaves, leaves_in_order, is_leaf_type)
)
"""


@pytest.fixture
def one_core() -> Iterator[None]:
    """This process, and every process it starts meanwhile, pinned to one core."""
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cores)


def test_a_hundred_busy_sessions_beside_a_learner_do_not_cost_them_points(tmp_path, one_core):
    folder = tmp_path / "class"
    attacker = {"leaves": ({}, (SPAWN_BUSY_SESSIONS, WAIT_WHILE_THEY_RUN, KEEP_THE_WORKER_ALIVE))}
    write_class(folder, attacker, ("leaves",))
    # a correct victim whose replace_weight is 20 times slower than the reference, as the
    # grader promises to accept
    clock, slow_down = SLOW_DOWNS["works"]
    slowed = SLOWED.format(name="replace_weight", clock=clock, slow_down=slow_down)
    libraries = SOLUTIONS / "libraries" / "libraries.ipynb"
    write_variant(libraries, folder / VICTIM / libraries.name, {}, (slowed,))
    graded = _graded(folder, "--assignment", "leaves", "libraries", "--jobs", "2")
    assert graded[VICTIM]["score"] == graded[VICTIM]["max_score"], _statuses(graded[VICTIM])
