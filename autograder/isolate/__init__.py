"""Isolate: walling off the processes that run learner code.

Holds the bubblewrap sandbox, the cap on a worker's processes and the cgroups
that cap them, weigh their CPU share as one and count their CPU time, and the
grader's side of the zygotes: warm, sandboxed parents that fork one fresh worker
per notebook.

May import: :mod:`autograder.store` (to mount the compile store read-only) and
:mod:`autograder.load` (where the package lies).
"""
