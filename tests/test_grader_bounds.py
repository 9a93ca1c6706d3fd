"""The grader's own process is bounded: hostile replies and a dying grading process.

A learner's worker can write anything to its pipe. Replies naming thousands of
classes, or megabytes long, cost the attacker that function's points and cost the
grader little; a grading process that dies costs only the notebook it was grading.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autograder.execute import channel, wire
from autograder.load.course import REPO_ROOT
from conftest import VICTIM, Graded, grade_with_cli, write_class

# A learner cell that answers calls by writing straight to the pipe, as the worker's
# own `channel.send` is patched: count_leaves answers a reply naming a class per
# node, leaves_in_order one of 8 MiB.
HOSTILE_REPLIES = """
import json, os, struct
import autograder.execute.channel as _channel

_real_send = _channel.send
_next = {"reply": None}

def _nodes(count):
    nodes = ",".join('{"$node":"N%d","children":[],"aux":{"value":null}}' % i for i in range(count))
    return ('{"ok":true,"value":[' + nodes + "]}").encode()

_REPLIES = {"count_leaves": _nodes(UNDER), "leaves_in_order": _nodes(OVER)}

def _hostile(name, function):
    def call(*args, **kwargs):
        _next["reply"] = _REPLIES[name]
        return function(*args, **kwargs)
    return call

count_leaves = _hostile("count_leaves", count_leaves)
leaves_in_order = _hostile("leaves_in_order", leaves_in_order)

def _send(fd, message):
    body, _next["reply"] = _next["reply"], None
    if body is None:
        return _real_send(fd, message)
    data = struct.pack(">I", len(body)) + body
    while data:
        data = data[os.write(fd, data):]

_channel.send = _send
"""
NODE_BYTES = len('{"$node":"N99999","children":[],"aux":{"value":null}},')


def hostile_cell() -> str:
    # within the limits on size and values, so that the names are what is refused
    under = min(channel.MAX_MESSAGE // NODE_BYTES, wire.MAX_VALUES) // 10
    assert under > wire.MAX_NAMES_PER_MESSAGE
    over = 8 * 1024**2 // NODE_BYTES
    return HOSTILE_REPLIES.replace("UNDER", str(under)).replace("OVER", str(over))


def full_marks(student: dict, notebook: str) -> bool:
    """Whether ``student`` earned every point of ``notebook``."""
    exercises = [e for e in student["exercises"] if e["notebook"] == notebook]
    return bool(exercises) and all(e["score"] == e["max_score"] > 0 for e in exercises)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_hostile_replies_cost_the_attacker_that_function_alone(tmp_path: Path, jobs: str):
    folder = write_class(tmp_path / "class", {"leaves": ({}, (hostile_cell(),))})
    graded = grade_with_cli(folder, tmp_path / "r.json", "--jobs", jobs, "--no-cache")
    assert graded.returncode == 0, graded.stderr
    assert full_marks(graded.student(VICTIM), "leaves.ipynb")
    names = graded.exercise("count_leaves", "a_attacker")
    assert names["score"] == 0
    assert "distinct classes (the limit)" in names["tests"][0]["message"]
    size = graded.exercise("leaves_in_order", "a_attacker")
    assert size["score"] == 0
    assert f"over the limit of {channel.MAX_MESSAGE} bytes" in size["tests"][0]["message"]
    untouched = graded.exercise("is_leaf_type", "a_attacker")
    assert untouched["score"] == untouched["max_score"] > 0


# A learner cell that names its worker, then waits: the test kills the grading
# process that is grading it, as the kernel's out-of-memory killer would.
MARK = "killmygrader"
# prctl(PR_SET_NAME) rather than a write to /proc/self/comm: a worker is not dumpable, so
# its /proc files belong to root, not to the sandbox's user.
MARKED_CELL = f"""
import ctypes
ctypes.CDLL(None).prctl(15, b"{MARK}", 0, 0, 0)
import time
time.sleep(20)
"""


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("PPid:"))


def _grading_process_of_marked_worker(grader: int) -> int | None:
    """The grading process (a grandchild of the grader, under its fork server) whose
    worker is marked, if one is."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as comm:
                if comm.read().strip() != MARK:
                    continue
            chain = [int(entry)]
            while chain[-1] > 1:
                chain.append(_parent(chain[-1]))
        except (OSError, StopIteration):
            continue
        if grader in chain and chain.index(grader) >= 2:
            return chain[chain.index(grader) - 2]
    return None


def _kill_the_marked_notebook_s_grading_process(grader: subprocess.Popen, killed: list) -> None:
    while grader.poll() is None and not killed:
        pid = _grading_process_of_marked_worker(grader.pid)
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        time.sleep(0.1)


@pytest.mark.slow
def test_a_grading_process_that_dies_costs_only_its_notebook(tmp_path: Path):
    folder = write_class(
        tmp_path / "class",
        {"leaves": ({}, (MARKED_CELL,))},
        victim_notebooks=("leaves", "structure"),
    )
    report = tmp_path / "r.json"
    command = [sys.executable, "-m", "autograder", "grade", folder, "--json", report]
    grader = subprocess.Popen(
        [*map(str, command), "--jobs", "2", "--no-cache"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    killed: list[int] = []
    watcher = threading.Thread(
        target=_kill_the_marked_notebook_s_grading_process, args=(grader, killed)
    )
    watcher.start()
    _, stderr = grader.communicate(timeout=600)
    watcher.join()
    assert killed, "the marked notebook's grading process was never found"
    assert grader.returncode == 0, stderr
    graded = Graded(grader.returncode, "", stderr, json.loads(report.read_text()))
    victim = graded.student(VICTIM)
    assert full_marks(victim, "leaves.ipynb") and full_marks(victim, "structure.ipynb")
    attacker = [
        e for e in graded.student("a_attacker")["exercises"] if e["notebook"] == "leaves.ipynb"
    ]
    assert attacker
    for exercise in attacker:
        assert exercise["score"] == 0
        assert exercise["status"] == "crashed"
        message = exercise["tests"][0]["message"]
        assert "grading process itself ended" in message and "SIGKILL" in message
