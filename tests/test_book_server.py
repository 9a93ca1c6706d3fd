"""The book's server (``python -m booktools.serve``) answers only to this machine's names
and lists no folder."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from booktools.serve import make_server


@pytest.fixture
def port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The book's server on a free port, over a site with a page, a folder with an
    index.html and a folder without one."""
    monkeypatch.setenv("PYTREES_PROGRESS", str(tmp_path / "progress.json"))
    site = tmp_path / "site"
    (site / "book").mkdir(parents=True)
    (site / "book" / "index.html").write_text("<h1>The book</h1>")
    (site / "_static").mkdir()
    (site / "_static" / "quiz.js").write_text("// a script")
    (site / "page.html").write_text("<h1>A page</h1>")
    server = make_server(site, port=0, log_requests=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def _request(port: int, path: str, host: str | None, method: str = "GET") -> tuple[int, str]:
    """The status and body of a request sent to 127.0.0.1:``port`` with the Host ``host``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", "[::1]", "LocalHost"])
def test_the_server_answers_this_machines_names_with_its_port(port, name):
    assert _request(port, "/page.html", f"{name}:{port}") == (200, "<h1>A page</h1>")


@pytest.mark.parametrize("path", ["/page.html", "/progress.json", "/book/"])
@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",  # a rebound name: another site's page reading this one
        "evil.example",
        "localhost.evil.example:{port}",
        "localhost:1",  # this machine, but not this server's port
        "localhost",
        "",
    ],
)
def test_the_server_refuses_a_request_addressed_to_another_host(port, path, host):
    status, body = _request(port, path, host.format(port=port))
    assert status == 421
    assert "A page" not in body and "functions" not in body and "The book" not in body


def test_the_server_refuses_a_request_without_a_host(port):
    assert _request(port, "/page.html", None)[0] == 421


def test_the_server_refuses_a_head_request_addressed_to_another_host(port):
    assert _request(port, "/page.html", f"evil.example:{port}", method="HEAD")[0] == 421


def test_a_folder_without_an_index_is_not_found_rather_than_listed(port):
    status, body = _request(port, "/_static/", f"localhost:{port}")
    assert status == 404
    assert "quiz.js" not in body


def test_the_sites_root_without_an_index_is_not_listed(port):
    status, body = _request(port, "/", f"localhost:{port}")
    assert status == 404
    assert "page.html" not in body


def test_a_folder_with_an_index_serves_its_index(port):
    assert _request(port, "/book/", f"localhost:{port}") == (200, "<h1>The book</h1>")
