"""Finding the submissions under a path: one notebook, one learner's folder, or a class.

Accepted layouts:

- ``PATH`` is a notebook file: one learner, that one notebook;
- ``PATH`` holds notebooks (directly or in ``<id>/`` folders, as ``exercises/`` and
  ``solutions/`` do), or is a learners' repository as ``release`` writes it
  (``exercises/<id>/``): one learner;
- ``PATH`` holds one folder per learner (``<student>/<notebook>.ipynb``), or
  nbgrader's ``submitted/<student>/<assignment>/<notebook>.ipynb`` below it.

In every layout a notebook is known by its cells, whatever its file is called, and one of
several copies of a chapter is graded by the rule of :mod:`autograder.load.handed_in`.
Symbolic links are never followed, and a release's course copy is never graded. Names
taken from the file system (a learner's folder, their files) are written as
:func:`~autograder.load.file_names.shown_name` shows them.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from autograder.load.course import COURSE_COPY, REPO_ROOT, Course
from autograder.load.file_names import shown_name
from autograder.load.handed_in import NOT_AN_EXERCISE, Copy, NotebookFile, choose, read_copy

# A learners' release (see autograder.author.release) holds the checker's own copy of the
# notebooks there: it is never the learner's work.
_COURSE_COPY_PARTS = COURSE_COPY.relative_to(REPO_ROOT).parts


class UnusableInput(Exception):
    """PATH cannot be graded at all; the message is the one-line reason."""


@dataclass
class Submission:
    """One learner's notebooks, by exercise notebook id (None: not handed in).

    ``files`` lists the notebook files found in the hand-in, graded or not (None where
    no files were looked for, as for a learner's own check).
    """

    student: str
    notebooks: dict[str, Path | None]
    notes: list[str] = field(default_factory=list)
    files: list[NotebookFile] | None = None


def find_submissions(
    path: Path, course: Course, assigned: Collection[str] | None = None
) -> list[Submission]:
    """The submissions under ``path``, each notebook known by its cells (see
    :mod:`autograder.load.handed_in`), whatever its file is called.

    ``course`` is the whole course, which tells every chapter's notebook; only the
    ``assigned`` chapters (default: all) are graded, and files of the others are left
    out without a word. Raises :class:`UnusableInput` when nothing under ``path`` can
    be graded: no notebook file anywhere, or one file that is no assigned exercise.
    """
    chapters = [n.id for n in course.notebooks if assigned is None or n.id in assigned]
    if not path.exists():
        raise UnusableInput(f"{path} does not exist")
    if path.is_file():
        return [_single_notebook(path, course, chapters)]
    if not path.is_dir():
        raise UnusableInput(f"{path} is neither a notebook nor a folder")
    if not any(_notebook_files(path)):
        raise UnusableInput(f"{path} holds no notebook (.ipynb file) anywhere below it")
    if _is_one_learner(path, course):
        return [_collect(shown_name(path.resolve().name), path, course, chapters)]
    root = path / "submitted" if (path / "submitted").is_dir() else path
    students = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise UnusableInput(f"{path} holds no notebooks and no student folders")
    return [_collect(shown_name(s.name), s, course, chapters) for s in students]


def learner_notebooks(folder: Path, course: Course, chapters: list[str]) -> Submission:
    """One learner's notebooks of ``chapters`` anywhere under ``folder``, whatever their
    names, as a learner's folder is graded."""
    return _collect(shown_name(folder.resolve().name), folder, course, chapters)


def nbgrader_assignments(path: Path, course: Course) -> list[str]:
    """The chapters handed in under nbgrader's ``submitted/<student>/<assignment>/`` layout.

    Empty when ``path`` is not laid out so: then nothing says what was assigned.
    """
    submitted = path / "submitted"
    if not submitted.is_dir():
        return []
    ids = {notebook.id for notebook in course.notebooks}
    found = {
        assignment.name
        for student in submitted.iterdir()
        if student.is_dir() and not student.is_symlink()
        for assignment in student.iterdir()
        if assignment.is_dir() and assignment.name in ids
    }
    return [notebook.id for notebook in course.notebooks if notebook.id in found]


LINKED = "is a symbolic link; only regular files and folders are graded"


def _single_notebook(path: Path, course: Course, chapters: list[str]) -> Submission:
    if path.is_symlink():
        raise UnusableInput(f"{path} {LINKED}")
    name = shown_name(path.name)
    copy = read_copy(path, name, course)
    if copy.chapter is None:
        raise UnusableInput(
            copy.detail
            or f"{name} is {NOT_AN_EXERCISE}: it holds no test cell of any chapter "
            f"({', '.join(n.id for n in course.notebooks)})"
        )
    if copy.chapter not in chapters:
        raise UnusableInput(
            f"{name} is the {copy.chapter} exercise, which is not among the chapters "
            f"graded here ({', '.join(chapters)})"
        )
    found = _chosen_file(copy, copy.chapter)
    return Submission(student=shown_name(path.stem), notebooks={copy.chapter: path}, files=[found])


def _is_one_learner(folder: Path, course: Course) -> bool:
    ids = {notebook.id for notebook in course.notebooks}
    return any(folder.glob("*.ipynb")) or any(
        (folder / i).is_dir() or (folder / "exercises" / i).is_dir() for i in ids
    )


def _collect(student: str, folder: Path, course: Course, chapters: list[str]) -> Submission:
    """A learner's notebooks under ``folder``, one per chapter of ``chapters``.

    Each file's chapter is told by its cells; where several files are one chapter's,
    :func:`~autograder.load.handed_in.choose` picks the one graded. Symbolic links are
    never followed: a link to the course's own solutions would otherwise be graded as
    the learner's work.
    """
    submission = Submission(student=student, notebooks={}, files=[])
    if folder.is_symlink():
        submission.notebooks = dict.fromkeys(chapters)
        submission.notes.append(f"the folder {shown_name(folder.name)} {LINKED}")
        return submission
    copies: dict[str | None, list[Copy]] = {}
    for path in _notebook_files(folder):
        shown = shown_name(path.relative_to(folder).as_posix())
        if _is_linked(path, folder):
            submission.notes.append(f"{shown} {LINKED}")
            continue
        copy = read_copy(path, shown, course)
        copies.setdefault(copy.chapter, []).append(copy)
    if not copies and not submission.notes:
        submission.notes.append(f"no notebook (.ipynb file) anywhere in {shown_name(folder.name)}/")
    files: list[NotebookFile] = []
    for chapter in chapters:
        if chapter not in copies:
            submission.notebooks[chapter] = None
            continue
        chosen, others = choose(copies[chapter])
        submission.notebooks[chapter] = chosen.path
        files.append(_chosen_file(chosen, chapter))
        files += [NotebookFile(c.shown, chapter, graded=False, why=why) for c, why in others]
    for copy in sorted(copies.get(None, []), key=lambda c: c.shown):
        why = copy.problem or NOT_AN_EXERCISE
        files.append(NotebookFile(copy.shown, "", graded=False, why=why))
    submission.files = files
    return submission


def _chosen_file(copy: Copy, chapter: str) -> NotebookFile:
    """The file chosen for ``chapter``, as the learner's row lists it. A damaged or
    unreadable one is still handed to grading (its functions are reported ``corrupt``
    or not graded), but it is listed as not graded, with why: none of it could run."""
    return NotebookFile(copy.shown, chapter, graded=not copy.problem, why=copy.problem)


def _notebook_files(folder: Path) -> Iterator[Path]:
    """Every ``.ipynb`` file below ``folder``, in sorted order, without entering linked
    folders, JupyterLab's checkpoints or a release's course copy (linked files are listed)."""
    for top, folders, names in os.walk(folder):
        here = Path(top)
        folders[:] = sorted(
            name
            for name in folders
            if name != ".ipynb_checkpoints"
            and not _in_course_copy((here / name).relative_to(folder))
        )
        for name in sorted(names):
            if name.endswith(".ipynb"):
                yield here / name


def _is_linked(path: Path, folder: Path) -> bool:
    """Whether ``path``, or a folder between ``folder`` and it, is a symbolic link."""
    return any(p.is_symlink() for p in (path, *path.parents) if p != folder and folder in p.parents)


def _in_course_copy(relative: Path) -> bool:
    parts, size = relative.parts, len(_COURSE_COPY_PARTS)
    return any(parts[i : i + size] == _COURSE_COPY_PARTS for i in range(len(parts) - size + 1))
