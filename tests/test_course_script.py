"""``./course serve`` starts and stops cleanly: a taken port is one line, no server outlives it."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.load.course import REPO_ROOT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.mark.parametrize("variable", ["BOOK_PORT", "LAB_PORT"])
def test_serve_with_a_port_taken_says_so_in_one_line_naming_the_variable(taken_port, variable):
    environment = {**os.environ, "BOOK_PORT": str(free_port()), "LAB_PORT": str(free_port())}
    environment[variable] = str(taken_port)
    done = subprocess.run(
        ["bash", "course", "serve"], cwd=REPO_ROOT, env=environment, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1
    said = [line for line in done.stderr.splitlines() if f"Port {taken_port}" in line]
    assert len(said) == 1 and variable in said[0]
    assert "Traceback" not in done.stderr + done.stdout


def test_serve_with_both_ports_taken_names_both_in_one_line(tmp_path):
    with socket.socket() as book, socket.socket() as lab:
        for holder in (book, lab):
            holder.bind(("127.0.0.1", 0))
            holder.listen()
        ports = {"BOOK_PORT": book.getsockname()[1], "LAB_PORT": lab.getsockname()[1]}
        environment = {**os.environ, **{name: str(port) for name, port in ports.items()}}
        done = subprocess.run(
            ["bash", "course", "serve"], cwd=REPO_ROOT, env=environment, capture_output=True,
            text=True, timeout=600,
        )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert all(f"{port} ({name})" in line for name, port in ports.items()), line
    suggested = dict(re.findall(r"(BOOK_PORT|LAB_PORT)=(\d+)", line))
    assert set(suggested) == set(ports) and not set(suggested.values()) & {
        str(port) for port in ports.values()
    }


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return condition()


@pytest.mark.slow
def test_jupyterlab_stops_when_the_book_server_ends_for_any_reason(built, set_up_venv):
    book, lab = free_port(), free_port()
    environment = {
        **os.environ, "BOOK_PORT": str(book), "LAB_PORT": str(lab), "VENV": str(set_up_venv),
        "SERVE_LOG": str(set_up_venv / "serve.log"),
    }  # fmt: skip
    serving = subprocess.Popen(
        ["bash", "course", "serve"], cwd=REPO_ROOT, env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert wait_until(lambda: answers(book) and answers(lab), 600), "serve did not start"
        server = subprocess.run(
            ["pgrep", "-f", f"booktools.serve --port {book}"], capture_output=True, text=True
        ).stdout.split()
        assert server, "the book server's process was not found"
        os.kill(int(server[0]), signal.SIGKILL)  # not Ctrl-C
        serving.wait(timeout=60)
        assert wait_until(lambda: not answers(lab), 30), "JupyterLab kept running"
        assert "unbound variable" not in serving.stdout.read()
    finally:
        if serving.poll() is None:
            os.killpg(serving.pid, signal.SIGKILL)


def port_just_closed() -> int:
    """A port whose server closed a connection first and stopped: only TIME-WAIT is left."""
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = server.accept()
        accepted.close()  # the server's side closes first, as an HTTP server does
        client.close()
    return port


@pytest.mark.slow
def test_serve_starts_on_a_port_a_stopped_server_just_left(built, set_up_venv):
    book = port_just_closed()
    environment = {
        **os.environ, "BOOK_PORT": str(book), "LAB_PORT": str(free_port()),
        "VENV": str(set_up_venv), "SERVE_LOG": str(set_up_venv / "serve.log"),
    }  # fmt: skip
    serving = subprocess.Popen(
        ["bash", "course", "serve"], cwd=REPO_ROOT, env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert wait_until(lambda: answers(book) or serving.poll() is not None, 600)
        assert serving.poll() is None, serving.stdout.read()
    finally:
        os.killpg(serving.pid, signal.SIGTERM)
        serving.wait(timeout=60)


@pytest.fixture
def set_up_venv(tmp_path: Path) -> Path:
    """A VENV for ./course that is set up already and whose book build does nothing:
    its python is this test run's, so serve starts at once on the book built before
    (and never rebuilds ``_build/`` while other tests of the run read it)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    scripts = {"python": f'exec "{sys.executable}" "$@"', "jupyter-book": "exit 0"}
    for name, body in scripts.items():
        script = venv / "bin" / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
    (venv / ".installed").touch()
    return venv


