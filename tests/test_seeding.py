"""Hidden tests' generated inputs: fixed by the seed, independent of test order."""

from __future__ import annotations

import jax
import numpy as np

from autograder.execute import wire
from autograder.learner.seeding import (
    DEFAULT_SEED,
    EVERY_KIND,
    Node,
    current_seed,
    random_tree,
    rng,
    same_tree,
    seeded,
    subclass_leaf,
)


def draw(label: str, n: int = 5) -> list:
    r = rng(label)
    return [random_tree(r) for _ in range(n)]


def test_the_same_seed_draws_the_same_trees():
    with seeded(3):
        first = draw("count_leaves")
    with seeded(3):
        assert draw("count_leaves") == first


def test_another_seed_draws_other_trees():
    with seeded(3):
        first = draw("count_leaves")
    with seeded(4):
        assert draw("count_leaves") != first


def test_a_tests_inputs_do_not_depend_on_what_other_tests_drew():
    with seeded(3):
        alone = draw("count_leaves")
    with seeded(3):
        draw("leaves_in_order", 50)
        assert draw("count_leaves") == alone


def test_the_seed_is_restored_after_the_block():
    with seeded(99):
        assert current_seed() == 99
    assert current_seed() == DEFAULT_SEED


def test_random_trees_are_valid_pytrees_with_nested_containers():
    trees = draw("shape", 40)
    assert all(isinstance(leaf, int) for tree in trees for leaf in jax.tree.leaves(tree))
    assert any(jax.tree.structure(tree).num_nodes > 4 for tree in trees)


def kinds_drawn(trees: list) -> set[str]:
    names = set()
    for tree in trees:
        jax.tree.map(lambda _: None, tree, is_leaf=lambda node: names.add(type(node).__name__))
    return names


def test_by_default_random_trees_hold_only_dicts_lists_tuples_and_ordered_dicts():
    assert kinds_drawn(draw("default", 60)) <= {
        "dict",
        "list",
        "tuple",
        "OrderedDict",
        "int",
        "NoneType",
    }


def test_every_kind_draws_namedtuples_and_registered_nodes_too():
    r = rng("every kind")
    drawn = kinds_drawn([random_tree(r, kinds=EVERY_KIND) for _ in range(60)])
    assert {"One", "Two", "Node", "dict", "list", "tuple", "OrderedDict"} <= drawn


def test_a_drawn_node_is_a_registered_container():
    assert jax.tree.leaves(Node([1, (2, 3)], "relu")) == [1, 2, 3]


def test_subclass_leaves_are_one_leaf_each_whatever_they_hold():
    r = rng("subclass leaves")
    leaves = [subclass_leaf(r) for _ in range(40)]
    assert {type(x).__bases__[0].__name__ for x in leaves} >= {"list", "tuple", "dict", "object"}
    assert jax.tree.leaves(leaves) == leaves


def test_drawn_trees_cross_to_a_worker_and_back_as_the_same_tree():
    r = rng("wire")
    for _ in range(20):
        tree = random_tree(r, kinds=EVERY_KIND, leaf=subclass_leaf)
        assert same_tree(wire.loads(wire.dumps(tree)), tree)


def test_same_tree_tells_apart_a_list_and_a_tuple():
    assert not same_tree([1, 2], (1, 2))


def test_same_tree_tells_apart_dtypes_of_equal_values():
    assert not same_tree({"a": np.ones(2, np.float32)}, {"a": np.ones(2, np.float64)})


def test_same_tree_tells_apart_a_python_int_and_a_float():
    assert not same_tree([1], [1.0])


def test_same_tree_tells_apart_node_aux_data():
    assert not same_tree(Node([1], "relu"), Node([1], "tanh"))


def test_same_tree_tells_apart_a_subclass_leaf_and_its_base():
    r = rng("base")
    row = next(x for x in iter(lambda: subclass_leaf(r), None) if type(x).__name__ == "Row")
    assert not same_tree([row], [list(row)])
