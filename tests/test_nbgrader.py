"""nbgrader itself agrees: exercises/ is what it generates, and it grades like this grader does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.cli import generate_exercises
from autograder.registry import EXERCISES, REPO_ROOT, SOLUTIONS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    release = tmp_path_factory.mktemp("release")
    generate_exercises(release)
    return release


def test_exercises_are_exactly_what_nbgrader_generates_from_solutions(regenerated, course):
    generated = sorted(p.relative_to(regenerated) for p in regenerated.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(EXERCISES) for p in EXERCISES.rglob("*") if p.is_file())
    assert generated == committed
    for relative in generated:
        assert (EXERCISES / relative).read_bytes() == (regenerated / relative).read_bytes(), (
            f"exercises/{relative} is not what nbgrader generates: "
            "run python -m autograder generate"
        )


def test_generated_notebooks_hide_solutions_and_hidden_tests(course):
    for notebook in course.notebooks:
        text = (EXERCISES / notebook.id / notebook.filename).read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        assert text.count("raise NotImplementedError()") >= len(notebook.functions)


@pytest.fixture(scope="module")
def autograded(tmp_path_factory, course) -> dict[tuple[str, str], tuple[float, float]]:
    """nbgrader autograde, where `full` handed in the solutions and `blank` the exercises."""
    root = tmp_path_factory.mktemp("nbgrader-course")
    shutil.copytree(SOLUTIONS, root / "source")
    config = [f"--CourseDirectory.root={root}", "--CourseDirectory.source_directory=source",
              "--CourseDirectory.release_directory=release", "--log-level=WARN"]  # fmt: skip
    scores = {}
    for notebook in course.notebooks:
        nbgrader("generate_assignment", notebook.id, "--force", *config)
        for student, origin in (("full", SOLUTIONS), ("blank", EXERCISES)):
            target = root / "submitted" / student / notebook.id / notebook.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(origin / notebook.id / notebook.filename, target)
        nbgrader("autograde", notebook.id, "--create", *config)
        with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
            for student in ("full", "blank"):
                submission = gradebook.find_submission(notebook.id, student)
                scores[(notebook.id, student)] = (submission.score, submission.max_score)
    return scores


def nbgrader(*args: str) -> None:
    # nbgrader runs `alembic` from PATH to create its database: use this environment's.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path}
    subprocess.run([sys.executable, "-m", "nbgrader", *args], check=True, cwd=REPO_ROOT, env=env)


def test_nbgrader_gives_the_solutions_full_marks(autograded, course):
    for notebook in course.notebooks:
        score, max_score = autograded[(notebook.id, "full")]
        assert score == max_score == notebook.points


def test_nbgrader_gives_the_untouched_exercises_zero(autograded, course):
    for notebook in course.notebooks:
        score, max_score = autograded[(notebook.id, "blank")]
        assert score == 0 and max_score == notebook.points
