"""The course author's tools: seal, generate, release, Gradescope bundle, new chapter.

Each derives something from ``solutions/`` and the book: the sealed reference
solutions, the exercise notebooks (through nbgrader), the learners' repository,
a Gradescope autograder zip, and the files of a new chapter. ``gradescope_try``
runs such a zip's own scripts, as Gradescope would, in a folder of its own.

May import: :mod:`autograder.load`, :mod:`autograder.learner`; not the grading
machinery (a contract checks it).
"""
