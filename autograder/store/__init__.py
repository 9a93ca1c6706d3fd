"""The compile store: JAX operations compiled from the reference solutions, read by workers.

Holds where the store lives and how a worker is told of it (:mod:`.folder`), and
the one module of the package that touches JAX's internals
(:mod:`.jax_internals`), which judges what may go into the store. Filling the
store means grading the reference solutions, so that lives with grading
(:mod:`autograder.grade.fill_store`).

May import: nothing else of the package.
"""
