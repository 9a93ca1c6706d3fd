"""Serve the built book on this machine, with the learner's exercise progress.

``./course serve`` runs ``python -m booktools.serve``. Every path is a file of the
static site in ``_build/html`` but one: ``/progress.json`` answers with what the
learner's own ``check`` runs recorded (:mod:`autograder.learner.progress`), read afresh on
every request, so the progress page shows the same as ``python -m autograder status``.

It answers only requests addressed to this machine by name (a ``Host`` of
``localhost``, ``127.0.0.1`` or ``[::1]`` with its port): a page of another site whose
name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name, and is
refused, so it cannot read the learner's progress. It lists no folders.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from autograder.learner import progress
from autograder.load.course import REPO_ROOT
from booktools.progress_page import PROGRESS_FILE

PROGRESS_PATH = "/" + PROGRESS_FILE
# The names this machine answers to; the Host header must be one of them with the port.
LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")


class BookServer(ThreadingHTTPServer):
    """A threaded HTTP server that may keep quiet about each request."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: Any, log_requests: bool = True) -> None:
        super().__init__(address, handler)
        self.log_requests = log_requests


class BookHandler(SimpleHTTPRequestHandler):
    """The site's files, and the learner's progress at ``/progress.json``."""

    server: BookServer

    def do_GET(self) -> None:
        if not self._addressed_here():
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "This server answers only to localhost")
        elif urlsplit(self.path).path == PROGRESS_PATH:
            self._send_progress()
        else:
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self._addressed_here():
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "This server answers only to localhost")
        else:
            super().do_HEAD()

    def _addressed_here(self) -> bool:
        """Whether the request's Host is this machine by name, with this server's port."""
        host = (self.headers.get("Host") or "").strip().lower()
        port = self.server.server_address[1]
        allowed = {f"{name}:{port}" for name in LOCAL_NAMES}
        if port == 80:  # the port a browser leaves out
            allowed.update(LOCAL_NAMES)
        return host in allowed

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        """No listings: a folder without an index.html is not found."""
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")
        return None

    def _send_progress(self) -> None:
        body = json.dumps({"functions": progress.load()}).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log_requests:
            super().log_message(format, *args)


def make_server(
    directory: Path, port: int = 8000, host: str = "127.0.0.1", log_requests: bool = True
) -> BookServer:
    """A server for ``directory`` on ``host:port`` (port 0 picks a free one); not started."""
    return BookServer(
        (host, port), partial(BookHandler, directory=str(directory)), log_requests=log_requests
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m booktools.serve", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--bind", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--directory", type=Path, default=REPO_ROOT / "_build" / "html")
    args = parser.parse_args(argv)
    try:
        server = make_server(args.directory, args.port, args.bind)
    except OSError as exc:
        print(f"cannot serve the book on port {args.port}: {exc.strerror} (set BOOK_PORT)")
        return 1
    # Ctrl-C is how ./course serve stops.
    with server, contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
