"""The learner's JupyterLab, started as ``./course serve`` starts it (``python -m
booktools.lab``), lets in only the holder of its token, and the token reaches only the
learner: the address printed for the book, never a command line or a file others can read.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from autograder.load.course import REPO_ROOT
from booktools.lab import new_token

pytestmark = pytest.mark.slow  # JupyterLab takes its time to start

FOREIGN_ORIGIN = "http://localhost:9999"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Lab:
    port: int
    book_port: int
    token: str
    printed: list[str]  # what it printed before JupyterLab's own log
    runtime: Path  # JupyterLab's runtime folder

    @property
    def book_origin(self) -> str:
        return f"http://localhost:{self.book_port}"

    def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: str = ""
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=body or None, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def authorised(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    folder = tmp_path_factory.mktemp("lab")
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o755)  # as a folder made by hand, or by another tool, may be
    runtime.chmod(0o755)
    port, book_port = _free_port(), _free_port()
    environment = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)}
    environment.pop("JUPYTER_TOKEN", None)
    log = (folder / "lab.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "booktools.lab", "--port", str(port),
         "--book-port", str(book_port), "--root", str(REPO_ROOT)],
        env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while not (runtime.exists() and list(runtime.glob("jpserver-*.json"))):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("JupyterLab did not start:\n" + (folder / "lab.log").read_text())
            time.sleep(0.5)
        printed = (folder / "lab.log").read_text().splitlines()[:2]
        token = parse_qs(urlsplit(printed[0].split()[-1]).fragment)["token"][0]
        yield Lab(port, book_port, token, printed, runtime)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


# The token and where it goes ---------------------------------------------------------


def test_the_book_address_carries_the_token_in_its_fragment_only(lab):
    book = urlsplit(lab.printed[0].split()[-1])
    assert lab.printed[0].startswith("The book:")
    assert (book.hostname, book.port, book.path) == ("localhost", lab.book_port, "/book/intro.html")
    assert parse_qs(book.query) == {"jupyter": [f"http://localhost:{lab.port}"]}
    assert parse_qs(book.fragment) == {"token": [lab.token]}


def test_the_exercises_address_logs_the_learner_in_to_jupyterlab(lab):
    exercises = urlsplit(lab.printed[1].split()[-1])
    assert (exercises.port, exercises.path) == (lab.port, "/lab/tree/exercises")
    assert parse_qs(exercises.query) == {"token": [lab.token]}


def test_a_token_is_random_and_fresh_each_time():
    tokens = {new_token() for _ in range(20)}
    assert len(tokens) == 20 and all(len(token) >= 40 for token in tokens)


def test_the_token_is_on_no_command_line(lab):
    seen = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if lab.token.encode() in cmdline.read_bytes():
                seen.append(cmdline.parent.name)
        except OSError:
            continue  # the process ended
    assert seen == []


def _others_can_read(path: Path, runtime: Path) -> bool:
    """Whether an account other than the owner (nor in its group) can read ``path``,
    a file in ``runtime``: through every folder down from ``runtime``, then the file."""
    folders = [runtime, *(f for f in path.parents if runtime in f.parents)]
    return all(f.stat().st_mode & 0o001 for f in folders) and bool(path.stat().st_mode & 0o004)


def test_only_the_learner_can_read_the_files_that_hold_the_token(lab):
    holding = [p for p in lab.runtime.rglob("*") if p.is_file() and lab.token in p.read_text()]
    assert holding, "JupyterLab's server file was expected to hold the token"
    assert [p.name for p in holding if _others_can_read(p, lab.runtime)] == []
    assert lab.runtime.stat().st_mode & 0o077 == 0


# No token, no entry ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/status"),
        ("GET", "/api/contents/README.md"),
        ("PUT", "/api/contents/planted.txt"),
        ("POST", "/api/kernels"),
        ("POST", "/api/sessions"),
        ("POST", "/api/terminals"),
    ],
)
def test_a_client_without_the_token_is_refused(lab, method, path):
    body = json.dumps({"type": "file", "format": "text", "content": "x"}) if method == "PUT" else ""
    status, _, _ = lab.request(method, path, body=body)
    assert status == 403
    assert not (REPO_ROOT / "planted.txt").exists()


@pytest.mark.parametrize("token", ["", "wrong", "token"])
def test_a_client_with_a_wrong_token_is_refused(lab, token):
    assert lab.request("GET", "/api/status", {"Authorization": f"token {token}"})[0] == 403


def test_the_book_origin_with_the_token_is_let_in_without_an_xsrf_cookie(lab):
    status, headers, _ = lab.request(
        "GET", "/api/kernels", {**lab.authorised(), "Origin": lab.book_origin}
    )
    assert status == 200
    assert headers.get("Access-Control-Allow-Origin") == lab.book_origin


@pytest.fixture(scope="module")
def kernel(lab: Lab) -> Iterator[str]:
    """A kernel started by the token's holder."""
    status, _, body = lab.request("POST", "/api/kernels", lab.authorised(), body="{}")
    assert status == 201
    kernel_id = json.loads(body)["id"]
    yield kernel_id
    lab.request("DELETE", f"/api/kernels/{kernel_id}", lab.authorised())


