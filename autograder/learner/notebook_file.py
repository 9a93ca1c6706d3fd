"""Which notebook file the learner's kernel runs, so that ``check`` records its results there.

JupyterLab tells the kernel in ``JPY_SESSION_NAME``, and VS Code's Jupyter
extension in the namespace's ``__vsc_ipynb_file__``. Where nothing tells
(nbclient, ``jupyter nbconvert --execute``), the kernel's working folder is the
notebook's, and the notebook is the one ``.ipynb`` file there whose code cells
include every cell the kernel has run. Where no file or several fit, the kernel
is given a name that no file has (:func:`unidentified`), so that its results can
never stand for another file's, and never undo a pass another file earned.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

VSCODE_VARIABLE = "__vsc_ipynb_file__"

_KERNEL = secrets.token_hex(4)  # one kernel's own name, as long as it runs


def unidentified(folder: Path) -> str:
    """The name this kernel's results go under when its notebook file cannot be told."""
    return str(folder.resolve() / f"<notebook not identified, kernel {_KERNEL}>")


def notebook_file(namespace: Mapping[str, Any], ran: Sequence[str], folder: Path) -> str:
    """The notebook file a kernel runs, as an absolute path, or :func:`unidentified`.

    ``namespace`` is the kernel's user namespace, ``ran`` the source of each cell it
    has run (IPython's raw input history), and ``folder`` its working folder.
    """
    for told in (namespace.get(VSCODE_VARIABLE), os.environ.get("JPY_SESSION_NAME")):
        if isinstance(told, str) and told:
            return str(Path(told).resolve())
    cells = {source.strip() for source in ran} - {""}
    fitting = [path for path in sorted(folder.glob("*.ipynb")) if cells and cells <= _code(path)]
    return str(fitting[0].resolve()) if len(fitting) == 1 else unidentified(folder)


def kernel_history() -> list[str]:
    """The source of each cell this IPython kernel has run, in order; empty outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    shell = get_ipython()
    if shell is None or shell.history_manager is None:
        return []
    return list(shell.history_manager.input_hist_raw)


def _code(path: Path) -> set[str]:
    """The stripped source of each code cell of the notebook ``path``; empty when unreadable."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return set()
    sources = set()
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            sources.add(("".join(source) if isinstance(source, list) else str(source)).strip())
    return sources
