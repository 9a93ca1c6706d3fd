"""Grading one submission: its notebooks' test cells, run under pytest, into a result."""

from __future__ import annotations

from autograder.compare.verdicts import Verdict
from autograder.execute.run import Limits
from autograder.grade.plugin import NotebookContext, run_pytest
from autograder.grade.reference_times import reference_seconds
from autograder.load.book import book_sections, section_named
from autograder.load.course import Course
from autograder.load.learner_notebook import cell_label
from autograder.load.submissions import Submission
from autograder.report.model import (
    ExerciseResult,
    NotebookNote,
    StudentResult,
    TestPointer,
    TestResult,
)
from autograder.safe_text import clean


def grade_submission(
    submission: Submission, course: Course, limits: Limits, timed_reference: bool = True
) -> StudentResult:
    """Run the tests of each notebook the submission is expected to contain.

    With ``timed_reference``, the course's notebooks hold the reference solutions,
    and a call's limit may be derived from their times (see
    :mod:`autograder.grade.reference_times`); without it, as for a learner's
    ``check``, calls have a fixed limit.
    """
    contexts = []
    for notebook_id, path in submission.notebooks.items():
        exercise = course.notebook(notebook_id)
        reference = reference_seconds(exercise, limits) if timed_reference else None
        contexts.append(NotebookContext(exercise, path, limits, reference))
    verdicts = run_pytest(contexts)
    # the model cleans the learner's text it is given; clean() here cuts long notes too
    result = StudentResult(student=submission.student, files=submission.files)
    result.notes.extend(NotebookNote("", clean(note)) for note in submission.notes)
    for context in contexts:
        exercise = context.exercise
        if context.problem is not None:
            problem = context.damage or context.problem.message
            result.notes.append(NotebookNote(exercise.filename, clean(problem)))
        if context.run is not None:
            labels = {number: cell_label(source) for number, source in context.run.cells}
            result.notes.extend(
                NotebookNote(exercise.filename, clean(f"{labels[p.cell]} {p.text}"))
                for p in context.run.problems
                if p.cell not in context.stub_cells  # a stub's own raise says nothing
            )
        if context.naming_the_grader:
            cells = ", ".join(context.naming_the_grader)
            result.notes.append(
                NotebookNote(
                    exercise.filename,
                    clean(
                        "learner cells reach into the grader or JAX (autograder, "
                        "sys.modules, jax._src, ctypes, JAX's registry, or setting JAX's "
                        f"attributes): {cells}; checks of how the functions work could be "
                        "misled; worth a look"
                    ),
                )
            )
        for cell in context.rebinding_given:
            result.notes.append(
                NotebookNote(
                    exercise.filename,
                    clean(
                        "a learner cell redefines what a locked cell of the course gives "
                        f"({cell}); grading used the course's own definitions"
                    ),
                )
            )
        for grade_id, how in sorted(context.tampered.items()):
            result.notes.append(
                NotebookNote(
                    exercise.filename,
                    clean(
                        f"the locked cell {grade_id} was {how}; grading used the course's own copy"
                    ),
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
                    (exercise.id, test.grade_id),
                    Verdict("error", "the test did not run", kind="not-graded"),
                )
                graded.tests.append(
                    TestResult(
                        name=test.grade_id,
                        outcome=verdict.outcome,
                        points=test.points if verdict.passed else 0.0,
                        max_points=test.points,
                        message=clean(verdict.message),
                        hidden=verdict.hidden,
                        visible_passed=verdict.visible_passed,
                        kind=verdict.kind or ("" if verdict.passed else verdict.outcome),
                        pointer=test_pointer(verdict),
                    )
                )
            graded.tampered = any(t.grade_id in context.tampered for t in function.tests)
            if graded.status in ("failed", "error") and function.hints:
                graded.hint = function.hints[0]
            result.exercises.append(graded)
    return result


def test_pointer(verdict: Verdict) -> TestPointer | None:
    """The section of the book ``verdict`` sends the learner to, with its idea's id; None
    when it names none (or a section the book does not have)."""
    section = section_named(verdict.reread, book_sections()) if verdict.reread else None
    if section is None:
        return None
    idea = verdict.idea or f"{section.chapter}#{section.anchor}"
    return TestPointer(idea, section.chapter, section.heading, section.anchor)
