"""The notebook files a learner handed in: which chapter each one is, and which of several
copies of one chapter is graded.

A file's cells say its chapter (:func:`~autograder.load.learner_notebook.chapter_of`),
whatever the file is called. Only a file whose cells say nothing (a damaged file, or one
whose test cells were all deleted) is taken for the chapter its name says, if any.

Where several files are copies of one chapter, one is graded, chosen by this rule:

1. the one with the most answered cells: solution cells whose source differs from the
   exercise's stub (a damaged file has none, so any readable copy comes first);
2. then the one modified last, to the second (copies that git or an unzip wrote in the
   same second tie);
3. then the first by path, in sorted order.

The same files, with the same modification times, always give the same choice. The others
are listed as not graded, with the step of the rule that set them aside.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.load.course import Course, ExerciseNotebook
from autograder.load.learner_notebook import (
    NotebookDamaged,
    NotebookUnreadable,
    chapter_named,
    chapter_of,
    read_notebook,
)
from autograder.load.stubs import cell_source, released_stubs

NOT_AN_EXERCISE = "not one of the course's exercises"


@dataclass(frozen=True)
class NotebookFile:
    """A notebook file found in a hand-in, as the report lists it.

    ``path`` is the file's path within the learner's folder, ``chapter`` the exercise it
    is ("" for none), ``graded`` whether it is the one graded for that chapter, and
    ``why`` a short phrase saying why it was not.
    """

    path: str
    chapter: str
    graded: bool
    why: str = ""


DAMAGED = "damaged: re-save or re-download it"


@dataclass(frozen=True)
class Copy:
    """A notebook file read for choosing; ``modified`` is its modification time in whole
    seconds. When the file cannot be read, ``answered`` is -1, ``problem`` says so in a
    short phrase and ``detail`` in a line that names the file."""

    path: Path
    shown: str
    chapter: str | None
    answered: int
    modified: int
    problem: str = ""
    detail: str = ""


def read_copy(path: Path, shown: str, course: Course) -> Copy:
    """Read ``path`` (shown in reports as ``shown``) to tell its chapter and its answers."""
    try:
        modified = int(path.stat().st_mtime)
    except OSError:
        modified = 0
    try:
        nb = read_notebook(path)
    except NotebookUnreadable as exc:
        problem = DAMAGED if isinstance(exc, NotebookDamaged) else str(exc)
        chapter = chapter_named(path.name, course)
        return Copy(path, shown, chapter, -1, modified, problem, str(exc))
    chapter = chapter_of(nb, course) or chapter_named(path.name, course)
    answered = answered_cells(nb, course.notebook(chapter)) if chapter else 0
    return Copy(path, shown, chapter, answered, modified)


def choose(copies: list[Copy]) -> tuple[Copy, list[tuple[Copy, str]]]:
    """The copy to grade among ``copies`` of one chapter (see the module's rule), and the
    others, each with the short phrase that says why it is not graded."""
    ranked = sorted(copies, key=lambda c: (-c.answered, -c.modified, c.shown))
    chosen = ranked[0]
    others = []
    for copy in ranked[1:]:
        if copy.problem:
            why = copy.problem
        elif copy.answered < chosen.answered:
            why = "fewer answered cells"
        elif copy.modified < chosen.modified:
            why = "as many answered cells, modified earlier"
        else:
            why = "as many answered cells, same time, later by name"
        others.append((copy, why))
    return chosen, others


def answered_cells(nb: nbformat.NotebookNode, exercise: ExerciseNotebook) -> int:
    """How many of ``exercise``'s solution cells ``nb`` holds changed from the stub."""
    stubs = released_stubs(exercise)
    answered = set()
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in stubs and cell_source(cell).strip() != stubs[grade_id]:
            answered.add(grade_id)
    return len(answered)
