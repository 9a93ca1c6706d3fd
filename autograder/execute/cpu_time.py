"""How much CPU time a worker has used, read by the grader from ``/proc``.

A call's limit is counted in the worker's CPU time rather than on the clock, so
that a busy machine, which slows every process alike, does not turn a correct
call into a timeout (see :meth:`autograder.execute.run.NotebookRun.call`). The
worker's own word is not taken for it: it runs the learner's code. The grader
reads the kernel's count instead. Where the worker's zygote has a cgroup
(:mod:`autograder.isolate.cgroups`), that is the group's, which covers every
process the worker started; this module reads the count of the worker process
alone, every thread of it, where there is none.

The zygote reports a worker's pid as seen inside its sandbox, whose pid
namespace the grader is not in; :func:`host_pid` finds the same process among
the zygote's children by the last entry of its ``NSpid`` (Linux 4.1 and later).
"""

from __future__ import annotations

import contextlib
import os

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
DEPTH = 2
"""Generations below the process the grader started: bubblewrap, the zygote, the worker."""


def host_pid(root: int, pid: int) -> int | None:
    """The grader's pid of the process ``root`` or its descendants know as ``pid``; None when
    no such process is found (not Linux, or it has ended)."""
    generation = [root]
    for _ in range(DEPTH):
        generation = [child for parent in generation for child in _children(parent)]
        for candidate in generation:
            if _namespace_pids(candidate)[-1:] == [pid]:
                return candidate
    return None


def cpu_seconds(pid: int) -> float | None:
    """The CPU time, user and system, every thread of process ``pid`` has used so far; None
    once it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return None
    # The command name, in parentheses, may hold spaces and parentheses of its own.
    fields = text[text.rfind(b")") + 2 :].split()
    try:
        utime, stime = int(fields[11]), int(fields[12])
    except (IndexError, ValueError):
        return None
    return (utime + stime) / TICKS_PER_SECOND


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for thread in os.listdir(f"/proc/{pid}/task"):
            path = f"/proc/{pid}/task/{thread}/children"
            with contextlib.suppress(OSError, ValueError), open(path) as children:
                found += [int(child) for child in children.read().split()]
    return found


def _namespace_pids(pid: int) -> list[int]:
    """``pid`` in its own pid namespace and every one above it, innermost last."""
    with contextlib.suppress(OSError, ValueError), open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("NSpid:"):
                return [int(word) for word in line.split()[1:]]
    return []