@pytest.fixture(scope="module")
def terminal(lab: Lab) -> Iterator[str]:
    """A terminal started by the token's holder."""
    status, _, body = lab.request("POST", "/api/terminals", lab.authorised())
    assert status == 200
    name = json.loads(body)["name"]
    yield name
    lab.request("DELETE", f"/api/terminals/{name}", lab.authorised())


def _websocket_status(url: str, headers: dict[str, str] | None = None) -> int:
    """101 if the websocket at ``url`` opens, else the status it was refused with."""

    async def connect() -> int:
        try:
            connection = await websocket_connect(HTTPRequest(url, headers=headers or {}))
        except HTTPClientError as refused:
            return refused.code
        connection.close()
        return 101

    return asyncio.run(connect())


def _kernel_socket(lab: Lab, kernel: str, query: str = "") -> str:
    return f"ws://127.0.0.1:{lab.port}/api/kernels/{kernel}/channels{query}"


def _terminal_socket(lab: Lab, terminal: str, query: str = "") -> str:
    return f"ws://127.0.0.1:{lab.port}/terminals/websocket/{terminal}{query}"


def test_a_kernel_websocket_without_the_token_is_refused(lab, kernel):
    assert _websocket_status(_kernel_socket(lab, kernel)) == 403
    assert _websocket_status(_kernel_socket(lab, kernel, f"?token={lab.token}")) == 101


def test_a_terminal_websocket_without_the_token_is_refused(lab, terminal):
    assert _websocket_status(_terminal_socket(lab, terminal)) == 403
    assert _websocket_status(_terminal_socket(lab, terminal, f"?token={lab.token}")) == 101


# Another site, with the learner's login cookie ---------------------------------------------


@pytest.fixture(scope="module")
def login(lab: Lab) -> dict[str, str]:
    """The cookies a browser holds once the learner opened the exercises' address."""
    connection = http.client.HTTPConnection("127.0.0.1", lab.port, timeout=30)
    connection.request("GET", f"/lab?token={lab.token}")
    response = connection.getresponse()
    response.read()
    assert response.status == 200
    cookies = [value.split(";")[0] for name, value in response.getheaders() if name == "Set-Cookie"]
    connection.close()
    jar = dict(cookie.split("=", 1) for cookie in cookies)
    assert any(name.startswith("username-") for name in jar), jar
    return jar


def _cookie(jar: dict[str, str]) -> dict[str, str]:
    return {"Cookie": "; ".join(f"{name}={value}" for name, value in jar.items())}


def test_the_login_cookie_alone_lets_the_learner_read(lab, login):
    assert lab.request("GET", "/api/status", _cookie(login))[0] == 200


@pytest.mark.parametrize("origin", [FOREIGN_ORIGIN, "null", "http://evil.example"])
def test_another_origin_is_refused_even_with_the_login_cookie(lab, login, origin):
    headers = {**_cookie(login), "Origin": origin, "X-XSRFToken": login.get("_xsrf", "")}
    status, response_headers, _ = lab.request("POST", "/api/kernels", headers, body="{}")
    assert status in (403, 404)
    assert "Access-Control-Allow-Origin" not in response_headers


def test_a_post_without_the_xsrf_token_is_refused_even_from_the_book(lab, login):
    headers = {**_cookie(login), "Origin": lab.book_origin}
    assert lab.request("POST", "/api/kernels", headers, body="{}")[0] == 403


def test_a_kernel_websocket_from_another_origin_is_refused_with_the_login_cookie(
    lab, login, kernel
):
    headers = {**_cookie(login), "Origin": FOREIGN_ORIGIN}
    assert _websocket_status(_kernel_socket(lab, kernel), headers) == 403


# No instructor tools -------------------------------------------------------------------------


NBGRADER_PAGES = ("/formgrader", "/formgraders", "/assignments", "/nbgrader_version")


@pytest.mark.parametrize("path", NBGRADER_PAGES)
def test_nbgrader_serves_nothing_in_the_learners_lab(lab, path):
    assert lab.request("GET", path, lab.authorised())[0] == 404


def _page_config(lab: Lab) -> dict:
    status, _, body = lab.request("GET", "/lab", lab.authorised())
    assert status == 200
    found = re.search(rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                      body, flags=re.S)  # fmt: skip
    assert found, "the lab page has no page config"
    return json.loads(found.group(1))


def test_the_learners_lab_page_disables_nbgraders_plugins(lab):
    assert "@jupyter/nbgrader" in _page_config(lab)["disabledExtensions"]


def test_the_learners_lab_asks_nothing_about_jupyters_news(lab):
    assert "@jupyterlab/apputils-extension:announcements" in _page_config(lab)["disabledExtensions"]
