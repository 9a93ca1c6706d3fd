"""Grading runs only the course notebooks it read at its start: one changed since stops the run.

The grader runs the course's setup and test cells in its own process, so a course
notebook written while it grades (by a collect into the course, by a worker run
without bubblewrap) must never be what it runs, in any of its grading processes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.execute.run import Limits
from autograder.grade.batch import grade_many
from autograder.grade.plugin import NotebookContext
from autograder.learner.seeding import DEFAULT_SEED
from autograder.load.course import CourseChanged, load_course
from autograder.load.submissions import Submission
from conftest import SOLUTIONS

NOTEBOOK = Path("leaves") / "leaves.ipynb"


def _course(tmp_path: Path) -> Path:
    """A course folder holding a copy of the leaves chapter's solutions notebook."""
    folder = tmp_path / "course"
    (folder / NOTEBOOK).parent.mkdir(parents=True)
    shutil.copy(SOLUTIONS / NOTEBOOK, folder / NOTEBOOK)
    return folder


def _change(path: Path) -> None:
    with path.open("a", encoding="utf-8") as notebook:
        notebook.write("\n")


def test_a_solutions_notebook_changed_after_loading_is_refused_before_its_grading(tmp_path):
    folder = _course(tmp_path)
    exercise = load_course(folder).notebook("leaves")
    _change(folder / NOTEBOOK)
    with pytest.raises(CourseChanged, match="leaves.ipynb changed after grading started"):
        NotebookContext(exercise, None, Limits())


def test_grading_processes_check_the_course_against_the_snapshot_of_the_run(tmp_path):
    folder = _course(tmp_path)
    course = load_course(folder).only(["leaves"])
    _change(folder / NOTEBOOK)
    learners = [Submission(name, {"leaves": folder / NOTEBOOK}) for name in ("a", "b")]
    with pytest.raises(CourseChanged, match="leaves.ipynb changed after grading started"):
        grade_many(learners, course, Limits(), DEFAULT_SEED, jobs=2)


def test_a_learners_own_notebook_saved_during_a_check_is_no_course_change(tmp_path, monkeypatch):
    """In a clone, ``check`` reads the course from ``exercises/``: the learner's own notebooks,
    which JupyterLab saves while a check runs."""
    folder = _course(tmp_path)
    monkeypatch.setattr("autograder.load.course.learner_course_folder", lambda: folder)
    exercise = load_course(folder).notebook("leaves")
    _change(folder / NOTEBOOK)
    NotebookContext(exercise, folder / NOTEBOOK, Limits())  # raises no CourseChanged
