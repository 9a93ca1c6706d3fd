"""How a worker is walled off: bubblewrap where it works, a plain limited process otherwise.

With bubblewrap (Debian's ``bubblewrap``) the worker gets no network, a read-only
view of the system and of Python, and nothing else of the machine: not the
course's ``solutions/`` or ``tests/``, not the grader's reports, not the home
directory. Only its scratch directory is writable.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.load.course import PACKAGE_DIR
from autograder.store.folder import STORE_MOUNT

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")

BUBBLEWRAP = "bubblewrap"
PROCESS = "process"


@functools.cache
def bubblewrap() -> str | None:
    """The path of a working ``bwrap``, or None when it is missing or cannot run here."""
    path = shutil.which("bwrap")
    if path is None:
        return None
    probe = [path, "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"]
    try:
        ok = subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return path if ok else None


def isolation(sandbox: bool) -> str:
    """What a worker started with ``sandbox`` will run under: BUBBLEWRAP or PROCESS."""
    return BUBBLEWRAP if sandbox and bubblewrap() else PROCESS


def command_prefix(
    sandbox: bool, scratch: Path, store: Path | None = None, writable: bool = False
) -> list[str]:
    """The words to put before the worker's command line (none without bubblewrap).

    ``store``, when given, is bound at ``STORE_MOUNT``: read-only unless ``writable``.
    """
    bwrap = bubblewrap() if sandbox else None
    if bwrap is None:
        return []
    words = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--as-pid-1"]
    words += ["--cap-drop", "ALL"]
    words += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for top in SYSTEM_DIRS:
        if os.path.islink(top):
            words += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            words += ["--ro-bind", top, top]
    for path in sorted({sys.base_prefix, sys.prefix, str(PACKAGE_DIR)}):
        words += ["--ro-bind", path, path]
    if store is not None:
        words += ["--bind" if writable else "--ro-bind", str(store), STORE_MOUNT]
    words += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch), "--"]
    return words
