"""The exercise notebooks: generated from ``solutions/`` by nbgrader, then sealed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from autograder.author.seal import seal_released
from autograder.load.course import REPO_ROOT, SOLUTIONS, load_course


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
