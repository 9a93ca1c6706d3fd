"""The exercise notebooks: generated from ``solutions/`` by nbgrader, then sealed."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.author.checks import answered_cells
from autograder.author.seal import seal_released
from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS, load_course

if TYPE_CHECKING:
    from traitlets.config import Config


def generate_exercises(release_directory: Path, chapters: Sequence[str] = ()) -> list[Path]:
    """Write ``<id>/<id>.ipynb`` into ``release_directory`` for each chapter of ``solutions/``.

    Only ``chapters`` when given. ``nbgrader generate_assignment`` removes the
    solution regions and hidden tests; then each reference solution is sealed
    into its cell. Returns the notebooks written.
    """
    course = load_course(SOLUTIONS)
    written = []
    for notebook in course.notebooks:
        if chapters and notebook.id not in chapters:
            continue
        _nbgrader_generate(notebook.id, release_directory)
        released = release_directory / notebook.id / notebook.filename
        seal_released(notebook, released)
        written.append(released)
    return written


def _nbgrader_generate(chapter: str, release_directory: Path) -> None:
    """``nbgrader generate_assignment <chapter> --force --no-db``, as configured by the
    repository's ``nbgrader_config.py``, with ``release_directory`` as the release."""
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPO_ROOT)).load_config()
    config.CourseDirectory.root = str(REPO_ROOT)
    config.CourseDirectory.release_directory = str(release_directory)
    config.CourseDirectory.assignment_id = chapter
    # what the command's --no-db flag sets
    config.GenerateAssignment.no_database = True
    config.SaveCells.enabled = False
    generate_assignment(config)


def generate_assignment(config: Config) -> None:
    """``nbgrader generate_assignment --force`` for the course and assignment ``config`` names.

    nbgrader's converter runs in this process rather than as its command: the command's
    start-up took about 5 s a chapter, the conversion a tenth of a second.
    """
    # imported here: nbgrader's import takes seconds, and most authoring needs none of it
    from nbgrader.converters import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory

    config.BaseConverter.force = True
    GenerateAssignment(coursedir=CourseDirectory(config=config), config=config).start()


@dataclass(frozen=True)
class Updated:
    """What :func:`update_exercises` did: the notebooks it wrote, and those it left as they
    were because their answer cells hold answers (the grade ids of those cells, by path)."""

    written: list[Path]
    left: dict[Path, list[str]]


def update_exercises(chapters: Sequence[str] = (), force: bool = False) -> Updated:
    """Generate the exercise notebooks (only ``chapters`` when given) into ``exercises/``.

    Generated apart first, so a failing nbgrader run leaves ``exercises/`` as it was.
    An exercise notebook whose answer cells are not the stubs generated now holds a
    learner's answers (the course's own clone is where learners are told to work), and
    is left as it is unless ``force``.
    """
    written = []
    left = {}
    with tempfile.TemporaryDirectory() as scratch:
        for generated in generate_exercises(Path(scratch), chapters):
            target = EXERCISES / generated.relative_to(scratch)
            kept = not force and target.exists()
            if kept and (answered := answered_cells(target, generated, source=False)):
                left[target] = answered
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(generated.read_bytes())
            written.append(target)
    return Updated(written, left)
