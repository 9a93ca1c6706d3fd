"""Pytrees Hands-On's grader: runs each exercise's tests against a learner's notebook.

The learner's code runs in a separate, limited worker process; this package's own
process only compares plain data that the worker sends back.

A grade passes through the stages, one subpackage each, from the bottom up:
:mod:`.load` (the course and the submissions, as data), :mod:`.store` (compiled
JAX operations for the workers), :mod:`.compare` (judging one test cell),
:mod:`.report` (the results and their formats), :mod:`.learner` (the helpers in
the learner's kernel), :mod:`.isolate` (walling workers off), :mod:`.execute`
(running cells in a worker), :mod:`.grade` (from submissions to a report) and
:mod:`.author` (the course author's tools); :mod:`.cli` is the command line. A
stage imports only the stages below it (``pyproject.toml``'s import contracts).

The notebooks import three public modules, kept where they are:
:mod:`autograder.notebook` (``check``, ``hint``, ``solution``),
:mod:`autograder.watchers` and :mod:`autograder.seeding`.
"""

import sys

# nbformat's validator imports jsonschema, which builds an IRI grammar with lark
# when the optional rfc3987_syntax package is installed (Jupyter's packages pull
# it in): 0.8 s in every grading process, for a format no notebook schema uses.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
