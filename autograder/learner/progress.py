"""The learner's progress, kept in a small JSON file on their own machine.

``check`` (in a notebook or on the command line) records each function's result
and the notebook file it came from; ``status`` reads it. A function that passed
in one file stays passed when another file (a fresh copy, the untouched
``exercises/``) fails it: progress goes backwards only when the same file fails.
``hint`` records how many hints of each function were opened, so a restarted
kernel goes on from there. No account and no server are involved.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from autograder.load.course import EXERCISES, REPO_ROOT

STATES = ("passed", "failing", "not-started")


def progress_file() -> Path:
    """``$PYTREES_PROGRESS``, or ``.course-progress.json`` at the root of the repository
    the package lives in (the course's, or a learners' release with its ``exercises/``);
    installed from its wheel, with no repository around it, in the working folder (a
    notebook's kernel works in the notebook's folder), never in site-packages."""
    if "PYTREES_PROGRESS" in os.environ:
        return Path(os.environ["PYTREES_PROGRESS"])
    root = REPO_ROOT if EXERCISES.is_dir() else Path.cwd()
    return root / ".course-progress.json"


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


def _section(data: dict, key: str) -> dict:
    """``data[key]`` when it is a dict (a hand-edited file may hold anything), else ``{}``."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _states(data: dict) -> dict[str, str]:
    return {str(k): v for k, v in _section(data, "functions").items() if v in STATES}


def load() -> dict[str, str]:
    """Each checked function's state, ``passed``, ``failing`` or ``not-started`` (its cell
    was still the exercise's stub)."""
    return _states(_read())


def sources() -> dict[str, str]:
    """The notebook file each checked function's state came from, where it is known."""
    return {str(k): str(v) for k, v in _section(_read(), "sources").items()}


def record(results: dict[str, bool | None], source: str) -> None:
    """Store ``{function: passed}`` from a check of the notebook file ``source``; None
    for passed says the function was not started.

    A failure does not replace a pass that another file earned, nor does not started.
    """
    data = _read()
    state, origin = _states(data), _section(data, "sources")
    for name, ok in results.items():
        kept = state.get(name) == "passed" and origin.get(name) != source
        if ok or not kept:
            state[name] = "passed" if ok else "failing" if ok is False else "not-started"
            origin[name] = source
    _write(
        {**data, "functions": dict(sorted(state.items())), "sources": dict(sorted(origin.items()))}
    )


def open_hint(name: str, available: int) -> int:
    """Open one more of the ``available`` hints of ``name``; return how many are open now."""
    data = _read()
    hints = _section(data, "hints")
    opened = hints.get(name, 0)
    opened = min((opened if type(opened) is int and opened >= 0 else 0) + 1, available)
    _write({**data, "hints": dict(sorted({**hints, name: opened}.items()))})
    return opened
