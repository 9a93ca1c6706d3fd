"""How a report writes text: learner text made safe, points, and Markdown table cells."""

from __future__ import annotations

import re

MAX_MESSAGE = 2000

# CSI and OSC terminal escape sequences, then any other control character but tab and newline.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` without terminal escape sequences or control characters, at most ``limit`` long."""
    text = _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))
    if len(text) <= limit:
        return text
    return text[:limit] + f" … [{len(text) - limit} more characters cut]"


def points(value: float) -> str:
    """Points as every format writes them: ``3``, ``1.5``, never ``3.0``."""
    return f"{value:g}"


def markdown_cell(text: str) -> str:
    """``text`` on one line, fit for a cell of a Markdown table."""
    return " ".join(text.replace("|", "\\|").split())
