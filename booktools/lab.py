"""Start the learner's JupyterLab for ``./course serve``, with a fresh token, and say where.

``./course serve`` runs ``python -m booktools.lab``. It makes a random token, prints the
book's address with the token in its fragment (``#token=...``: a browser never sends a
fragment to the book's server, so the token is not in any request or log there) and the
exercises' address, then replaces itself with ``jupyter lab``. The token reaches
JupyterLab through the ``JUPYTER_TOKEN`` environment variable, never through the command
line, which every local account can read with ``ps``; a process's environment is
readable only by its own user.

It leaves out nbgrader's instructor tools (:mod:`booktools.instructor_tools`), and
JupyterLab's question about fetching Jupyter's news.

JupyterLab keeps its XSRF checks. The book's pages send the token in an
``Authorization`` header (and in the kernel websocket's address), which jupyter_server
accepts without an XSRF cookie; any other site's requests are refused by its origin
check, and requests without the token by its login check.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
from pathlib import Path

from jupyter_core.paths import jupyter_runtime_dir

from booktools import instructor_tools

# The port the book's pages assume when the address names no other (book/_static/live-code.js).
DEFAULT_LAB_PORT = 8888
# JupyterLab's plugin that asks, on a first start, whether to fetch Jupyter's news, and
# then checks for a newer JupyterLab: a question a learner opening an exercise need not answer.
ANNOUNCEMENTS = "@jupyterlab/apputils-extension:announcements"


def new_token() -> str:
    """A fresh random token: 256 bits, URL-safe."""
    return secrets.token_urlsafe(32)


def lab_arguments(lab_port: int, book_port: int, root: Path) -> list[str]:
    """``jupyter lab``'s arguments: on 127.0.0.1 only, open to the book's origin.

    No token is among them (see the module's docstring).
    """
    arguments = [
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={lab_port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        # The book's pages (another port, so another origin) may call the API with the token.
        rf"--ServerApp.allow_origin_pat=^https?://(localhost|127\.0\.0\.1):{book_port}$",
    ]
    # Containers and CI machines often run as root, which JupyterLab refuses unless told.
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        arguments.append("--allow-root")
    return arguments


def make_runtime_folder_private() -> Path:
    """JupyterLab's runtime folder, made the learner's alone (mode 700), and returned.

    JupyterLab writes the token into files there: its server file privately (mode 600),
    but also ``jpserver-<pid>-open.html`` (the page that would open a logged-in browser)
    readable by all, and ``ServerApp.no_browser_open_file`` cannot be set from the outside.
    jupyter_core creates the folder with mode 700 but leaves an existing folder as it is.
    """
    folder = Path(jupyter_runtime_dir())
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    return folder


def book_address(book_port: int, lab_port: int, token: str) -> str:
    """The book's first page, pointed at JupyterLab, with the token in the fragment."""
    address = f"http://localhost:{book_port}/book/intro.html"
    if lab_port != DEFAULT_LAB_PORT:
        address += f"?jupyter=http://localhost:{lab_port}"
    return f"{address}#token={token}"


def exercises_address(lab_port: int, token: str) -> str:
    """JupyterLab's view of the exercises; JupyterLab logs the learner in from ``?token=``."""
    return f"http://localhost:{lab_port}/lab/tree/exercises?token={token}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m booktools.lab", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--port", type=int, default=DEFAULT_LAB_PORT, help="JupyterLab's port")
    parser.add_argument("--book-port", type=int, default=8000, help="the book server's port")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="JupyterLab's root folder")
    args = parser.parse_args(argv)
    jupyter = shutil.which("jupyter", path=str(Path(sys.executable).parent))
    if jupyter is None:
        print("jupyter is not installed next to this Python (run ./course setup)", file=sys.stderr)
        return 2
    try:
        runtime = make_runtime_folder_private()
        config = instructor_tools.write_lab_config(runtime / "learner-config", (ANNOUNCEMENTS,))
    except OSError as exc:
        print(f"cannot prepare JupyterLab's runtime folder: {exc}", file=sys.stderr)
        return 2
    token = new_token()
    print(f"The book:      {book_address(args.book_port, args.port, token)}")
    print(f"The exercises: {exercises_address(args.port, token)}", flush=True)
    environment = {**os.environ, "JUPYTER_TOKEN": token}
    environment.pop("JUPYTER_TOKEN_FILE", None)
    environment["JUPYTER_CONFIG_PATH"] = instructor_tools.config_path_with(config, environment)
    arguments = [
        *lab_arguments(args.port, args.book_port, args.root),
        *instructor_tools.server_arguments(),
    ]
    # exec keeps this process's id, so ./course serve stops JupyterLab as it started it.
    os.execve(jupyter, [jupyter, *arguments], environment)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
