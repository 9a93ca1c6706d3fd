"""What hidden tests import for their generated inputs: a public name kept stable for the
notebooks; the generators live in :mod:`autograder.learner.seeding`."""

from autograder.learner.seeding import (
    CONTAINERS,
    EVERY_KIND,
    array_shape,
    int_leaf,
    mixed_leaf,
    random_tree,
    rng,
    same_tree,
    size,
    subclass_leaf,
)

__all__ = [
    "CONTAINERS",
    "EVERY_KIND",
    "array_shape",
    "int_leaf",
    "mixed_leaf",
    "random_tree",
    "rng",
    "same_tree",
    "size",
    "subclass_leaf",
]
