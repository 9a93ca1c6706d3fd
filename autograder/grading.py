"""Grading submissions: from a learner's notebooks to a :class:`~autograder.report.Report`."""

from __future__ import annotations

from collections.abc import Sequence

from autograder import processes
from autograder.batch import OnGraded, OnNotebook, ResultCache, grade_many
from autograder.discover import Submission
from autograder.isolation import isolation
from autograder.plugin import NotebookContext, run_pytest
from autograder.registry import Course
from autograder.report import ExerciseResult, NotebookNote, Report, StudentResult, TestResult
from autograder.sandbox import Limits
from autograder.seeding import DEFAULT_SEED
from autograder.text import clean
from autograder.verdicts import Verdict


def grade_all(
    submissions: Sequence[Submission],
    course: Course,
    limits: Limits,
    seed: int = DEFAULT_SEED,
    jobs: int = 1,
    cache: ResultCache | None = None,
    on_graded: OnGraded | None = None,
    on_notebook: OnNotebook | None = None,
) -> Report:
    """Grade every submission; one learner's failure never stops the batch.

    Hidden tests draw their generated inputs from ``seed``. ``jobs`` submissions
    are graded at once; the report is the same for any ``jobs``.
    """
    students = grade_many(submissions, course, limits, seed, jobs, cache, on_graded, on_notebook)
    return Report(
        students=students,
        isolation=isolation(limits.sandbox),
        processes=processes.describe(limits.processes),
        seed=seed,
    )


def grade_submission(submission: Submission, course: Course, limits: Limits) -> StudentResult:
    """Run the tests of each notebook the submission is expected to contain."""
    contexts = [
        NotebookContext(course.notebook(notebook_id), path, limits)
        for notebook_id, path in submission.notebooks.items()
    ]
    verdicts = run_pytest(contexts)
    result = StudentResult(student=submission.student)
    result.notes.extend(NotebookNote("", note) for note in submission.notes)
    for context in contexts:
        exercise = context.exercise
        if context.problem is not None:
            result.notes.append(NotebookNote(exercise.filename, clean(context.problem.message)))
        if context.run is not None:
            result.notes.extend(
                NotebookNote(exercise.filename, clean(f"cell {p.cell} {p.text}"))
                for p in context.run.problems
            )
        if context.naming_the_grader:
            cells = ", ".join(map(str, context.naming_the_grader))
            result.notes.append(
                NotebookNote(
                    exercise.filename,
                    f"cell(s) {cells} of the learner's own mention the course's autograder "
                    "modules: checks of how the functions work could be misled; worth a look",
                )
            )
        for grade_id, how in sorted(context.tampered.items()):
            result.notes.append(
                NotebookNote(
                    exercise.filename,
                    f"the locked cell {grade_id} was {how}; grading used the course's own copy",
                )
            )
        for function in exercise.functions:
            graded = ExerciseResult(
                notebook=exercise.filename,
                name=function.name,
                max_score=function.points,
                hints_opened=min(context.hints_opened.get(function.name, 0), len(function.hints)),
            )
            for test in function.tests:
                verdict = verdicts.get(
                    (exercise.id, test.grade_id), Verdict("error", "the test did not run")
                )
                graded.tests.append(
                    TestResult(
                        name=test.grade_id,
                        outcome=verdict.outcome,
                        points=test.points if verdict.passed else 0.0,
                        max_points=test.points,
                        message=clean(verdict.message),
                        hidden=verdict.hidden,
                    )
                )
            graded.tampered = any(t.grade_id in context.tampered for t in function.tests)
            if graded.status in ("failed", "error") and function.hints:
                graded.hint = function.hints[0]
            result.exercises.append(graded)
    return result
