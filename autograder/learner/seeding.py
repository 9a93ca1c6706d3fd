"""Inputs for hidden tests, drawn from a seed.

Hidden tests check a function on trees made here as well as on fixed examples,
so a submission that only memorises the visible examples' answers fails. The
seed is fixed by default, so grading the same submission twice gives the same
report; an instructor can choose another with ``grade --seed`` and the report
records which one was used.

A test asks for ``rng("its own label")``: each label gets its own stream, so the
inputs a test sees do not depend on which other tests ran before it.
"""

from __future__ import annotations

import contextlib
import random
import string
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

DEFAULT_SEED = 0

_seed = DEFAULT_SEED


def current_seed() -> int:
    return _seed


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Draw every hidden input from ``seed`` inside the block."""
    global _seed
    previous, _seed = _seed, seed
    try:
        yield
    finally:
        _seed = previous


def rng(label: str) -> random.Random:
    """A random stream for one test, determined by the current seed and ``label``."""
    return random.Random(f"{_seed}/{label}")


SIZES = (2, 3)
"""The lengths a hidden test draws for an array's axes. Each new shape is a new trace and
compile of the learner's code in a fresh worker, so drawn inputs vary their values and
their trees' structure, and repeat a few shapes."""

SHAPES = ((), (2,), (2, 3))
"""The shapes a hidden test draws for an array (see :data:`SIZES`)."""


def size(r: random.Random) -> int:
    """An axis length, from :data:`SIZES`."""
    return r.choice(SIZES)


def array_shape(r: random.Random) -> tuple[int, ...]:
    """An array's shape, from :data:`SHAPES`."""
    return r.choice(SHAPES)


def int_leaf(r: random.Random) -> int:
    return r.randint(-99, 99)


def mixed_leaf(r: random.Random) -> Any:
    """A leaf that is an array (float32, a random length) or a static Python value."""
    if r.random() < 0.5:
        return np.asarray([r.uniform(-9, 9) for _ in range(r.randint(0, 4))], dtype=np.float32)
    return r.choice([r.randint(0, 9), r.uniform(0, 1), r.choice(["relu", "tanh", "gelu"]), True])


def random_tree(
    r: random.Random,
    depth: int = 3,
    leaf: Callable[[random.Random], Any] = int_leaf,
    empties: bool = True,
) -> Any:
    """A nested tree of dicts (keys in random order), lists, tuples and OrderedDicts.

    With ``empties``, some nodes are None or empty containers.
    """
    if depth == 0 or r.random() < 0.25:
        if empties and r.random() < 0.15:
            return r.choice([None, [], (), {}])
        return leaf(r)
    width = r.randint(1, 3)
    children = [random_tree(r, depth - 1, leaf, empties) for _ in range(width)]
    kind = r.choice(["dict", "list", "tuple", "ordered"])
    if kind in ("dict", "ordered"):
        keys = r.sample(string.ascii_lowercase, width)
        pairs = list(zip(keys, children, strict=True))
        return dict(pairs) if kind == "dict" else OrderedDict(pairs)
    return list(children) if kind == "list" else tuple(children)
