"""Finding the submissions under a path: one notebook, one learner's folder, or a class.

Accepted layouts:

- ``PATH`` is a notebook file: one learner, that one notebook;
- ``PATH`` holds notebooks (directly or in ``<id>/`` folders, as ``exercises/`` and
  ``solutions/`` do), or is a learners' repository as ``release`` writes it
  (``exercises/<id>/``): one learner;
- ``PATH`` holds one folder per learner (``<student>/<notebook>.ipynb``), or
  nbgrader's ``submitted/<student>/<assignment>/<notebook>.ipynb`` below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.load.course import COURSE_COPY, REPO_ROOT, Course

# A learners' release (see autograder.author.release) holds the checker's own copy of the
# notebooks there: it is never the learner's work.
_COURSE_COPY_PARTS = COURSE_COPY.relative_to(REPO_ROOT).parts


class UnusableInput(Exception):
    """PATH cannot be graded at all; the message is the one-line reason."""


@dataclass
class Submission:
    """One learner's notebooks, by exercise notebook id (None: not handed in)."""

    student: str
    notebooks: dict[str, Path | None]
    notes: list[str] = field(default_factory=list)


def find_submissions(path: Path, course: Course) -> list[Submission]:
    if not path.exists():
        raise UnusableInput(f"{path} does not exist")
    if path.is_file():
        return [_single_notebook(path, course)]
    if not path.is_dir():
        raise UnusableInput(f"{path} is neither a notebook nor a folder")
    if _is_one_learner(path, course):
        return [_collect(path.resolve().name, path, course)]
    root = path / "submitted" if (path / "submitted").is_dir() else path
    students = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise UnusableInput(f"{path} holds no notebooks and no student folders")
    return [_collect(student.name, student, course) for student in students]


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


def _single_notebook(path: Path, course: Course) -> Submission:
    ids = [notebook.id for notebook in course.notebooks]
    if path.is_symlink():
        raise UnusableInput(f"{path} {LINKED}")
    if path.stem not in ids:
        names = ", ".join(f"{i}.ipynb" for i in ids)
        raise UnusableInput(f"{path.name} is not one of the course's notebooks ({names})")
    return Submission(student=path.stem, notebooks={path.stem: path})


def _is_one_learner(folder: Path, course: Course) -> bool:
    ids = {notebook.id for notebook in course.notebooks}
    return any(folder.glob("*.ipynb")) or any(
        (folder / i).is_dir() or (folder / "exercises" / i).is_dir() for i in ids
    )


def _collect(student: str, folder: Path, course: Course) -> Submission:
    """A learner's notebooks under ``folder``.

    Symbolic links are never followed: a link to the course's own solutions would
    otherwise be graded as the learner's work.
    """
    submission = Submission(student=student, notebooks={})
    if folder.is_symlink():
        submission.notebooks = {notebook.id: None for notebook in course.notebooks}
        submission.notes.append(f"the folder {folder.name} {LINKED}")
        return submission
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts or _in_course_copy(path.relative_to(folder)):
            continue
        if _is_linked(path, folder):
            submission.notes.append(f"{path.relative_to(folder)} {LINKED}")
            continue
        found.setdefault(path.stem, []).append(path)
    for notebook in course.notebooks:
        candidates = sorted(found.pop(notebook.id, []), key=lambda p: (len(p.parts), str(p)))
        submission.notebooks[notebook.id] = candidates[0] if candidates else None
        for extra in candidates[1:]:
            submission.notes.append(
                f"{notebook.filename}: graded {candidates[0].relative_to(folder)}, "
                f"ignored {extra.relative_to(folder)}"
            )
    for _stem, paths in sorted(found.items()):
        for path in paths:
            submission.notes.append(
                f"{path.relative_to(folder)} is not one of the notebooks graded here; ignored"
            )
    return submission


def _is_linked(path: Path, folder: Path) -> bool:
    """Whether ``path``, or a folder between ``folder`` and it, is a symbolic link."""
    return any(p.is_symlink() for p in (path, *path.parents) if p != folder and folder in p.parents)


def _in_course_copy(relative: Path) -> bool:
    parts, size = relative.parts, len(_COURSE_COPY_PARTS)
    return any(parts[i : i + size] == _COURSE_COPY_PARTS for i in range(len(parts) - size + 1))
