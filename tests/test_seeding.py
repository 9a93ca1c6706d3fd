"""Hidden tests' generated inputs: fixed by the seed, independent of test order."""

from __future__ import annotations

import jax

from autograder.learner.seeding import DEFAULT_SEED, current_seed, random_tree, rng, seeded


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
