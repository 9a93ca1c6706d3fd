"""The warm checker: a terminal's ``check`` answered by a process that keeps JAX, pytest and
the zygotes between one learner's checks, printing and exiting exactly as a check in its own
process does."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from test_command_imports import modules_loaded_by

from autograder import warm, warm_server
from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS, load_course
from conftest import run_cli, write_variant

COURSE = load_course(EXERCISES)
FIRST, SECOND = COURSE.notebooks[:2]


@pytest.fixture
def sockets():
    """A folder for this test's warm checkers (short: a socket's path has at most 107
    bytes), whose checkers are stopped at the end."""
    folder = Path(tempfile.mkdtemp(prefix="warm"))
    yield folder
    for lock in folder.glob("*/*.lock"):
        with contextlib.suppress(ValueError, ProcessLookupError):
            os.kill(int(lock.read_text() or "0"), signal.SIGTERM)
    shutil.rmtree(folder, ignore_errors=True)


def environment(tmp_path: Path, sockets: Path, setting: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTREES_PROGRESS": str(tmp_path / "progress.json"),
        "COLUMNS": "120",
        "XDG_RUNTIME_DIR": str(sockets),
        warm.SETTING: setting,
    }


def wrong(notebook, target: Path) -> Path:
    answers = {f.name: f"def {f.name}(*args, **kwargs):\n    return 0" for f in notebook.functions}
    return write_variant(notebook.released_path, target, answers)


def test_a_warm_check_prints_and_exits_as_a_check_in_its_own_process(tmp_path, sockets):
    solved = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    failing = wrong(SECOND, tmp_path / "wrong.ipynb")
    cold = run_cli("check", solved, failing, env=environment(tmp_path, sockets, "0"))
    assert cold.returncode == 1, cold.stdout + cold.stderr
    for _ in ("starting the checker", "asking the running one"):
        warmed = run_cli("check", solved, failing, env=environment(tmp_path, sockets, "1"))
        assert (warmed.stdout, warmed.stderr, warmed.returncode) == (
            cold.stdout,
            cold.stderr,
            cold.returncode,
        )
    assert list(sockets.glob("*/*.sock")), "no warm checker answered"


def checker_pid(sockets: Path) -> int:
    """The process id of the one warm checker in ``sockets``, once it listens."""
    deadline = time.monotonic() + 60
    while not list(sockets.glob("*/*.sock")):
        assert time.monotonic() < deadline, "no warm checker started"
        time.sleep(0.05)
    [lock] = sockets.glob("*/*.lock")
    return int(lock.read_text())


def test_a_checker_started_ahead_answers_the_first_check(tmp_path, sockets):
    env = learners_shell(tmp_path, sockets)
    start_ahead(env)
    pid = checker_pid(sockets)
    solved = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    assert run_cli("check", solved, env=env).returncode == 0
    assert checker_pid(sockets) == pid


def learners_shell(tmp_path: Path, sockets: Path) -> dict[str, str]:
    """A learner's environment at a terminal, without the variables that importing JAX set
    in this process."""
    return {
        name: value
        for name, value in environment(tmp_path, sockets, "1").items()
        if name not in ("TF_CPP_MIN_LOG_LEVEL", "TPU_SKIP_MDS_QUERY")
    }


def start_ahead(env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """``python -m autograder.warm``, as ``./course serve`` runs it."""
    command = [sys.executable, "-m", "autograder.warm"]
    return subprocess.run(
        command, env=env, cwd=REPO_ROOT, timeout=30, capture_output=True, check=True
    )


def children(pid: int) -> list[str]:
    listed = subprocess.run(
        ["ps", "--ppid", str(pid), "-o", "pid="], capture_output=True, text=True
    )
    return listed.stdout.split()


def test_a_checker_started_ahead_starts_the_zygote_of_the_notebook_edited_last(tmp_path, sockets):
    env = learners_shell(tmp_path, sockets)
    solved = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    run_cli("check", solved, env={**env, warm.SETTING: "0"})
    start_ahead(env)
    pid = checker_pid(sockets)
    deadline = time.monotonic() + 60
    while not children(pid):
        assert time.monotonic() < deadline, "the checker started no zygote before a check"
        time.sleep(0.1)


def test_a_checker_started_ahead_before_any_check_starts_the_first_chapters_zygote(
    tmp_path, sockets
):
    start_ahead(learners_shell(tmp_path, sockets))  # no check recorded: the learner begins
    pid = checker_pid(sockets)
    deadline = time.monotonic() + 60
    while not children(pid):
        assert time.monotonic() < deadline, "the checker started no zygote before a check"
        time.sleep(0.1)


def test_a_checker_started_ahead_records_nothing_and_prints_nothing(tmp_path, sockets):
    env = learners_shell(tmp_path, sockets)
    mine = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    run_cli("check", mine, env={**env, warm.SETTING: "0"})
    wrong(FIRST, mine)  # edited last: the checker checks it ahead, and it fails
    started = start_ahead(env)
    assert (started.stdout, started.stderr) == (b"", b"")
    checker_pid(sockets)
    # a check of another file is answered once the checker has done its own
    other = Path(shutil.copy(SOLUTIONS / SECOND.id / SECOND.filename, tmp_path / "other.ipynb"))
    assert run_cli("check", other, env=env).returncode == 0
    states = json.loads((tmp_path / "progress.json").read_text())["functions"]
    assert {f.name: states[f.name] for f in FIRST.functions} == {
        f.name: "passed" for f in FIRST.functions
    }


def test_starting_a_checker_where_one_runs_starts_no_other(tmp_path, sockets):
    env = environment(tmp_path, sockets, "1")
    for _ in range(2):
        start_ahead(env)
        pid = checker_pid(sockets)
    assert len(list(sockets.glob("*/*.lock"))) == 1 and checker_pid(sockets) == pid


@pytest.mark.parametrize("setting", [{warm.SETTING: "0"}, {"CI": "true"}])
def test_no_checker_is_started_ahead_where_no_check_would_ask_it(tmp_path, sockets, setting):
    env = {**environment(tmp_path, sockets, ""), **setting}
    start_ahead(env)
    time.sleep(1)
    assert list(sockets.glob("*/*")) == []


def test_a_warm_checks_usage_error_is_the_commands(tmp_path, sockets):
    cold = run_cli("check", "auxdata", env=environment(tmp_path, sockets, "0"))
    warmed = run_cli("check", "auxdata", env=environment(tmp_path, sockets, "1"))
    assert (warmed.stderr, warmed.returncode) == (cold.stderr, 2)


def test_the_command_of_a_warm_check_imports_neither_jax_nor_pytest_nor_nbformat(
    tmp_path, sockets, monkeypatch
):
    for name, value in environment(tmp_path, sockets, "1").items():
        monkeypatch.setenv(name, value)
    solved = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    loaded = {m.split(".")[0] for m in modules_loaded_by(tmp_path, "check", str(solved))}
    assert list(sockets.glob("*/*.sock")), "no warm checker answered"
    assert loaded & {"jax", "numpy", "nbformat", "pytest", "rich"} == set()


def test_each_warm_check_reads_the_course_anew():
    from autograder.grade import plugin
    from autograder.load import book, course, stubs

    exercise = load_course(EXERCISES).notebooks[0]
    stubs.released_stubs(exercise)
    plugin.course_copy(exercise)
    book.released_book_links()
    plugin._TRUSTED_SETUP[exercise.path] = {}
    warm_server.forget()
    cached = [
        f"{name}.{attribute}"
        for name, module in list(sys.modules.items())
        if name.startswith("autograder.")
        for attribute, value in vars(module).items()
        if getattr(value, "__module__", None) == name
        and hasattr(value, "cache_info")
        and value.cache_info().currsize
    ]
    assert cached == []
    assert plugin._TRUSTED_SETUP == {}
    assert course.load_course.cache_info().currsize == 0


def test_the_warm_checker_runs_only_check():
    request = {
        "arguments": ["grade", "exercises"],
        "cwd": os.getcwd(),
        "environment": {},
        "umask": 0o22,
        "stdout_tty": False,
        "stderr_tty": False,
        "encoding": "utf-8",
    }
    with pytest.raises(ValueError, match="only check"):
        warm_server.run_request(request)


def test_a_socket_folder_others_may_open_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    (tmp_path / f"pytrees-{os.getuid()}").mkdir(mode=0o777)
    os.chmod(tmp_path / f"pytrees-{os.getuid()}", 0o777)
    with pytest.raises(OSError, match="not a private folder"):
        warm.checker_address(os.getcwd())
    assert warm.check_warm(["check", "leaves"]) is None


def test_a_checker_that_ends_without_answering_leaves_the_check_to_the_command(
    sockets, monkeypatch
):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(sockets))
    address = warm.checker_address(os.getcwd())
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(address))
    listener.listen(1)

    def hang_up() -> None:
        connection, _ = listener.accept()
        connection.close()

    thread = threading.Thread(target=hang_up)
    thread.start()
    try:
        assert warm.check_warm(["check", "leaves"]) is None
    finally:
        thread.join(timeout=10)
        listener.close()


@pytest.mark.parametrize(
    ("setting", "terminal", "ci", "expected"),
    [
        ("", True, "", True),
        ("", False, "", False),
        ("", True, "true", False),
        ("0", True, "", False),
        ("1", False, "true", True),
    ],
)
def test_checks_are_warm_where_a_person_waits_at_a_terminal(
    monkeypatch, setting, terminal, ci, expected
):
    monkeypatch.setenv(warm.SETTING, setting)
    monkeypatch.setenv("CI", ci)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return terminal

    monkeypatch.setattr(sys, "stdout", Terminal())
    assert warm.wanted() is expected


def test_a_checker_keeps_only_the_zygote_it_used_last(monkeypatch):
    from autograder.isolate import zygotes

    closed = []

    class Zygote:
        def __init__(self, sandbox, *rest) -> None:
            self.sandbox, self.owner, self.alive = sandbox, os.getpid(), True

        def close(self) -> None:
            closed.append(self.sandbox)

    monkeypatch.setattr(zygotes, "Zygote", Zygote)
    monkeypatch.setattr(zygotes, "_zygotes", {})
    monkeypatch.setattr(zygotes, "_close_at_exit", lambda: None)
    monkeypatch.setattr(zygotes, "_sweep_once", lambda: None)
    sandboxed = zygotes.zygote(True, 1, 1)
    zygotes.zygote(False, 1, 1)
    assert zygotes.zygote(True, 1, 1) is sandboxed
    zygotes.close_all_but(1)
    assert closed == [False]
    assert list(zygotes._zygotes.values()) == [sandboxed]


def test_the_checker_knows_who_calls_it():
    one, other = socket.socketpair(socket.AF_UNIX)
    with one, other:
        assert warm_server._caller_uid(one) == os.getuid()


def filling_classes(notebook, target: Path) -> Path:
    """``notebook`` with each function returning values of 32 classes it names anew at
    each call: the most one message may name, and the notebook's limit in four calls."""
    body = (
        "    global calls\n"
        "    calls = globals().get('calls', 0) + 1\n"
        "    from collections import namedtuple\n"
        "    return [namedtuple(f'Filler{calls}_{i}', 'a')(1) for i in range(32)]"
    )
    answers = {f.name: f"def {f.name}(*args, **kwargs):\n{body}" for f in notebook.functions}
    return write_variant(notebook.released_path, target, answers)


