"""Compare: running one test cell against a learner's functions and judging what happened.

Holds the verdict of a test cell, the ways a call of the learner's code can
fail, and the course's pointers from an error to the section to reread. Used
both by the grader (with stand-ins that call a sandboxed worker) and by
``check()`` in the learner's own kernel.

May import: :mod:`autograder.load`.
"""
