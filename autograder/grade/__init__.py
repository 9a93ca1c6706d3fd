"""Grade: from submissions to a report.

Holds the pytest plugin that turns an exercise's test cells into items run
against a submission, the grading of one submission, of a class (in parallel,
by shard, with cached results), and the filling of the compile store by grading
the reference solutions.

May import: every stage below it; not :mod:`autograder.author` or the command line.
"""
