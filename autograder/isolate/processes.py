"""A cap on the number of processes and threads one worker may run, so a fork bomb ends only it.

Two mechanisms, whichever this machine allows:

- ``cgroup``: as root, a pids cgroup of its own per worker (``pids.max``). The
  kernel counts every task the worker starts, however it detaches, and closing
  the cap kills whatever is left in the group.
- ``rlimit``: as any other user, ``RLIMIT_NPROC``. The kernel counts all of the
  user's tasks against it, so the limit is set that many above what the user
  already runs. (The kernel ignores ``RLIMIT_NPROC`` for root, hence the cgroup.)

Where neither works (root without a writable pids cgroup) the worker is not
capped, and the report says so.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import resource
import secrets
import signal
import time
from pathlib import Path

CGROUP = "cgroup"
RLIMIT = "rlimit"
NONE = "none"
NONE_DESCRIPTION = "not capped"

GROUP_PREFIX = "pytrees-worker-"

_counter = itertools.count()
_swept = False


def _own_cgroup(controller: str) -> str | None:
    """This process's cgroup path in ``controller``'s hierarchy ("" for cgroup v2)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controllers.split(",") == [controller]:
                return path
    return None


def _pids_hierarchy() -> Path | None:
    """The folder of this process's own pids cgroup, where a child group can be made."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            before, _, after = line.partition(" - ")
            mount = Path(before.split()[4])
            fstype, _source, options = after.split()[:3]
            if fstype == "cgroup" and "pids" in options.split(","):
                own = _own_cgroup("pids")
            elif fstype == "cgroup2" and "pids" in _read(mount / "cgroup.controllers").split():
                own = _own_cgroup("")
            else:
                continue
            if own is not None:
                return mount / own.lstrip("/")
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


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
    """At most ``limit`` tasks for one worker. Use :meth:`enter` in the child before exec."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.group: Path | None = None
        self._nproc = 0
        if os.geteuid() == 0:
            self.group = self._make_group(limit)
        else:
            self._nproc = _user_tasks() + limit
        self.kind = CGROUP if self.group else RLIMIT if self._nproc else NONE

    @staticmethod
    def _make_group(limit: int) -> Path | None:
        parent = _pids_hierarchy()
        if parent is None:
            return None
        _sweep_once(parent)
        # The random part keeps a new group from meeting one a killed process left behind
        # under the same (reused) pid.
        group = parent / f"{GROUP_PREFIX}{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}"
        try:
            group.mkdir()
            (group / "pids.max").write_text(str(limit))
        except OSError:
            with contextlib.suppress(OSError):
                group.rmdir()
            return None
        return group

    def enter(self) -> None:
        """Put the calling process under the cap (runs in the child, between fork and exec)."""
        if self.group is not None:
            fd = os.open(self.group / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, str(os.getpid()).encode())
            finally:
                os.close(fd)
        elif self._nproc:
            resource.setrlimit(resource.RLIMIT_NPROC, (self._nproc, self._nproc))

    def exempt_current_tasks(self) -> None:
        """Leave the tasks now in the group out of the cap (a zygote's own, before any worker)."""
        if self.group is not None:
            current = int(_read(self.group / "pids.current").strip() or 0)
            (self.group / "pids.max").write_text(str(self.limit + current))

    def nproc_for_new_process(self) -> int:
        """The RLIMIT_NPROC to give a process started now (0: the cap is not an rlimit)."""
        return _user_tasks() + self.limit if self.kind == RLIMIT else 0

    def tasks(self) -> frozenset[int]:
        """The processes in the group now (empty without a cgroup)."""
        if self.group is None:
            return frozenset()
        return frozenset(int(pid) for pid in _read(self.group / "cgroup.procs").split())

    def kill_except(self, keep: frozenset[int], wait: float = 0.0) -> None:
        """Kill every process in the group but ``keep``, waiting up to ``wait`` s for them to go.

        Nothing to do without a cgroup.
        """
        deadline = time.monotonic() + wait
        while others := self.tasks() - keep:
            for pid in others:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() >= deadline:
                return
            time.sleep(0.005)

    def close(self) -> None:
        """Kill every task left in the group and remove it."""
        if self.group is None:
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pids = _read(self.group / "cgroup.procs").split()
            for pid in pids:
                with contextlib.suppress(OSError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            try:
                self.group.rmdir()
                break
            except OSError:
                time.sleep(0.02)
        self.group = None

    def __str__(self) -> str:
        if self.kind == NONE:
            return NONE_DESCRIPTION
        return f"{self.limit} tasks ({self.kind})"


def _sweep_once(parent: Path) -> None:
    """Remove the empty groups of grader processes that have ended, once per process."""
    global _swept
    if not _swept:
        _swept = True
        for group in stale_groups(parent):
            with contextlib.suppress(OSError):  # not empty: a task still runs in it
                group.rmdir()


def stale_groups(parent: Path | None = None) -> list[Path]:
    """Groups made here by processes that have ended: a grader killed before it closed its caps."""
    parent = parent or _pids_hierarchy()
    if parent is None:
        return []
    stale = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            if entry.name.startswith(GROUP_PREFIX):
                owner = entry.name[len(GROUP_PREFIX) :].split("-", 1)[0]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    stale.append(Path(entry.path))
    return stale


def describe(limit: int) -> str:
    """How a worker's processes would be capped here, for the report."""
    cap = ProcessCap(limit)
    try:
        return str(cap)
    finally:
        cap.close()


def available() -> bool:
    """Whether workers' processes can be capped on this machine, as this user."""
    return describe(1) != NONE_DESCRIPTION
