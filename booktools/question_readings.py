"""Readings of the book's questions: a reader's call, ``recall`` or ``prediction``, on
each question of a built book, one file a reading in ``booktools/question_labels/``.

A line is ``KEY LABEL`` or ``KEY LABEL DIGEST`` (``#`` starts a comment). The digest
(:func:`digest`) binds the label to the question as it was read, its code, choices and
right choice, so that a question changed after its reading has no reading. The question
audit (``booktools/question_audit.py``) lets a flagged question pass only with a reading
that calls that very question a prediction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).with_name("question_labels")
LABELS = ("recall", "prediction")


@dataclass(frozen=True)
class Reading:
    """One reader's call on one question; ``digest`` is "" when none was recorded."""

    label: str
    digest: str = ""


def digest(code: str, choices: Sequence[str], answer: int) -> str:
    """The digest of a question as the reader sees it: its code (spacing aside), its
    choices and which one is right."""
    seen = json.dumps([" ".join(code.split()), list(choices), answer])
    return hashlib.sha256(seen.encode("utf-8")).hexdigest()[:12]


def read_file(path: Path) -> dict[str, Reading]:
    """The reading in ``path``, by question key."""
    readings = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split("#")[0].split()
        if not words:
            continue
        if len(words) not in (2, 3) or words[1] not in LABELS:
            raise ValueError(f"{path}: {line!r} is not KEY recall|prediction [DIGEST]")
        if words[0] in readings:  # a reading calls each question once
            raise ValueError(f"{path}: {words[0]} is read twice")
        readings[words[0]] = Reading(*words[1:])
    return readings


def read_folder(folder: Path = FOLDER) -> dict[str, list[Reading]]:
    """Every reading of the files in ``folder``, by question key."""
    found: dict[str, list[Reading]] = {}
    for path in sorted(folder.glob("*.txt")):
        for key, reading in read_file(path).items():
            found.setdefault(key, []).append(reading)
    return found
