"""The learner's progress, kept in a small JSON file on their own machine.

``check`` (in a notebook or on the command line) records each function's latest
result; ``status`` reads it. ``hint`` records how many hints of each function were
opened, so a restarted kernel goes on from there. No account and no server are
involved.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from autograder.registry import REPO_ROOT

STATES = ("passed", "failing")
HINT_RECORD = "application/vnd.pytrees-hands-on.hints+json"
"""The output type ``hint`` leaves in a saved notebook: ``{"function": name, "opened": n}``."""


def progress_file() -> Path:
    return Path(os.environ.get("PYTREES_PROGRESS", REPO_ROOT / ".course-progress.json"))


def _read() -> dict:
    try:
        data = json.loads(progress_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(data: dict) -> None:
    """Store ``data``; a failed write is not the learner's problem."""
    with contextlib.suppress(OSError):
        progress_file().write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def load() -> dict[str, str]:
    """Each checked function's latest state, ``passed`` or ``failing``."""
    functions = _read().get("functions", {})
    if not isinstance(functions, dict):
        return {}
    return {str(k): v for k, v in functions.items() if v in STATES}


def record(results: dict[str, bool]) -> None:
    """Store ``{function: passed}`` from a check."""
    data = _read()
    functions = data.get("functions") if isinstance(data.get("functions"), dict) else {}
    state = {str(k): v for k, v in functions.items() if v in STATES}
    state.update({name: "passed" if ok else "failing" for name, ok in results.items()})
    _write({**data, "functions": dict(sorted(state.items()))})


def hints_opened(name: str) -> int:
    """How many hints of ``name`` the learner has opened so far."""
    hints = _read().get("hints", {})
    count = hints.get(name, 0) if isinstance(hints, dict) else 0
    return count if isinstance(count, int) and count >= 0 else 0


def record_hints_opened(name: str, count: int) -> None:
    """Remember that ``count`` hints of ``name`` are open."""
    data = _read()
    hints = data.get("hints", {}) if isinstance(data.get("hints"), dict) else {}
    _write({**data, "hints": dict(sorted({**hints, name: count}.items()))})
