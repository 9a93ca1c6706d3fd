"""Asking the warm checker to run ``check``: the client side, which ``python -m autograder
check`` uses before it imports anything heavy.

A check in a fresh process spends most of its time importing JAX, pytest and nbformat
(about 1.2 s of the 1.8 s a one-notebook check took on a quiet 2-core machine) and starting
the zygote that forks the sandboxed workers. The warm checker
(:mod:`autograder.warm_server`) keeps those between one learner's checks, so that a
check takes the time its tests take. It is used where a person waits for the answer: when
standard output is a terminal and ``CI`` is not set, or when ``AUTOGRADER_WARM_CHECK=1``;
``AUTOGRADER_WARM_CHECK=0`` turns it off. Whatever goes wrong on the way, the command
checks in its own process instead, as it always did.

This module imports only the standard library: it is what every terminal check pays for.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import site
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

SETTING = "AUTOGRADER_WARM_CHECK"
"""``1``: check in the warm checker; ``0``: in the command's own process; unset: warm only
when a person is at a terminal (standard output is one and ``CI`` is not set)."""
STARTING_SECONDS = 20.0
"""How long a command waits for a warm checker it started to listen before checking itself."""
MAX_MESSAGE = 64 * 2**20
"""The largest request or answer read, in bytes (a check's output is a few kilobytes)."""
INFLUENCES = ("JAX_", "XLA_", "TF_", "PYTHON", "LD_", "OMP_", "MKL_", "OPENBLAS_", "TMPDIR")
"""Environment variables read when modules are imported or a zygote starts: a checker
started under other values of these is another checker."""
_PACKAGE = Path(__file__).resolve().parent


def wanted() -> bool:
    """Whether this command should ask the warm checker (see the module's docstring)."""
    return _allowed(at_terminal=sys.stdout.isatty())


def _allowed(at_terminal: bool) -> bool:
    """Whether a check whose output goes to a terminal (or not) asks the warm checker."""
    setting = os.environ.get(SETTING, "")
    if setting in ("0", "1"):
        return setting == "1"
    return at_terminal and not os.environ.get("CI")


def check_warm(arguments: list[str]) -> int | None:
    """Run ``python -m autograder check ARGUMENTS`` in the warm checker for this working
    folder, starting one if none answers; print what the check printed, and return its
    exit code. None when no warm checker answered: the caller then checks itself."""
    if "-h" in arguments or "--help" in arguments or not hasattr(socket, "AF_UNIX"):
        return None
    try:
        address = checker_address(os.getcwd())
        answer = _ask(address, _request(arguments))
    except (OSError, ValueError):
        return None
    if answer is None:
        return None
    sys.stdout.write(answer["stdout"])
    sys.stdout.flush()
    sys.stderr.write(answer["stderr"])
    sys.stderr.flush()
    return answer["code"]


def start_checker() -> None:
    """Start the warm checker for this working folder in the background, unless one runs
    or no check would ask it (:data:`SETTING` is ``0``, or ``CI`` is set without it):
    ``./course serve`` starts it as it starts, so that a learner's first check at the
    terminal finds JAX and pytest imported. Returns at once; a checker that cannot start
    (no private folder, no Unix sockets) leaves the first check to start one."""
    # the checks it is started for are a person's, at a terminal
    if not _allowed(at_terminal=True) or not hasattr(socket, "AF_UNIX"):
        return
    try:
        address = checker_address(os.getcwd())
        connection = _connect(address)
    except OSError:
        return
    if connection is not None:
        connection.close()  # one listens: it takes the next check
        return
    _spawn(address, "--ahead")


def checker_address(cwd: str) -> Path:
    """The socket of the warm checker for ``cwd``, this interpreter and this grader's code,
    in a folder only this user may open (raises OSError where there is none)."""
    return _private_folder() / f"check-{fingerprint(cwd)[:16]}.sock"


def fingerprint(cwd: str) -> str:
    """What a warm checker's imports and zygotes depend on: the working folder, the
    interpreter, the environment variables of :data:`INFLUENCES`, the grader's source
    files and the installed packages (a folder of site-packages changes when pip installs
    or removes one). The course is not in it: a warm checker reads it anew for each check."""
    digest = hashlib.sha256()
    for part in (cwd, sys.executable, sys.version):
        digest.update(part.encode() + b"\0")
    for name in sorted(os.environ):
        if name.startswith(INFLUENCES):
            digest.update(f"{name}={os.environ[name]}\0".encode())
    for path in _watched_files():
        with contextlib.suppress(OSError):
            info = os.stat(path)
            digest.update(f"{path}\0{info.st_mtime_ns}\0{info.st_size}\0".encode())
    return digest.hexdigest()


def _watched_files() -> list[str]:
    files = [str(p) for p in sorted(_PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts]
    return files + sorted({*site.getsitepackages(), site.getusersitepackages()})


def _private_folder() -> Path:
    """This user's folder for warm checkers' sockets: made with mode 0700, and refused
    (OSError) unless it is a real folder that they own and no one else may open."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    folder = Path(base) / f"pytrees-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(f"{folder} is not a private folder")
    return folder


def _request(arguments: list[str]) -> dict[str, object]:
    """What the warm checker needs to run the check as this process would."""
    environment = dict(os.environ)
    if sys.stdout.isatty() and "COLUMNS" not in environment:
        # rich reads the width from the terminal, which the checker does not have; a
        # terminal that gives no size (0 columns) leaves rich to its default, as here
        size = os.get_terminal_size(sys.stdout.fileno())
        if size.columns > 0 and size.lines > 0:
            environment.update(COLUMNS=str(size.columns), LINES=str(size.lines))
    umask = os.umask(0)
    os.umask(umask)
    return {
        "arguments": arguments,
        "cwd": os.getcwd(),
        "environment": environment,
        "umask": umask,
        "stdout_tty": sys.stdout.isatty(),
        "stderr_tty": sys.stderr.isatty(),
        "encoding": sys.stdout.encoding or "utf-8",
    }


def _ask(address: Path, request: dict[str, object]) -> dict[str, object] | None:
    """The warm checker's answer to ``request``, starting the checker when none listens."""
    connection = _connect(address)
    if connection is None:
        connection = _start(address)
    if connection is None:
        return None
    with connection:
        send(connection, request)
        connection.shutdown(socket.SHUT_WR)
        answer = receive(connection)
    if not isinstance(answer, dict) or not _well_formed(answer):
        return None
    return answer


def _well_formed(answer: dict[str, object]) -> bool:
    return (
        isinstance(answer.get("stdout"), str)
        and isinstance(answer.get("stderr"), str)
        and isinstance(answer.get("code"), int)
    )


def _connect(address: Path) -> socket.socket | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(str(address))
    except (FileNotFoundError, ConnectionRefusedError):
        connection.close()
        return None
    return connection


def _start(address: Path) -> socket.socket | None:
    """Start a warm checker at ``address`` and connect to it, once it listens."""
    checker = _spawn(address)
    deadline = time.monotonic() + STARTING_SECONDS
    while time.monotonic() < deadline:
        connection = _connect(address)
        if connection is not None:
            return connection
        if checker.poll() is not None:  # another checker held the address, or it failed
            return _connect(address)
        time.sleep(0.01)
    return None


def _spawn(address: Path, *options: str) -> subprocess.Popen[bytes]:
    """A new warm checker process for ``address`` (one that finds another holding the
    address ends at once)."""
    return subprocess.Popen(
        [sys.executable, "-m", "autograder.warm_server", str(address), *options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # it outlives this command, and the terminal's Ctrl-C
    )


def send(connection: socket.socket, message: object) -> None:
    """Send ``message`` as one JSON document, its length first."""
    data = json.dumps(message).encode()
    connection.sendall(len(data).to_bytes(8, "big") + data)


def receive(connection: socket.socket) -> object:
    """The JSON document :func:`send` sent (ValueError when there is none, or too large)."""
    length = int.from_bytes(_read(connection, 8), "big")
    if length > MAX_MESSAGE:
        raise ValueError("message too large")
    return json.loads(_read(connection, length))


def _read(connection: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = connection.recv(min(left, 1 << 20))
        if not chunk:
            raise ValueError("the connection ended early")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


if __name__ == "__main__":  # python -m autograder.warm: start the checker, as serve does
    start_checker()
