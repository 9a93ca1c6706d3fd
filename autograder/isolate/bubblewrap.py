"""How a worker is walled off: bubblewrap where it works, a plain limited process otherwise.

With bubblewrap (Debian's ``bubblewrap``) the worker gets no network, a read-only
view of the system and of Python, and nothing else of the machine: not the
course's ``solutions/`` or ``tests/``, not the grader's reports, not the home
directory. The whole view is read-only but for two memory file systems of a
fixed size, ``/tmp`` (where each worker's scratch folder is made) and
``/dev/shm``, which the zygote empties after every worker.

When the grader runs as root (CI, containers, Gradescope), the sandbox does not
run as root: bubblewrap sets up the mounts as root, then ``setpriv`` becomes
``SANDBOX_UID`` before Python starts, with no capabilities and no way back. As
any other user, bubblewrap maps that user into a user namespace of its own and
forbids nested ones. Either way a seccomp filter (:mod:`autograder.isolate.seccomp`)
refuses the system calls a notebook never needs.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from autograder.isolate import seccomp
from autograder.load.course import PACKAGE_DIR
from autograder.store.folder import STORE_MOUNT

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")

BUBBLEWRAP = "bubblewrap"
PROCESS = "process"
NOT_ISOLATED = "not isolated: root without bubblewrap"
"""Workers that would run learner code as the machine's root, with nothing around them."""

SANDBOX_UID = SANDBOX_GID = 65534
"""Who a sandbox started by root runs as: the conventional ``nobody``, which owns no file."""

SCRATCH_ROOT = "/tmp"
"""Where workers' scratch folders are made inside the sandbox."""
WRITABLE = (SCRATCH_ROOT, "/dev/shm")
"""The sandbox's only writable folders: memory file systems of a fixed size."""


@dataclass(frozen=True)
class Command:
    """The words to put before the zygote's command line, and the descriptors to pass on."""

    words: list[str]
    pass_fds: tuple[int, ...] = ()


@functools.cache
def bubblewrap() -> str | None:
    """The path of a ``bwrap`` that can start a worker's sandbox here, or None.

    Tried with the very words a zygote is started with, so an old bubblewrap (without
    ``--size`` or ``--disable-userns``), a setuid one, or a missing ``setpriv`` counts
    as none: workers then run as plain processes, and the report says so.
    """
    path = shutil.which("bwrap")
    if path is None:
        return None
    probe = _command(path, 2**30)
    try:
        done = subprocess.run(
            [*probe.words, "/bin/true"], pass_fds=probe.pass_fds, capture_output=True, timeout=10
        )
        ok = done.returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    finally:
        for fd in probe.pass_fds:
            os.close(fd)
    return path if ok else None


def isolation(sandbox: bool) -> str:
    """What walls off a worker started with ``sandbox``: BUBBLEWRAP, PROCESS or NOT_ISOLATED."""
    if sandbox and bubblewrap():
        return BUBBLEWRAP
    return NOT_ISOLATED if drops_root() else PROCESS


def drops_root() -> bool:
    """Whether sandboxes started here change user (the grader runs as root)."""
    return os.geteuid() == 0


def tmpfs_bytes(memory_bytes: int) -> int:
    """The size of each of the sandbox's two memory file systems, for a worker of ``memory_bytes``.

    Files there are memory the address-space limit does not see, so a worker's
    address space is limited to ``memory_bytes`` less both of them
    (:func:`address_space_bytes`).
    """
    return min(memory_bytes // 16, 256 * 2**20)


def address_space_bytes(memory_bytes: int, sandboxed: bool) -> int:
    """The address-space limit that, with both memory file systems full, keeps ``memory_bytes``."""
    return memory_bytes - 2 * tmpfs_bytes(memory_bytes) if sandboxed else memory_bytes


def command(
    sandbox: bool, memory_bytes: int, store: Path | None = None, writable: bool = False
) -> Command | None:
    """How to start a zygote in a sandbox, or None without bubblewrap.

    ``store``, when given, is bound at ``STORE_MOUNT``: read-only unless ``writable``
    (as root, a writable store must belong to ``SANDBOX_UID``: see :func:`hand_over`).
    """
    bwrap = bubblewrap() if sandbox else None
    return None if bwrap is None else _command(bwrap, memory_bytes, store, writable)


def _command(
    bwrap: str, memory_bytes: int, store: Path | None = None, writable: bool = False
) -> Command:
    words = [bwrap, "--die-with-parent", "--new-session", "--as-pid-1"]
    words += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    words += ["--unshare-cgroup-try"]
    if drops_root():
        # setpriv needs these to become SANDBOX_UID; it gives them all up before Python starts
        words += ["--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            words += ["--cap-add", cap]
    else:
        words += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    words += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    words += ["--dev", "/dev"]
    size = str(tmpfs_bytes(memory_bytes))
    for folder in WRITABLE:
        words += ["--perms", "1777", "--size", size, "--tmpfs", folder]
    words += ["--remount-ro", "/dev"]
    made: set[str] = set()
    for top in SYSTEM_DIRS:
        if os.path.islink(top):
            words += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            words += ["--ro-bind", top, top]
    for path in bound_paths():
        words += _parents(path, made) + ["--ro-bind", path, path]
    if store is not None:
        words += _parents(STORE_MOUNT, made)
        words += ["--bind" if writable else "--ro-bind", str(store), STORE_MOUNT]
    words += ["--remount-ro", "/", "--chdir", SCRATCH_ROOT]
    fds: tuple[int, ...] = ()
    fd = seccomp.filter_fd()
    if fd is not None:
        words += ["--seccomp", str(fd)]
        fds = (fd,)
    words += ["--"]
    if drops_root():
        words += [
            "setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_GID}", "--clear-groups",
            "--bounding-set=-all", "--inh-caps=-all", "--",
        ]  # fmt: skip
    return Command(words, fds)


def bound_paths() -> list[str]:
    """The folders of the host bound at the same path into the sandbox: Python and the grader.

    Inside the sandbox they are the same, so the zygote can ask too: where one lies in a
    writable folder (a clone under ``/tmp``), the way to it is not the worker's to remove.
    """
    return sorted({sys.base_prefix, sys.prefix, str(PACKAGE_DIR)})


def _parents(path: str, made: set[str]) -> list[str]:
    """Words that make ``path``'s parent folders readable by anyone in the sandbox.

    bubblewrap would otherwise copy each host folder's mode, and a parent such as
    ``/root`` (mode 700) would hide what is bound below it from ``SANDBOX_UID``.
    """
    words: list[str] = []
    for parent in reversed(PurePosixPath(path).parents):
        name = str(parent)
        if name == "/" or name in made or name in SYSTEM_DIRS:
            continue
        made.add(name)
        words += ["--perms", "0755", "--dir", name]
    return words


def hand_over(folder: Path) -> None:
    """Make ``folder`` and what it holds writable by the sandbox, where sandboxes drop root."""
    if not drops_root():
        return
    for root, folders, files in os.walk(folder):
        for name in [root, *(os.path.join(root, f) for f in folders + files)]:
            os.chown(name, SANDBOX_UID, SANDBOX_GID, follow_symlinks=False)
