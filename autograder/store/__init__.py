"""The compile store: JAX's own operations, compiled for the course's shapes, read by workers.

Holds where the store lives and how a worker is told of it (:mod:`.folder`),
calls written down as plain data and replayed from it (:mod:`.calls`), the
process that fills the store by replaying them (:mod:`.replay`), and the one
module of the package that touches JAX's internals (:mod:`.jax_internals`),
which hears of the calls the reference run compiles. Grading the reference
solutions to record those calls lives with grading
(:mod:`autograder.grade.fill_store`).

May import: nothing else of the package.
"""
