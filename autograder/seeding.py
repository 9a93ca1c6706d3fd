"""What hidden tests import for their generated inputs: a public name kept stable for the
notebooks; the generators live in :mod:`autograder.learner.seeding`."""

from autograder.learner.seeding import int_leaf, mixed_leaf, random_tree, rng

__all__ = ["int_leaf", "mixed_leaf", "random_tree", "rng"]
