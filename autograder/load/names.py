"""Telling a learner which name they meant when they mistype a chapter or a function."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name most like ``name``, or None when none is close enough to suggest."""
    matches = difflib.get_close_matches(name, list(known), n=1)
    return matches[0] if matches else None


def sentence(text: str) -> str:
    """``text`` (a :func:`no_such`) as a sentence: capitalised, and ending in a full stop
    unless it asks."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith("?") else f"{text}."


def no_such(kind: str, name: str, known: Iterable[str], otherwise: str) -> str:
    """``there is no KIND called 'NAME': did you mean X?``, or ``otherwise`` in brackets
    where no known name is close."""
    said = f"there is no {kind} called {name!r}"
    best = closest(name, known)
    return f"{said}: did you mean {best}?" if best else f"{said} ({otherwise})"
