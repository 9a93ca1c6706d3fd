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
from collections import OrderedDict, namedtuple
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


CONTAINERS = ("dict", "list", "tuple", "ordered")
"""The containers :func:`random_tree` draws by default: dicts (keys in random order),
lists, tuples and OrderedDicts."""

EVERY_KIND = (*CONTAINERS, "namedtuple", "node")
"""Every container :func:`random_tree` can draw: also namedtuples and :class:`Node`,
a class registered as a pytree node."""


class Node:
    """A pytree node registered with JAX: ``children`` in a list, ``aux`` plain data.

    Registered without keys, so its children's paths are ``FlattenedIndexKey``s,
    as those of the stand-in of the same name that a learner's worker rebuilds it
    as (a registered node crosses to the worker as its name, children and aux).
    """

    def __init__(self, children: list[Any], aux: Any) -> None:
        if not _node_registered:
            _register_node()
        self.children = list(children)
        self.aux = aux

    def __repr__(self) -> str:
        return f"Node(children={self.children!r}, aux={self.aux!r})"


_node_registered = False


def _register_node() -> None:
    """Register :class:`Node` with JAX, once, when the first one is made: no Node reaches
    JAX before it is made, and importing this module then imports no JAX (1.3 s of
    every command's start, ``insight`` and ``status`` included, that make none)."""
    global _node_registered
    import jax

    jax.tree_util.register_pytree_node(
        Node, lambda node: (node.children, node.aux), lambda aux, ch: Node(list(ch), aux)
    )
    _node_registered = True


class Row(list):
    """A subclass of list: a leaf to JAX, which registers types exactly."""


class Record(dict):
    """A subclass of dict: a leaf to JAX."""


class Couple(tuple):  # noqa: SLOT001 - a plain subclass, as a learner would write
    """A subclass of tuple: a leaf to JAX."""


_NAMEDTUPLES = {
    width: namedtuple(name, list("abc"[:width]), module=__name__)
    for width, name in ((1, "One"), (2, "Two"), (3, "Three"))
}


def subclass_leaf(r: random.Random) -> Any:
    """An int, or an instance of a subclass of list, tuple or dict holding ints.

    Such an instance is one leaf to JAX, whatever it holds: registration is per
    exact type.
    """
    kind = r.choice(["int", "list", "tuple", "dict"])
    items = [int_leaf(r) for _ in range(r.randint(0, 2))]
    if kind == "list":
        return Row(items)
    if kind == "tuple":
        return Couple(items)
    if kind == "dict":
        return Record(zip(r.sample(string.ascii_lowercase, len(items)), items, strict=True))
    return int_leaf(r)


def random_tree(
    r: random.Random,
    depth: int = 3,
    leaf: Callable[[random.Random], Any] = int_leaf,
    empties: bool = True,
    kinds: tuple[str, ...] = CONTAINERS,
) -> Any:
    """A nested tree of the containers named in ``kinds`` (see :data:`EVERY_KIND`).

    With ``empties``, some nodes are None or empty containers.
    """
    if depth == 0 or r.random() < 0.25:
        if empties and r.random() < 0.15:
            return r.choice([None, [], (), {}])
        return leaf(r)
    width = r.randint(1, 3)
    children = [random_tree(r, depth - 1, leaf, empties, kinds) for _ in range(width)]
    kind = r.choice(kinds)
    if kind in ("dict", "ordered"):
        keys = r.sample(string.ascii_lowercase, width)
        pairs = list(zip(keys, children, strict=True))
        return dict(pairs) if kind == "dict" else OrderedDict(pairs)
    if kind == "namedtuple":
        return _NAMEDTUPLES[width](*children)
    if kind == "node":
        return Node(children, r.choice(["relu", "tanh", 0, 1]))
    return list(children) if kind == "list" else tuple(children)


def same_tree(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same tree: the same containers (by type name),
    keys and node aux, and leaves equal in value and dtype.

    Compares by type name because a registered node returned by a learner's worker
    is a stand-in class of the same name, not the class that made the input.
    """
    import jax

    leaves_a, def_a = jax.tree.flatten(a)
    leaves_b, def_b = jax.tree.flatten(b)
    if len(leaves_a) != len(leaves_b) or not _same_structure(def_a, def_b):
        return False
    return all(_same_leaf(x, y) for x, y in zip(leaves_a, leaves_b, strict=True))


def _same_structure(a: Any, b: Any) -> bool:
    data_a, data_b = a.node_data(), b.node_data()
    if data_a is None or data_b is None:  # a leaf
        return data_a is None and data_b is None
    (type_a, aux_a), (type_b, aux_b) = data_a, data_b
    if type_a.__name__ != type_b.__name__ or _aux(aux_a) != _aux(aux_b):
        return False
    children_a, children_b = a.children(), b.children()
    return len(children_a) == len(children_b) and all(
        _same_structure(x, y) for x, y in zip(children_a, children_b, strict=True)
    )


def _aux(aux: Any) -> Any:
    """aux_data as comparable data: a namedtuple's class and a dict's keys compare as text."""
    if isinstance(aux, type):
        return (aux.__name__, getattr(aux, "_fields", None))
    return aux


def _same_leaf(x: Any, y: Any) -> bool:
    if isinstance(x, np.ndarray | np.generic) or hasattr(x, "dtype"):
        x_arr, y_arr = np.asarray(x), np.asarray(y)
        return (
            hasattr(y, "dtype")
            and x_arr.dtype == y_arr.dtype
            and x_arr.shape == y_arr.shape
            and bool(np.array_equal(x_arr, y_arr, equal_nan=x_arr.dtype.kind in "fc"))
        )
    if hasattr(y, "dtype"):
        return False
    return type(x).__name__ == type(y).__name__ and x == y
