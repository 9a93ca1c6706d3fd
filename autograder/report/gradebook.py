"""Scores into an nbgrader gradebook database, through nbgrader's own gradebook API.

Each exercise notebook is an nbgrader assignment with one notebook of the same
name; each graded test cell is a grade cell with its points. A learner's result
becomes a submission whose grade cells carry the autograded scores, so nbgrader's
formgrader and ``nbgrader export`` show them as if ``nbgrader autograde`` had run.
"""

from __future__ import annotations

import os
import sysconfig
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from autograder.load.course import Course
from autograder.report.model import Report


def write_gradebook(report: Report, course: Course, url: str) -> None:
    """Record every score of ``report`` in the gradebook at ``url`` (e.g. ``sqlite:///gradebook.db``).

    Running it again with a new report updates the same rows. Which of a learner's files
    was graded, where that needs saying (see ``StudentResult.files_summary``), and
    "Not started" for a chapter not started, are the automatic comment of the notebook's
    first function.
    """
    from nbgrader.api import Gradebook  # imported here: it loads SQLAlchemy
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings(), _scripts_on_path(), Gradebook(url) as gradebook:
        # nbgrader's own submission code trips SQLAlchemy's autoflush warnings
        warnings.simplefilter("ignore", SAWarning)
        for notebook in course.notebooks:
            gradebook.update_or_create_assignment(notebook.id)
            gradebook.update_or_create_notebook(notebook.id, notebook.id)
            for function in notebook.functions:
                gradebook.update_or_create_solution_cell(function.name, notebook.id, notebook.id)
                for test in function.tests:
                    gradebook.update_or_create_grade_cell(
                        test.grade_id,
                        notebook.id,
                        notebook.id,
                        max_score=test.points,
                        cell_type="code",
                    )
        for student in report.students:
            gradebook.update_or_create_student(student.student)
            for notebook in course.notebooks:
                tests = [
                    test
                    for exercise in student.exercises
                    if exercise.notebook == notebook.filename
                    for test in exercise.tests
                ]
                if not tests:
                    continue
                gradebook.update_or_create_submission(notebook.id, student.student)
                for test in tests:
                    grade = gradebook.find_grade(
                        test.name, notebook.id, notebook.id, student.student
                    )
                    grade.auto_score = test.points
                # the files graded and not graded, where that needs saying, and whether the
                # chapter was started, on the first function
                files = student.files_summary(notebook.id)
                said = [f"Files: {files}" if files else ""]
                said.append("Not started" if notebook.id in student.chapters_not_started() else "")
                comment = gradebook.find_comment(
                    notebook.functions[0].name, notebook.id, notebook.id, student.student
                )
                comment.auto_comment = "; ".join(filter(None, said)) or None
                gradebook.db.commit()


@contextmanager
def _scripts_on_path() -> Iterator[None]:
    """Put this interpreter's scripts folder first on PATH for the duration.

    nbgrader's Gradebook checks its schema by running the ``alembic`` command
    found on PATH; a grader started as ``.venv/bin/python -m autograder`` without
    activating the venv would otherwise not find it.
    """
    saved = os.environ.get("PATH")
    os.environ["PATH"] = os.pathsep.join(filter(None, [sysconfig.get_path("scripts"), saved]))
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PATH"]
        else:
            os.environ["PATH"] = saved
