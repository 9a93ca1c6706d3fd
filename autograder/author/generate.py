"""The exercise notebooks: generated from ``solutions/`` by nbgrader, then sealed."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from autograder.author.seal import seal_released
from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS, load_course


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
        subprocess.run(
            [
                sys.executable, "-m", "nbgrader", "generate_assignment", notebook.id,
                "--force", "--no-db", "--log-level=WARN",
                f"--CourseDirectory.root={REPO_ROOT}",
                f"--CourseDirectory.release_directory={release_directory}",
            ],
            check=True,
            cwd=REPO_ROOT,
        )  # fmt: skip
        released = release_directory / notebook.id / notebook.filename
        seal_released(notebook, released)
        written.append(released)
    return written


def update_exercises(chapters: Sequence[str] = ()) -> list[Path]:
    """Generate the exercise notebooks (only ``chapters`` when given) into ``exercises/``.

    Generated apart first, so a failing nbgrader run leaves ``exercises/`` as it was.
    Returns the notebooks written.
    """
    written = []
    with tempfile.TemporaryDirectory() as scratch:
        for generated in generate_exercises(Path(scratch), chapters):
            target = EXERCISES / generated.relative_to(scratch)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(generated.read_bytes())
            written.append(target)
    return written
