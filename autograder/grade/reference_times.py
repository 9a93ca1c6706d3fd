"""How long the reference solutions take on each call of a notebook's tests.

A learner's call may run for the larger of a floor and a factor times what the
reference solution took on the same call (see
:meth:`autograder.execute.run.NotebookRun.call`), so a function that never
returns is stopped after about the floor while a correct but slow one is not.
Almost every reference call takes milliseconds, so almost every limit is the
floor: the reference times are wanted only by a learner's call still running at
the floor, and measured then. The notebook's reference solutions are graded in a
worker of this grading run, on the same seeded inputs, and each call's time is
kept for the rest of the process.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from autograder.execute.run import Limits, ReferenceSeconds
from autograder.grade.plugin import NotebookContext
from autograder.learner.seeding import current_seed
from autograder.load.course import ExerciseNotebook

MEASURING_SECONDS = 60.0
"""The reference solution's own limit per call while it is timed."""

_measured: dict[tuple[Path, int], dict[tuple[str, int], float]] = {}


def reference_seconds(exercise: ExerciseNotebook, limits: Limits) -> ReferenceSeconds:
    """The reference time of each call of ``exercise``'s tests, measured on first use."""

    def seconds(test: str, number: int) -> float | None:
        key = (exercise.path, current_seed())
        if key not in _measured:
            _measured[key] = _measure(exercise, limits)
        return _measured[key].get((test, number))

    return seconds


def _measure(exercise: ExerciseNotebook, limits: Limits) -> dict[tuple[str, int], float]:
    timing = replace(limits, call_seconds=MEASURING_SECONDS, zygote="reference")
    context = NotebookContext(exercise, exercise.path, timing)
    try:
        for function in exercise.functions:
            for test in function.tests:
                context.verdict(test)
    finally:
        context.close()
    return dict(context.run.call_seconds) if context.run is not None else {}
