"""A Gradescope autograder zip: the grader, the course's notebooks and Gradescope's two scripts.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once
when it builds the autograder's image, and ``run_autograder`` for every
submission. Both scripts live in ``gradescope/``; ``book/gradescope.md`` explains
them.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

from autograder.load.course import (
    REPO_ROOT,
    SOLUTIONS,
    ExerciseNotebook,
    grader_sources,
    load_course,
)
from autograder.load.submissions import UnusableInput

SCRIPTS = REPO_ROOT / "gradescope"
EXECUTABLES = ("setup.sh", "run_autograder")
# What setup.sh installs: the grader's requirements alone.
GRADING_REQUIREMENTS = "requirements-grading.txt"
# A fixed timestamp, so the same sources always give the same zip.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def bundle_files(notebooks: Sequence[ExerciseNotebook]) -> dict[str, Path]:
    """Each file of the zip, by its name in the archive.

    The scripts, the grader's pinned requirements (``requirements-grading.txt``,
    not the book's and the tests'), ``_toc.yml``, the grader's package, and the
    source and released versions of ``notebooks``: the grader in the zip expects
    only those in a submission.
    """
    files = {name: SCRIPTS / name for name in EXECUTABLES}
    files |= {name: REPO_ROOT / name for name in (GRADING_REQUIREMENTS, "_toc.yml")}
    files |= {path.relative_to(REPO_ROOT).as_posix(): path for path in grader_sources()}
    for notebook in notebooks:
        for path in (notebook.path, notebook.released_path):
            files[path.relative_to(REPO_ROOT).as_posix()] = path
    return files


def chapter_notebooks(chapters: Sequence[str]) -> list[ExerciseNotebook]:
    """The course's notebooks of ``chapters`` in chapter order, every one when empty.

    Raises UnusableInput for a chapter the course does not have.
    """
    course = load_course(SOLUTIONS)
    if not chapters:
        return list(course.notebooks)
    known = [notebook.id for notebook in course.notebooks]
    for chapter in chapters:
        if chapter not in known:
            raise UnusableInput(f"{chapter!r} is not a chapter of the course ({', '.join(known)})")
    return [notebook for notebook in course.notebooks if notebook.id in chapters]


ALLOW_UNSANDBOXED = "allow-unsandboxed"
"""The file whose presence in the zip makes ``run_autograder`` grade without bubblewrap."""


def write_bundle(
    out: Path, chapters: Sequence[str] = (), allow_unsandboxed: bool = False
) -> list[ExerciseNotebook]:
    """Write the autograder zip to ``out``; returns the notebooks it grades.

    The two scripts are stored executable, as Gradescope runs them directly. With
    ``allow_unsandboxed``, a container where bubblewrap cannot run still grades, with
    every result marked as not isolated; without it, such a submission is refused.
    Raises UnusableInput for a folder ``out`` or a chapter the course does not have.
    """
    if out.is_dir():
        raise UnusableInput(f"{out} is a folder; give a file name")
    notebooks = chapter_notebooks(chapters)
    files = bundle_files(notebooks)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in sorted(files.items()):
            entry = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if name in EXECUTABLES else 0o644
            entry.external_attr = (0o100000 | mode) << 16  # a regular file and its mode
            archive.writestr(entry, path.read_bytes())
        if allow_unsandboxed:
            entry = zipfile.ZipInfo(ALLOW_UNSANDBOXED, date_time=_ZIP_TIME)
            entry.external_attr = (0o100000 | 0o644) << 16
            reason = "gradescope-bundle --allow-unsandboxed: grade where bubblewrap cannot run\n"
            archive.writestr(entry, reason)
    return notebooks
