"""How the question audit's rule (booktools/question_audit.py) agrees with a reading
of the built book.

``python -m booktools.question_calibration SITE_DIR LABELS`` runs the rule on the book
built into ``SITE_DIR`` and compares it with ``LABELS``, a file of lines ``KEY recall``
or ``KEY prediction`` (``#`` starts a comment; ``booktools/question_labels/`` holds the
readings made so far, each named by the commit whose book it read). It prints how many
recall questions the book's tests fail (the rule's flags, and the questions without a
code cell of their own), how many predictions they fail, and each with the cells it
matched, so a change of the rule can be weighed before the book test uses it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from autograder.load.course import load_course
from booktools.question_audit import questions_without_code, recall_questions
from booktools.question_readings import read_file


def read_labels(path: Path) -> dict[str, str]:
    """The label of each question key in ``path``: ``recall`` or ``prediction``."""
    return {key: reading.label for key, reading in read_file(path).items()}


def calibration(pages: Sequence[tuple[str, Path]], labels: dict[str, str]) -> str:
    """The comparison of the rule's flags on ``pages`` with ``labels``, as text."""
    # the rule itself, without the readings that let a flagged question pass
    flagged = {found.question.key: str(found) for found in recall_questions(pages, {})}
    for question in questions_without_code(pages):  # the book's test fails these too
        flagged[question.key] = f"{question.key}: no hide-output code cell of its own"
    recall = [key for key, label in labels.items() if label == "recall"]
    predictions = [key for key, label in labels.items() if label == "prediction"]
    caught = [key for key in recall if key in flagged]
    false = [key for key in predictions if key in flagged]
    missed = [key for key in recall if key not in flagged]
    return (
        f"recall flagged: {len(caught)}/{len(recall)}; missed: {', '.join(missed) or 'none'}\n"
        f"predictions flagged: {len(false)}/{len(predictions)}: {', '.join(false) or 'none'}\n"
        + "".join(f"  [{labels.get(key, 'unlabelled')}] {text}\n" for key, text in flagged.items())
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m booktools.question_calibration")
    parser.add_argument("site", type=Path, help="the built book, such as _build/html")
    parser.add_argument("labels", type=Path, help="a file of lines: KEY recall|prediction")
    arguments = parser.parse_args(argv)
    site = arguments.site
    pages = [(n.id, site / "book" / f"{n.id}.html") for n in load_course().notebooks]
    print(calibration(pages, read_labels(arguments.labels)), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