@pytest.mark.slow
def test_a_notebook_naming_many_classes_does_not_fail_the_next_warm_check(tmp_path, sockets):
    course = {notebook.id: notebook for notebook in COURSE.notebooks}
    hostile = filling_classes(course["structure"], tmp_path / "hostile.ipynb")
    victim = Path(
        shutil.copy(SOLUTIONS / "custom_nodes" / "custom_nodes.ipynb", tmp_path / "victim.ipynb")
    )
    cold = run_cli("check", victim, env=environment(tmp_path, sockets, "0"))
    assert cold.returncode == 0, cold.stdout + cold.stderr
    run_cli("check", hostile, env=environment(tmp_path, sockets, "1"))
    warmed = run_cli("check", victim, env=environment(tmp_path, sockets, "1"))
    assert (warmed.stdout, warmed.stderr, warmed.returncode) == (cold.stdout, cold.stderr, 0)


def test_a_warm_check_decodes_with_none_of_the_classes_an_earlier_check_named(monkeypatch):
    from collections import namedtuple

    from autograder.execute import wire

    monkeypatch.setattr(wire, "_classes", wire.Classes())
    for message in range(wire.MAX_NAMES_PER_NOTEBOOK // wire.MAX_NAMES_PER_MESSAGE):
        names = [f"Earlier{message}_{i}" for i in range(wire.MAX_NAMES_PER_MESSAGE)]
        wire.decode(wire.encode([namedtuple(name, "a")(1) for name in names]))
    warm_server.forget()
    assert type(wire.decode(wire.encode(namedtuple("Later", "a")(1)))).__name__ == "Later"


@pytest.mark.slow
def test_a_warm_check_that_starts_a_zygote_prints_what_a_fresh_check_prints(tmp_path, sockets):
    course = {notebook.id: notebook for notebook in COURSE.notebooks}
    solved = Path(shutil.copy(SOLUTIONS / "mapping" / "mapping.ipynb", tmp_path / "mine.ipynb"))
    edited = wrong(course["mapping"], tmp_path / "edited.ipynb")
    cold = run_cli("check", edited, env=environment(tmp_path, sockets, "0"))
    # the solved notebook's check compares arrays: JAX's threads then run in the checker
    run_cli("check", solved, env=environment(tmp_path, sockets, "1"))
    warmed = run_cli("check", edited, env=environment(tmp_path, sockets, "1"))
    assert (warmed.stdout, warmed.stderr, warmed.returncode) == (cold.stdout, cold.stderr, 1)


def test_a_zygote_started_beside_jaxs_threads_warns_of_nothing():
    import warnings

    import jax.numpy as jnp

    from autograder.isolate import zygotes

    jnp.ones(2).block_until_ready()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        zygotes.Zygote(False, 1, 2**32).close()
    assert [str(warning.message) for warning in caught] == []


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.slow
def test_an_interrupted_command_ends_the_check_it_asked_for(tmp_path, sockets):
    env = environment(tmp_path, sockets, "1")
    solved = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    run_cli("check", solved, env=env)
    (lock,) = sockets.glob("*/*.lock")
    checker = int(lock.read_text())
    endless = {
        f.name: f"def {f.name}(*args, **kwargs):\n    while True:\n        pass"
        for f in FIRST.functions
    }
    notebook = write_variant(FIRST.released_path, tmp_path / "endless.ipynb", endless)
    command = subprocess.Popen(
        [sys.executable, "-m", "autograder", "check", str(notebook)],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(3)  # the checker is running the endless functions, 10 s each
    command.send_signal(signal.SIGINT)
    command.wait(timeout=10)
    deadline = time.monotonic() + 5
    while running(checker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running(checker)


@pytest.mark.slow
def test_a_connection_that_sends_no_request_does_not_keep_the_next_check_waiting(tmp_path, sockets):
    env = environment(tmp_path, sockets, "1")
    solved = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    first = run_cli("check", solved, env=env)
    (address,) = sockets.glob("*/*.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.connect(str(address))
        silent.sendall((100).to_bytes(8, "big") + b"{")  # and nothing more
        second = run_cli("check", solved, env=env, timeout=90)
    assert (second.stdout, second.returncode) == (first.stdout, first.returncode)


def zygotes_of(checker: int) -> set[int]:
    """The zygote processes that the warm checker ``checker`` started, and theirs."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            parents[int(entry.name)] = int(
                (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            )
            commands[int(entry.name)] = (entry / "cmdline").read_bytes()
    found, frontier = set(), {checker}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier}
        found |= frontier
    return {pid for pid in found if b"autograder.execute.zygote" in commands.get(pid, b"")}


def zygotes_started_by(checker: int) -> set[int]:
    """The zygotes the warm checker ``checker`` started itself (one process each)."""
    return {pid for pid in zygotes_of(checker) if parent_of(pid) == checker}


def parent_of(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return None


def test_after_a_check_the_checker_starts_the_zygote_of_the_next_chapter(tmp_path, sockets):
    folder = tmp_path / "exercises"
    solved = {}
    for notebook in COURSE.notebooks[:3]:  # where the course keeps them: ID/ID.ipynb
        (folder / notebook.id).mkdir(parents=True)
        source = SOLUTIONS / notebook.id / notebook.filename
        solved[notebook.id] = Path(shutil.copy(source, folder / notebook.id / notebook.filename))
    env = environment(tmp_path, sockets, "1")
    run_cli("check", solved[FIRST.id], env=env)
    checker = int(next(sockets.glob("*/*.lock")).read_text())
    started = zygotes_started_by(checker)  # the first chapter's, and the second's
    second = run_cli("check", solved[SECOND.id], env=env)
    kept = zygotes_started_by(checker)  # the second chapter's, and the third's
    assert second.returncode == 0, second.stdout + second.stderr
    assert len(started) == 2 and len(kept) == 2 and len(started & kept) == 1


def test_an_edited_notebook_is_checked_by_the_zygote_the_checker_kept(tmp_path, sockets):
    mine = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    run_cli("check", mine, env=environment(tmp_path, sockets, "1"))
    checker = int(next(sockets.glob("*/*.lock")).read_text())
    before = zygotes_of(checker)
    wrong(FIRST, mine)  # the learner edits the notebook, at the same path
    edited = run_cli("check", mine, env=environment(tmp_path, sockets, "1"))
    assert "FAIL" in edited.stdout, edited.stdout + edited.stderr
    assert before and zygotes_of(checker) == before


def printed_at_a_terminal_of_no_size(arguments: list[str], env: dict[str, str]) -> str:
    """What ``python -m autograder ARGUMENTS`` prints on a pseudo-terminal that gives no size
    (0 columns, as ``script`` and some editors' terminals report)."""
    import pty
    import subprocess

    leader, follower = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "autograder", *arguments],
        stdout=follower, stderr=follower, cwd=Path(warm.__file__).parent.parent,
        env={k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}, timeout=600,
    )  # fmt: skip
    os.close(follower)
    chunks = []
    with contextlib.suppress(OSError):
        while chunk := os.read(leader, 65536):
            chunks.append(chunk)
    os.close(leader)
    assert done.returncode in (0, 1)
    return b"".join(chunks).decode()


def test_a_warm_check_on_a_terminal_that_gives_no_size_prints_its_feedback(tmp_path, sockets):
    mine = Path(shutil.copy(SOLUTIONS / FIRST.id / FIRST.filename, tmp_path / "mine.ipynb"))
    printed = printed_at_a_terminal_of_no_size(
        ["check", str(mine)], environment(tmp_path, sockets, "1")
    )
    assert list(sockets.glob("*/*.sock")), "no warm checker answered"
    assert "PASS" in printed
