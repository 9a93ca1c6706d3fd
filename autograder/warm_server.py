"""The warm checker: one process that runs one user's ``check`` commands, one at a time,
and keeps between them what does not depend on what is checked: the imported modules
(JAX, pytest, nbformat: about 1.2 s a check) and the zygotes that fork the sandboxed
workers (about 1 s of starting each).

Each check runs as ``python -m autograder check`` would run it in a process of its own:
with the command's working folder, environment, umask and terminal, and with every value
the grader's modules cached dropped first (:func:`forget`): the course, the stubs and the
setup cells are read anew, so the same notebooks give the same report warm or cold. The
learner's code runs only in sandboxed workers, as in every check: this process is the
grading process the command would have been.

It answers only its own user (its socket is in a folder only they may open and, where the
system tells, each caller's user id is checked) and only ``check``. It ends after
:data:`IDLE_SECONDS` without a request, or once its address is no longer the one a command
would ask (the grader's code, the interpreter or the installed packages changed).
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import select
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from autograder import warm

IDLE_SECONDS = 15 * 60
"""How long the checker waits for the next check before it ends."""
POLL_SECONDS = 5.0
"""How often, while idle, it looks whether it is still wanted."""
REQUEST_SECONDS = 10.0
"""How long it waits for a request on a connection: a command sends its own at once, and
a connection that sends none would otherwise keep every later check waiting."""
KEPT_ZYGOTES = 2
"""Zygotes kept between checks, the last used or started first: each holds JAX (about
200 MB), and a learner checks one notebook many times, then the next, whose zygote a check
starts (:func:`autograder.grade.check.start_next_chapters_zygote`)."""
CACHED_STATE = (
    ("autograder.grade.plugin", "_TRUSTED_SETUP"),
    ("autograder.grade.reference_times", "_measured"),
)
"""The grader's module-level caches that are dicts, not functions with ``cache_clear``."""


def serve(address: Path, ahead: bool = False) -> None:
    """Answer checks at ``address`` until idle or stale; return at once if another
    checker already holds it. Its process id is in ``ADDRESS.lock`` while it runs.
    ``ahead``: started before any check asked (:func:`autograder.warm.start_checker`), it
    first checks the notebook edited last (:func:`_check_ahead`)."""
    lock = os.open(f"{address}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())  # which process to stop, for a person
    home = os.getcwd()
    with contextlib.suppress(FileNotFoundError):
        address.unlink()  # left by a checker that was killed
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(address))
        listener.listen(8)
        if ahead:  # a command that connects meanwhile waits its turn
            _prepare_first_check()
        listener.settimeout(POLL_SECONDS)
        last = time.monotonic()
        while time.monotonic() - last < IDLE_SECONDS and warm.checker_address(home) == address:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(REQUEST_SECONDS)
                if _caller_uid(connection) in (None, os.getuid()):
                    _answer(connection)
            os.chdir(home)
            last = time.monotonic()
    finally:
        with contextlib.suppress(FileNotFoundError):
            address.unlink()
        listener.close()


def _prepare_first_check() -> None:
    """Check ahead (:func:`_check_ahead`) the notebook edited last among those ``check``
    recorded, or where it recorded none, the first chapter's (the learner is about to
    begin): its zygote starts even while nothing in it is written. Then import what a check
    imports, where the check ahead did not (``exercises/`` is missing, say).

    Only a checker started ahead does this: one that a check started is better off
    taking the request at once, whose zygote then imports JAX on the second core while
    this process imports it on the first."""
    from autograder.learner import progress
    from autograder.load.course import learner_course_folder, load_course

    files = [Path(source) for source in set(progress.sources().values())]
    edited = [file for file in files if file.is_file()]
    if edited:
        _check_ahead(str(max(edited, key=lambda file: file.stat().st_mtime)))
    else:
        _check_ahead(load_course(learner_course_folder()).notebooks[0].id)
    _import_what_a_check_imports()


def _import_what_a_check_imports() -> None:
    """Import the modules a check needs (JAX and pytest among them), which a check would
    otherwise import on its way: the first check then takes no longer than the next.

    The environment is left as it was: importing JAX sets ``TF_CPP_MIN_LOG_LEVEL``, one
    of the variables the checker's address depends on (a check's own imports run within
    the caller's environment, which is put back after it)."""
    environment = dict(os.environ)
    try:
        import jax.numpy  # the test cells' setup imports it in this process

        from autograder import cli
        from autograder.grade import check, submission

        del jax, cli, check, submission
    finally:
        os.environ.clear()
        os.environ.update(environment)


