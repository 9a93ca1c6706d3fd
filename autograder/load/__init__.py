"""Load: the course and the submissions, read as data.

Holds the course's registry of exercises (read from its notebooks and
``_toc.yml``), the finding of submissions under a path, and the reading of one
learner's notebook file. Runs no notebook code and starts no process.

May import: nothing else of the package.
"""
