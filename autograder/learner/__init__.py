"""The learner's helpers: what runs in the learner's own kernel beside their code.

Holds ``check``, ``hint`` and ``solution`` (:mod:`.feedback`), the progress file and
``status`` (:mod:`.status`, on a terminal and in a notebook),
the watchers test cells call, the seeded inputs of hidden tests, the sealing
of reference solutions, and whether the kernel still runs a JAX it imported before
pip replaced it (:mod:`.kernel_jax`). The notebooks import them through the package's public
modules :mod:`autograder.notebook`, :mod:`autograder.watchers` and
:mod:`autograder.seeding`.

May import: :mod:`autograder.load`, :mod:`autograder.compare`,
:mod:`autograder.safe_text`; never the grading
machinery (workers, isolation, the compile store, grading, reports).
"""
