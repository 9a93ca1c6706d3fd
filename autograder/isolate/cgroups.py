"""The control groups a zygote and its worker run in, made by the grader as root.

One group per zygote. A zygote runs one worker at a time, and ending a worker
kills everything left in the group but the zygote's own tasks, which wait while
the worker runs; so the group holds one worker and all it started, however it
detached. The kernel applies three controllers to the group as a whole:

- ``pids`` caps how many tasks it runs (:mod:`autograder.isolate.processes`);
- ``cpu`` gives it one fixed weight. Outside every CPU group the scheduler shares
  a core between *sessions* (autogroup), so a worker that made a hundred sessions
  got a hundred shares and starved the learner graded beside it; in its group
  it gets one, as every other worker does;
- ``cpuacct`` counts the CPU time of all its tasks, those that ended included,
  which a call's limit is counted in (:mod:`autograder.execute.cpu_time`).

Both versions of cgroups: v1 mounts each controller (or a few together) as a
hierarchy of its own, and the group is made in each; v2 has one hierarchy, where
a controller must be delegated to this process's own cgroup (named in its
``cgroup.subtree_control``), and counts CPU time in every group (``cpu.stat``).
A controller this machine does not offer, or not writable, is left out.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
import signal
import time
from pathlib import Path

PIDS = "pids"
CPU = "cpu"
CPUACCT = "cpuacct"
CONTROLLERS = (PIDS, CPU, CPUACCT)

GROUP_PREFIX = "pytrees-worker-"
V1_SHARES = 1024
"""``cpu.shares`` of every worker's group: the kernel's default, that of a session of its own."""
V2_WEIGHT = 100
"""``cpu.weight`` of every worker's group, likewise the default."""

_counter = itertools.count()
_swept: set[Path] = set()


def read(path: Path) -> str:
    """The text of a cgroup file, "" when it cannot be read."""
    try:
        return path.read_text()
    except OSError:
        return ""


def hierarchies(mountinfo: str, own: str) -> dict[str, Path]:
    """The folder of this process's own cgroup in the hierarchy of each controller offered.

    ``mountinfo`` and ``own`` are the texts of ``/proc/self/mountinfo`` and
    ``/proc/self/cgroup``. A controller bound to a v1 hierarchy is not in v2's.
    """
    own_paths = {}
    for line in own.splitlines():
        with contextlib.suppress(ValueError):
            _, names, path = line.split(":", 2)
            own_paths[frozenset(names.split(",")) - {""}] = path
    found: dict[str, Path] = {}
    unified: Path | None = None
    for line in mountinfo.splitlines():
        before, _, after = line.partition(" - ")
        fields, kind = before.split(), after.split()
        if len(fields) < 5 or len(kind) < 3:
            continue
        root, mount, options = fields[3], Path(fields[4]), set(kind[2].split(","))
        if kind[0] == "cgroup":
            for names, path in own_paths.items():
                if names and names <= options and (folder := _below(mount, root, path)):
                    found.update(dict.fromkeys(names & set(CONTROLLERS), folder))
        elif kind[0] == "cgroup2" and frozenset() in own_paths:
            unified = _below(mount, root, own_paths[frozenset()])
    if unified is not None:
        delegated = set(read(unified / "cgroup.subtree_control").split())
        for controller in CONTROLLERS:
            if controller not in found and (controller in delegated or controller == CPUACCT):
                found[controller] = unified
    return found


def _below(mount: Path, root: str, path: str) -> Path | None:
    """Where cgroup ``path`` is under a hierarchy mounted at ``mount`` from its ``root``."""
    relative = os.path.relpath(path, root)
    return None if relative.startswith("..") else Path(os.path.normpath(mount / relative))


def own_hierarchies() -> dict[str, Path]:
    """:func:`hierarchies` of this process."""
    return hierarchies(read(Path("/proc/self/mountinfo")), read(Path("/proc/self/cgroup")))


class Group:
    """A group of the grader's own in the hierarchy of each of ``parents``' controllers.

    ``folders`` maps each controller the group got to its folder; a controller
    whose folder could not be made is left out.
    """

    def __init__(self, parents: dict[str, Path]) -> None:
        # The random part keeps a new group from meeting one a killed grader left behind
        # under the same (reused) pid.
        name = f"{GROUP_PREFIX}{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}"
        self.folders: dict[str, Path] = {}
        self._made: set[Path] = set()
        for controller, parent in parents.items():
            folder = parent / name
            _sweep_once(parent)
            with contextlib.suppress(OSError):
                if folder not in self._made:
                    folder.mkdir()
                    self._made.add(folder)
                self.folders[controller] = folder

    def write(self, controller: str, settings: dict[str, object]) -> bool:
        """Write the first of ``settings`` (file name: value) that ``controller``'s folder has;
        without one, the group gives up that controller. Whether it was written."""
        folder = self.folders.get(controller)
        for file, value in settings.items():
            if folder is not None and (folder / file).exists():
                with contextlib.suppress(OSError):
                    (folder / file).write_text(str(value))
                    return True
        self.folders.pop(controller, None)
        return False

    def weigh(self) -> bool:
        """Give the group the fixed CPU weight; whether it has one."""
        return self.write(CPU, {"cpu.weight": V2_WEIGHT, "cpu.shares": V1_SHARES})

    def enter(self) -> None:
        """Put the calling process in the group (runs in the child, between fork and exec)."""
        for folder in set(self.folders.values()):
            fd = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, str(os.getpid()).encode())
            finally:
                os.close(fd)

    def cpu_seconds(self) -> float | None:
        """The CPU time every task ever in the group has used; None where it is not counted."""
        folder = self.folders.get(CPUACCT)
        if folder is None:
            return None
        return usage_seconds(folder)

    def tasks(self) -> frozenset[int]:
        """The processes in the group now."""
        folder = next(iter(self.folders.values()), None)
        if folder is None:
            return frozenset()
        return frozenset(int(pid) for pid in read(folder / "cgroup.procs").split())

    def kill_except(self, keep: frozenset[int], wait: float = 0.0) -> None:
        """Kill every process in the group but ``keep``, waiting up to ``wait`` s for them to go."""
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
        deadline = time.monotonic() + 5
        for folder in self._made:
            while True:  # a killed task may hold its group a moment after it has left the list
                self.kill_except(frozenset())
                try:
                    folder.rmdir()
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(0.02)
        self.folders, self._made = {}, set()


def usage_seconds(folder: Path) -> float | None:
    """The CPU time counted in the group at ``folder``: ``cpuacct.usage`` (v1, nanoseconds) or
    ``cpu.stat``'s ``usage_usec`` (v2); None when neither can be read."""
    with contextlib.suppress(ValueError):
        if text := read(folder / "cpuacct.usage").strip():
            return int(text) / 1e9
        for line in read(folder / "cpu.stat").splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
    return None


def _sweep_once(parent: Path) -> None:
    """Remove the empty groups of grader processes that have ended, once per hierarchy."""
    if parent not in _swept:
        _swept.add(parent)
        for group in stale_groups(parent):
            with contextlib.suppress(OSError):  # not empty: a task still runs in it
                group.rmdir()


def stale_groups(parent: Path) -> list[Path]:
    """Groups made below ``parent`` by graders that have ended before they closed them."""
    stale = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            if entry.name.startswith(GROUP_PREFIX):
                owner = entry.name[len(GROUP_PREFIX) :].split("-", 1)[0]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    stale.append(Path(entry.path))
    return stale
