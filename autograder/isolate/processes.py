"""The limits on one worker's processes: how many it may run, what CPU share they get, and
how their CPU time is read.

Two mechanisms, whichever this machine allows:

- ``cgroup``: as root, control groups of its own per zygote and its worker
  (:mod:`autograder.isolate.cgroups`): ``pids.max`` caps the tasks, the kernel
  counts every task the worker starts, however it detaches, and closing the cap
  kills whatever is left in the group; the same group gets one fixed CPU weight
  and counts the CPU time of all its tasks, where the machine offers the
  ``cpu`` and ``cpuacct`` controllers.
- ``rlimit``: as any other user, ``RLIMIT_NPROC``. The kernel counts all of the
  user's tasks against it, so the limit is set that many above what the user
  already runs. (The kernel ignores ``RLIMIT_NPROC`` for root, hence the cgroup.)

Where neither works (root without a writable pids cgroup) the worker is not
capped, and the report says so, as it says when a worker's sessions are not
weighed as one or its CPU time is that of the worker process alone.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from autograder.isolate import cgroups

CGROUP = "cgroup"
RLIMIT = "rlimit"
NONE = "none"
NONE_DESCRIPTION = "not capped"
WEIGHED = "one CPU weight"
"""The report's words for a worker whose sessions weigh as one worker."""
COUNTED = "CPU time of all its processes"
"""The report's words for a worker whose calls count the CPU time of every process it starts."""

TASKS = 32 + 8 * (os.cpu_count() or 1)
"""The default cap on a worker's tasks (processes and threads). Measured with ``pids.peak`` of
each zygote's group, grading each chapter's solutions: a worker ran at most 29 tasks besides
its zygote's own on one core (capstone, libraries, sharding; 27 or 28 for the others), and
32 on two, as JAX starts 3 more threads for each core. The cap leaves more than twice that
per core, and a few tasks more besides."""


def _user_tasks() -> int:
    """How many tasks (processes and threads) this user runs now."""
    uid = os.getuid()
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
    return count


class ProcessCap:
    """At most ``limit`` tasks for one zygote's worker; as root, also one CPU weight and the CPU
    time of all its tasks. Use :meth:`enter` in the zygote's process before exec."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.group: cgroups.Group | None = None
        self._nproc = 0
        if os.geteuid() == 0:
            self.group = cgroups.Group(cgroups.own_hierarchies())
            self.group.write(cgroups.PIDS, {"pids.max": limit})
            self.group.weigh()
        else:
            self._nproc = _user_tasks() + limit
        capped = self.group is not None and cgroups.PIDS in self.group.folders
        self.kind = CGROUP if capped else RLIMIT if self._nproc else NONE

    def enter(self) -> None:
        """Put the calling process in the cap's groups (runs in the child, between fork and
        exec); nothing to do without them, where an rlimit is given to each worker instead."""
        if self.group is not None:
            self.group.enter()

    def exempt_current_tasks(self) -> None:
        """Leave the tasks now in the group out of the cap (a zygote's own, before any worker)."""
        if self.kind == CGROUP:
            assert self.group is not None
            current = cgroups.read(self.group.folders[cgroups.PIDS] / "pids.current").strip()
            self.group.write(cgroups.PIDS, {"pids.max": self.limit + int(current or 0)})

    def nproc_for_new_process(self) -> int:
        """The RLIMIT_NPROC to give a process started now (0: the cap is not an rlimit)."""
        return _user_tasks() + self.limit if self.kind == RLIMIT else 0

    @property
    def weighed(self) -> bool:
        """Whether all the worker's tasks share one fixed CPU weight, whatever their sessions."""
        return self.group is not None and cgroups.CPU in self.group.folders

    def cpu_seconds(self) -> float | None:
        """The CPU time of every task ever in the group (the zygote's, waiting while its one
        worker runs, and everything the worker started); None where it is not counted."""
        return None if self.group is None else self.group.cpu_seconds()

    def tasks(self) -> frozenset[int]:
        """The processes in the group now (empty without a cgroup)."""
        return frozenset() if self.group is None else self.group.tasks()

    def kill_except(self, keep: frozenset[int], wait: float = 0.0) -> None:
        """Kill every process in the group but ``keep``, waiting up to ``wait`` s for them to go.

        Nothing to do without a cgroup.
        """
        if self.group is not None:
            self.group.kill_except(keep, wait)

    def close(self) -> None:
        """Kill every task left in the group and remove it."""
        if self.group is not None:
            self.group.close()
            self.group = None

    def __str__(self) -> str:
        cap = NONE_DESCRIPTION if self.kind == NONE else f"{self.limit} tasks ({self.kind})"
        shared = [WEIGHED] if self.weighed else []
        counted = [COUNTED] if self.cpu_seconds() is not None else []
        return ", ".join([cap, *shared, *counted])


def stale_groups() -> list[Path]:
    """Groups made by graders that ended before they closed them (killed), in every hierarchy."""
    parents = set(cgroups.own_hierarchies().values())
    return [group for parent in sorted(parents) for group in cgroups.stale_groups(parent)]


def describe(limit: int) -> str:
    """How a worker's processes would be capped, weighed and timed here, for the report."""
    cap = ProcessCap(limit)
    try:
        return str(cap)
    finally:
        cap.close()


def available() -> bool:
    """Whether workers' processes can be capped on this machine, as this user."""
    cap = ProcessCap(1)
    try:
        return cap.kind != NONE
    finally:
        cap.close()


def counts_every_task() -> bool:
    """Whether a call's CPU time here is that of every process its worker started."""
    cap = ProcessCap(1)
    try:
        return cap.cpu_seconds() is not None
    finally:
        cap.close()