def serve_environment(venv: Path, book: int, lab: int, **variables: str) -> dict[str, str]:
    """The environment of ``./course serve`` on ports ``book`` and ``lab`` with the set-up
    ``venv``, its log in ``venv/serve.log``."""
    return {
        **os.environ, "BOOK_PORT": str(book), "LAB_PORT": str(lab), "VENV": str(venv),
        "SERVE_LOG": str(venv / "serve.log"), **variables,
    }  # fmt: skip


def start_serve(
    venv: Path, book: int, lab: int, printed: Path, **variables: str
) -> subprocess.Popen[bytes]:
    """``./course serve`` on ports ``book`` and ``lab`` with the set-up ``venv``, in a
    session of its own, printing into the file ``printed``; its log is ``venv/serve.log``."""
    environment = serve_environment(venv, book, lab, **variables)
    with printed.open("w") as output:
        return subprocess.Popen(
            ["bash", "course", "serve"], cwd=REPO_ROOT, env=environment, stdout=output,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def start_kernel(lab_port: int, token: str) -> None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{lab_port}/api/kernels",
        data=b"{}",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 201


def processes_naming(text: str) -> list[int]:
    found = subprocess.run(["pgrep", "-f", "--", text], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


@pytest.mark.slow
def test_sigterm_stops_serve_its_servers_and_kernels_within_seconds(set_up_venv, tmp_path):
    book, lab = free_port(), free_port()
    runtime = tmp_path / "runtime"
    log = tmp_path / "printed.txt"
    serving = start_serve(set_up_venv, book, lab, log, JUPYTER_RUNTIME_DIR=str(runtime))
    try:
        assert wait_until(lambda: "The exercises:" in log.read_text(), 300), log.read_text()
        token = re.search(r"exercises\?token=(\S+)", log.read_text()).group(1)
        start_kernel(lab, token)
        assert processes_naming(str(runtime)), "the kernel's process was not found"
        os.kill(serving.pid, signal.SIGTERM)  # only the script, as `kill PID` does
        serving.wait(timeout=10)
        assert not answers(book) and not answers(lab)
        assert wait_until(lambda: not processes_naming(str(runtime)), 5), "a kernel kept running"
    finally:
        if serving.poll() is None:
            os.killpg(serving.pid, signal.SIGKILL)
        # JupyterLab runs in a process group of its own, and restarts a kernel that dies.
        for pid in processes_naming(f"--port={lab} ") + processes_naming(str(runtime)):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_serve_ends_with_the_two_addresses_once_both_servers_answer(set_up_venv, tmp_path):
    book, lab = free_port(), free_port()
    log, printed = set_up_venv / "serve.log", tmp_path / "printed.txt"
    serving = start_serve(set_up_venv, book, lab, printed)
    try:
        assert wait_until(lambda: "The exercises:" in printed.read_text(), 300), log.read_text()
        answered = answers(book) and answers(lab)
        time.sleep(5)  # JupyterLab goes on logging once it answers
        lines = printed.read_text().splitlines()
        assert answered
        assert lines[-2].startswith("The book:") and lines[-1].startswith("The exercises:")
        assert len(lines) == 4, lines  # the build's line, the servers' line, the addresses
        assert log.name in lines[1] and "Jupyter Server" in log.read_text()
        assert log.stat().st_mode & 0o077 == 0  # JupyterLab logs its token there
    finally:
        os.killpg(serving.pid, signal.SIGTERM)
        serving.wait(timeout=60)


FAILING_BUILD = """#!/bin/sh
echo "reading sources... [ 50%] book/leaves"
echo "[IPKernelApp] WARNING | Kernel is running over TCP without encryption."
echo "/book/leaves.md:12: WARNING: undefined label: 'nowhere'"
for line in 1 2 3 4 5 6 7 8 9 10; do echo "the build's last words"; done
exit 1
"""


def test_serve_shows_the_builds_progress_and_warnings_but_not_its_noise(set_up_venv):
    (set_up_venv / "bin" / "jupyter-book").write_text(FAILING_BUILD)
    environment = serve_environment(set_up_venv, free_port(), free_port())
    done = subprocess.run(
        ["bash", "course", "serve"], cwd=REPO_ROOT, env=environment, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1
    assert "  [ 50%] book/leaves" in done.stdout
    assert "WARNING: undefined label" in done.stdout
    assert "Kernel is running over TCP" not in done.stdout + done.stderr
    assert "Kernel is running over TCP" in (set_up_venv / "serve.log").read_text()
    assert done.stderr.splitlines()[-1].startswith("The book did not build")
