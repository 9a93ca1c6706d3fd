"""The learner's progress, kept in a small JSON file on their own machine.

``check`` (in a notebook or on the command line) records each function's latest
result; ``status`` reads it. No account and no server are involved.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from autograder.registry import REPO_ROOT

STATES = ("passed", "failing")


def progress_file() -> Path:
    return Path(os.environ.get("PYTREES_PROGRESS", REPO_ROOT / ".course-progress.json"))


def load() -> dict[str, str]:
    """Each checked function's latest state, ``passed`` or ``failing``."""
    try:
        data = json.loads(progress_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    functions = data.get("functions", {}) if isinstance(data, dict) else {}
    return {str(k): v for k, v in functions.items() if v in STATES}


def record(results: dict[str, bool]) -> None:
    """Store ``{function: passed}`` from a check; a failed write is not the learner's problem."""
    state = load()
    state.update({name: "passed" if ok else "failing" for name, ok in results.items()})
    with contextlib.suppress(OSError):
        progress_file().write_text(
            json.dumps({"functions": dict(sorted(state.items()))}, indent=2) + "\n",
            encoding="utf-8",
        )