def _check_ahead(notebook: str) -> None:
    """Check ``notebook`` (a file or a chapter) unasked, its output and its record dropped:
    the learner's first check, most often of the notebook they edited last, then finds its
    zygote started, its compiled code stored and JAX's backend up (1.7 s of a first check
    where the checker had only imported, 0.25 s after). The learner's code runs as in any
    check of theirs: in a sandboxed worker."""
    umask = os.umask(0o077)
    os.umask(umask)
    with tempfile.TemporaryDirectory(prefix="pytrees-ahead-") as folder:
        request = {
            "cwd": os.getcwd(),
            "environment": {**os.environ, "PYTREES_PROGRESS": str(Path(folder) / "progress")},
            "umask": umask,
        }
        with (
            _as_requested(request),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            _check(["check", notebook])
    _keep_last_zygotes()


def _caller_uid(connection: socket.socket) -> int | None:
    """The user id of the process at the other end (None where the system does not say)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return struct.unpack("3i", credentials)[1]


def _answer(connection: socket.socket) -> None:
    try:
        request = warm.receive(connection)
    except (ValueError, OSError):
        return  # a malformed or missing request gets no answer: its command checks by itself
    connection.settimeout(None)
    answered = threading.Event()
    threading.Thread(target=_end_if_left, args=(connection, answered), daemon=True).start()
    try:
        answer = run_request(request)
    except (ValueError, TypeError, KeyError, OSError):
        return
    finally:
        answered.set()
    with contextlib.suppress(OSError):
        warm.send(connection, answer)


def _end_if_left(connection: socket.socket, answered: threading.Event) -> None:
    """End this checker if its caller goes (Ctrl-C, a closed terminal) before the answer.

    A check in the command's own process stops with it; here it would go on, and the
    person's next check would wait for it to end. Ending the process stops it as a
    killed command stops: its zygotes see their control socket close and end, and the
    next command starts a new checker where this one's socket is left.
    """
    watch = select.poll()
    watch.register(connection, select.POLLHUP)
    while not answered.is_set():
        if watch.poll(500) and not answered.is_set():
            os.kill(os.getpid(), signal.SIGKILL)


def run_request(request: object) -> dict[str, object]:
    """Run the check ``request`` describes (see :func:`autograder.warm._request`)
    and say what it printed and its exit code. Raises ValueError for a request that is
    not a check."""
    if not isinstance(request, dict):
        raise ValueError("not a request")
    arguments = request["arguments"]
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        raise ValueError("arguments must be strings")
    from autograder import cli

    if cli.command_named(arguments) != "check":
        raise ValueError("only check is served")
    forget()
    out = _Terminal(bool(request["stdout_tty"]), str(request["encoding"]))
    err = _Terminal(bool(request["stderr_tty"]), str(request["encoding"]))
    with _as_requested(request), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = _check(arguments)
    _keep_last_zygotes()
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}


def forget() -> None:
    """Drop every value the grader's modules cached, keeping the modules and the zygotes."""
    for name, module in list(sys.modules.items()):
        if name != "autograder" and not name.startswith("autograder."):
            continue
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) == name and hasattr(value, "cache_clear"):
                value.cache_clear()
    for module_name, attribute in CACHED_STATE:
        module = sys.modules.get(module_name)
        if module is not None:
            getattr(module, attribute).clear()
    wire = sys.modules.get("autograder.execute.wire")
    if wire is not None:  # one notebook's names must not use up the next check's
        wire.forget_classes()


class _Terminal(io.StringIO):
    """What a check prints, kept to send, with the caller's terminal's traits (rich reads
    whether it is a terminal to choose colours; the width comes in ``COLUMNS``)."""

    def __init__(self, tty: bool, encoding: str) -> None:
        super().__init__()
        self._tty = tty
        self._encoding = encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


@contextlib.contextmanager
def _as_requested(request: dict[str, object]) -> Iterator[None]:
    """Within the block: the caller's working folder, environment and umask."""
    environment = request["environment"]
    if not isinstance(environment, dict):
        raise ValueError("the environment must be a mapping")
    saved_environment, saved_umask = dict(os.environ), os.umask(int(request["umask"]))  # type: ignore[arg-type]
    try:
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in environment.items()})
        os.environ[warm.SETTING] = "0"  # the check runs here, not in another checker
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved_environment)
        os.umask(saved_umask)


def _check(arguments: list[str]) -> int:
    """``python -m autograder ARGUMENTS``'s exit code, its output printed as that command
    prints it (an error the command would not catch, as Python's traceback)."""
    from autograder import cli

    try:
        return cli.main(arguments, lives_on=True)
    except SystemExit as exc:  # argparse's usage errors and --help
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except Exception:  # noqa: BLE001 - reported to the caller as the command would report it
        traceback.print_exc()
        return 1


def _keep_last_zygotes() -> None:
    from autograder.isolate import zygotes

    zygotes.close_all_but(KEPT_ZYGOTES)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), ahead=sys.argv[2:] == ["--ahead"])
