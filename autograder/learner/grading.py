"""Whether a grader, not the learner, runs this kernel: the learner's tools then do
nothing, so a ``check``, ``hint``, ``solution`` or ``status`` cell never changes a grade,
never costs grading time, never records progress on the grading machine and never
prints the grading machine's paths into a learner's report."""

from __future__ import annotations

import os


def under_a_grader() -> bool:
    """Whether a grader runs this kernel: this course's (``PYTREES_GRADING``) or nbgrader's
    autograde, which documents ``NBGRADER_EXECUTION=autograde`` for the kernels it runs."""
    return (
        os.environ.get("PYTREES_GRADING") == "1"
        or os.environ.get("NBGRADER_EXECUTION") == "autograde"
    )
