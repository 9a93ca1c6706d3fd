"""What one learner's worker leaves behind never reaches another learner's worker.

A class is graded with learners who leave traces everywhere a worker might write
(a JAX plugin on the import path, files, locked folders, memory held in files, a
process listening on a socket), a correct victim after them, and learners after
them who look for any trace and fail if they find one. Graded with one grading
process, and with two, where each process grades a learner who leaves traces first.
A second class does the same with what a worker might leave in the kernel (a secret
in the ports of connections in TIME_WAIT, the pid and inode counters moved), and a
learner whose worker keeps the hidden inputs there before it ends, for its restart.
"""

from __future__ import annotations

import re

import pytest
from attack_cases import CASES, Attack, write_learners

from autograder.isolate import bubblewrap
from conftest import VICTIM, grade_leaves_class

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bubblewrap.bubblewrap() is None, reason="the walls are bubblewrap's"),
]

LEAVER = next(attack for attack in CASES if attack.name == "leave_traces")
LOOKER = next(attack for attack in CASES if attack.name == "zz_look_for_traces")
LEAVERS = ("a_leaves_traces", "a_leaves_traces_too")
LOOKERS = ("c_looks_for_traces", "c_looks_for_traces_too")


@pytest.fixture(scope="module", params=[1, 2], ids=["jobs-1", "jobs-2"])
def graded(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    learners = {**dict.fromkeys(LEAVERS, LEAVER), **dict.fromkeys(LOOKERS, LOOKER)}
    write_learners(folder, {**learners, VICTIM: Attack("correct")})
    report = tmp_path_factory.mktemp("report") / "r.json"
    return grade_leaves_class(folder, report, request.param)


def test_the_victim_after_them_keeps_full_marks(graded):
    assert graded[VICTIM]["score"] == graded[VICTIM]["max_score"]


@pytest.mark.parametrize("looker", LOOKERS)
def test_a_later_learner_finds_nothing_they_left(graded, looker):
    exercises = {e["name"]: e for e in graded[looker]["exercises"]}
    assert exercises["count_leaves"]["status"] == "passed", exercises["count_leaves"]["message"]
    assert graded[looker]["score"] == graded[looker]["max_score"]


@pytest.mark.parametrize("leaver", LEAVERS)
def test_those_who_leave_traces_earn_what_their_functions_earn(graded, leaver):
    statuses = {e["name"]: e["status"] for e in graded[leaver]["exercises"]}
    assert statuses == {
        "count_leaves": "failed",
        "leaves_in_order": "passed",
        "is_leaf_type": "passed",
    }


# What a worker can leave in the kernel rather than in a file: connections in TIME_WAIT,
# which outlive it for a minute, each client's port encoding one byte of a text.
LEAVE_IN_TIME_WAIT = """import socket


def _leave_in_time_wait(text, base):
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(256)
    for i, byte in enumerate(text.encode()[:100]):
        client = socket.socket()
        client.bind(('127.0.0.1', base + 256 * i + byte))
        client.connect(server.getsockname())
        accepted = server.accept()[0]
        client.close()  # the side that closes first keeps the TIME_WAIT: the client's port
        accepted.close()
"""
READ_TIME_WAIT = """def _read_time_wait(base):
    found = {}
    try:
        for line in open('/proc/net/tcp').read().splitlines()[1:]:
            port = int(line.split()[1].split(':')[1], 16)
            if line.split()[3] == '06' and base <= port < base + 256 * 100:
                found[(port - base) // 256] = (port - base) % 256
    except OSError:
        pass
    return bytes(found[i] for i in sorted(found)).decode(errors='replace')
"""
SECRET, SECRET_BASE, KEPT_BASE = "SECRET-42", 40000, 12000
# The counters too: 420 threads (pids) and 4242 files (inodes), then the secret.
LEAVE_THE_SECRET = f"""{LEAVE_IN_TIME_WAIT}
import os, threading
for _ in range(420):
    _thread = threading.Thread(target=int)
    _thread.start()
    _thread.join()
for _number in range(4242):
    open(f'/dev/shm/f{{_number}}', 'w').close()
    os.remove(f'/dev/shm/f{{_number}}')
_leave_in_time_wait({SECRET!r}, {SECRET_BASE})"""
LOOK_FOR_THE_SECRET = f"""{READ_TIME_WAIT}
_count_leaves = count_leaves
def count_leaves(tree, *, none_is_leaf=False):
    if {SECRET!r} in _read_time_wait({SECRET_BASE}):
        raise RuntimeError('read from another learner: ' + {SECRET!r})
    return _count_leaves(tree, none_is_leaf=none_is_leaf)"""
# count_leaves records its inputs; on its 6th call, the third hidden input, it leaves
# them where a restarted worker might read them, and ends its worker. A cell raises
# with what it finds, in every run of the cells.
KEEPS_THEN_ENDS = f"""{LEAVE_IN_TIME_WAIT}
import os
import jax

_calls = []


def count_leaves(tree, *, none_is_leaf=False):
    _calls.append(repr((tree, none_is_leaf)))
    if len(_calls) == 6:
        try:
            _leave_in_time_wait(' | '.join(_calls), {KEPT_BASE})
        except OSError:
            pass
        os._exit(3)
    is_leaf = (lambda node: node is None) if none_is_leaf else None
    return len(jax.tree.leaves(tree, is_leaf=is_leaf))"""
RAISES_WHAT_IT_FINDS = f"""{READ_TIME_WAIT}
raise RuntimeError('FROM THE LAST WORKER: [' + _read_time_wait({KEPT_BASE}) + ']')"""
KERNEL_LEAVERS = ("a_leaves_the_secret", "a_leaves_the_secret_too")
RESTARTER = "a_restarts_its_worker"
KERNEL_LOOKERS = ("c_looks_for_the_secret", "c_looks_for_the_secret_too")


@pytest.fixture(scope="module", params=[1, 2], ids=["jobs-1", "jobs-2"])
def graded_kernel_leftovers(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("kernel")
    attacks = {
        **dict.fromkeys(KERNEL_LEAVERS, Attack("leave_the_secret", append=(LEAVE_THE_SECRET,))),
        RESTARTER: Attack(
            "restart", {"count_leaves": KEEPS_THEN_ENDS}, append=(RAISES_WHAT_IT_FINDS,)
        ),
        **dict.fromkeys(KERNEL_LOOKERS, Attack("look", append=(LOOK_FOR_THE_SECRET,))),
        VICTIM: Attack("correct"),
    }
    write_learners(folder, attacks)
    report = tmp_path_factory.mktemp("report") / "r.json"
    return grade_leaves_class(folder, report, request.param)


def notes_of(student: dict) -> list[str]:
    return [note["message"] for note in student["notes"]]


def test_the_victim_next_to_kernel_leftovers_keeps_full_marks(graded_kernel_leftovers):
    victim = graded_kernel_leftovers[VICTIM]
    assert victim["score"] == victim["max_score"]


@pytest.mark.parametrize("looker", KERNEL_LOOKERS)
def test_a_later_learner_reads_no_secret_from_the_kernel(graded_kernel_leftovers, looker):
    exercises = {e["name"]: e for e in graded_kernel_leftovers[looker]["exercises"]}
    assert exercises["count_leaves"]["status"] == "passed", exercises["count_leaves"]["message"]


@pytest.mark.parametrize("leaver", KERNEL_LEAVERS)
def test_a_learner_cannot_open_a_network_socket_to_leave_a_secret(graded_kernel_leftovers, leaver):
    student = graded_kernel_leftovers[leaver]
    assert any("Address family not supported" in note for note in notes_of(student))
    assert student["score"] == student["max_score"]


def test_a_restarted_worker_shows_nothing_its_last_worker_kept(graded_kernel_leftovers):
    student = graded_kernel_leftovers[RESTARTER]
    notes = notes_of(student)
    assert re.findall(r"FROM THE LAST WORKER: \[(.*?)\]", repr(student)) == [""]  # the first run
    assert any("RuntimeError (its message is not shown" in note for note in notes), notes
    statuses = {e["name"]: e["status"] for e in student["exercises"]}
    assert statuses == {
        "count_leaves": "crashed",
        "leaves_in_order": "passed",
        "is_leaf_type": "passed",
    }
