"""Sealed reference solutions: only the right answers open them."""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np
import pytest

from autograder.author.seal import reference_namespace
from autograder.learner.probes import probe_results
from autograder.learner.sealing import SealError, canonical, fingerprint, seal, unseal

KEY = fingerprint("leaves/count_leaves", [3, [1, 2]])


def test_the_right_key_opens_a_seal():
    assert unseal(seal("def f():\n    return 1\n", KEY), KEY) == "def f():\n    return 1\n"


def test_another_key_does_not_open_it():
    sealed = seal("secret", KEY)
    with pytest.raises(SealError):
        unseal(sealed, fingerprint("leaves/count_leaves", [3, [2, 1]]))


def test_a_damaged_seal_is_refused():
    with pytest.raises(SealError):
        unseal("not base64 at all!", KEY)


def test_the_seal_does_not_contain_the_text():
    assert "return 42" not in seal("def f():\n    return 42\n", KEY)


def test_sealing_is_deterministic_so_regenerating_changes_nothing():
    assert seal("same text", KEY) == seal("same text", KEY)


def test_tiny_float_differences_give_the_same_key():
    assert fingerprint("f", [0.1 * 3]) == fingerprint("f", [0.3])
    assert canonical(np.float32(0.1) * 3) == canonical(np.float64(0.3))
    assert canonical(np.array([-0.0, 1.0])) == canonical(np.array([0.0, 1.0]))


def test_container_types_and_order_change_the_key():
    assert fingerprint("f", [[1, 2]]) != fingerprint("f", [(1, 2)])
    assert fingerprint("f", [OrderedDict(a=1, b=2)]) != fingerprint("f", [OrderedDict(b=2, a=1)])
    assert fingerprint("f", [{"a": 1, "b": 2}]) == fingerprint("f", [{"b": 2, "a": 1}])


def test_typed_prng_keys_are_described_by_their_implementation_and_data():
    import jax

    key = jax.random.key(1)
    assert canonical(key) == canonical(jax.random.wrap_key_data(jax.random.key_data(key)))
    assert canonical(key) != canonical(jax.random.key(2))
    assert canonical(key) != canonical(jax.random.key_data(key))


def test_the_function_label_is_part_of_the_key():
    assert fingerprint("leaves/f", [1]) != fingerprint("leaves/g", [1])


def test_making_a_key_is_slow_enough_to_make_guessing_costly():
    started = time.perf_counter()
    fingerprint("leaves/is_leaf_type", [True, False])
    assert time.perf_counter() - started > 0.05


def test_functions_with_yes_or_no_answers_have_enough_probes_to_resist_guessing(course):
    for notebook in course.notebooks:
        namespace = reference_namespace(notebook)
        for function in notebook.functions:
            results = probe_results(function, namespace)
            if all(isinstance(r, bool) for r in results):
                assert len(results) >= 24 and len(set(results)) == 2, function.name
