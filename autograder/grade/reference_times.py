"""How much CPU time the reference solutions use on each call of a notebook's tests.

A learner's call may use as much CPU time as the larger of a floor and a factor
times the reference solution's CPU time on the same call, its share compiling
counted a smaller factor times (see
:meth:`autograder.execute.run.NotebookRun.call`), so a function that never
returns is stopped after about the floor while a correct but slow one is not.
CPU time, not the clock: a busy machine slows the reference and the learner
alike, and not always at the same moments, but leaves their CPU time as it is.
Almost every reference call takes milliseconds, so almost every limit is the
floor: the reference times are wanted only by a learner's call still running at
the floor, and measured then. The reference solutions run that call's test in a
worker of this grading run, on the same seeded inputs, and each call's times
(the CPU time as its worker reports it) are kept for the rest of the process.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from autograder.execute.run import CallTime, Limits, ReferenceSeconds
from autograder.grade.plugin import NotebookContext
from autograder.learner.seeding import current_seed
from autograder.load.course import ExerciseNotebook

MEASURING_SECONDS = 60.0
"""The reference solution's own limit per call while it is timed."""

_measured: dict[tuple[Path, str, int], dict[int, CallTime]] = {}


def reference_seconds(exercise: ExerciseNotebook, limits: Limits) -> ReferenceSeconds:
    """The reference time of each call of ``exercise``'s tests, measured on first use.

    Each test is measured alone, the first time one of its calls is wanted: a test's
    inputs do not depend on the tests before it (see :mod:`autograder.learner.seeding`).
    """

    def seconds(test: str, number: int) -> CallTime | None:
        key = (exercise.path, test, current_seed())
        if key not in _measured:
            _measured[key] = _measure(exercise, test, limits)
        return _measured[key].get(number)

    return seconds


def _measure(exercise: ExerciseNotebook, grade_id: str, limits: Limits) -> dict[int, CallTime]:
    """The times of test ``grade_id``'s calls: its visible prefix in one worker, the rest of
    the cell in a fresh one. In a learner's worker the other tests run between the two
    parts, and may leave it with nothing compiled (``watch_calls`` clears JAX's caches, a
    crash restarts the worker), so the rest's calls are timed as from a cold start."""
    timing = replace(limits, call_seconds=MEASURING_SECONDS, zygote="reference")
    context = NotebookContext(exercise, exercise.path, timing)
    try:
        for function in exercise.functions:
            for test in function.tests:
                if test.grade_id == grade_id and context.run is not None:
                    context.run_visible_prefix(test)
                    context.run.close()  # the next call starts a fresh worker
                    context.verdict(test)
    finally:
        context.close()
    if context.run is None:
        return {}
    return {number: s for (label, number), s in context.run.call_times.items() if label == grade_id}
