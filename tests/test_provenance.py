"""What the reference run records about each module it compiles, and how it is read."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from autograder import provenance

# Runs in a process of its own: recording patches JAX for the rest of the process.
LOWER_THINGS = textwrap.dedent(
    """
    import sys
    from functools import partial
    from autograder.provenance import record_lowerings
    record_lowerings(sys.argv[1])

    import jax, jax.numpy as jnp
    from jax._src import core, dispatch
    from jax.flatten_util import ravel_pytree
    from jax.interpreters import mlir

    x = jnp.ones((2, 3))
    jnp.stack([x, x])
    x[1:]
    flat, unravel = ravel_pytree({"a": x, "b": jnp.arange(2)})
    unravel(flat)
    def double(v):
        return v * 2
    jax.lax.map(double, x)
    jax.jit(double)(x)

    secret = core.Primitive("stack")
    secret.def_impl(partial(dispatch.apply_primitive, secret))
    secret.def_abstract_eval(lambda v: v)
    mlir.register_lowering(secret, mlir.lower_fun(lambda v: v * 3, multiple_results=False))
    secret.bind(x)
    """
)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, set[str]]:
    folder = tmp_path_factory.mktemp("records")
    subprocess.run([sys.executable, "-c", LOWER_THINGS, str(folder)], check=True)
    kinds = provenance.read_kinds(folder)
    assert kinds is not None
    return kinds


def test_an_eager_jax_primitive_is_recorded_as_a_bare_primitive(recorded):
    assert recorded["jit_broadcast_in_dim"] == {provenance.PRIMITIVE}


def test_numpy_integers_among_a_primitives_parameters_are_plain_data(recorded):
    assert recorded["jit_dynamic_slice"] == {provenance.PRIMITIVE}  # slice sizes are np.int64


def test_a_primitive_with_nothing_to_do_is_a_bare_primitive(recorded):
    assert recorded["jit_convert_element_type"] == {provenance.PRIMITIVE}


def test_an_eager_jax_operation_given_a_function_is_recorded_as_code(recorded):
    assert recorded["jit_scan"] == {provenance.CODE}


def test_a_jitted_function_is_recorded_as_other(recorded):
    assert recorded["jit_double"] == {provenance.OTHER}


def test_a_primitive_registered_after_recording_began_is_not_a_bare_primitive(recorded):
    assert recorded["jit_stack"] == {provenance.PRIMITIVE, provenance.CODE}


def test_kinds_from_every_record_file_are_joined(tmp_path):
    _write(tmp_path / "provenance-a.jsonl", {"module": "jit_stack", "kind": "primitive"})
    _write(tmp_path / "provenance-b.jsonl", {"module": "jit_stack", "kind": "other"})
    assert provenance.read_kinds(tmp_path) == {"jit_stack": {"primitive", "other"}}


def test_no_records_at_all_tell_nothing(tmp_path):
    assert provenance.read_kinds(tmp_path) is None


@pytest.mark.parametrize(
    "line",
    [
        '{"module": "jit_stack", "ki',
        '{"module": "jit_stack"}',
        '{"module": null, "kind": "unreadable"}',
        '{"module": "jit_stack", "kind": "safe"}',
    ],
)
def test_one_unreadable_record_makes_the_whole_record_unreadable(tmp_path, line):
    _write(tmp_path / "provenance-a.jsonl", {"module": "jit_tanh", "kind": "primitive"})
    with (tmp_path / "provenance-b.jsonl").open("a") as records:
        records.write(line + "\n")
    assert provenance.read_kinds(tmp_path) is None


def _write(path, record: dict) -> None:
    with path.open("a") as records:
        records.write(json.dumps(record) + "\n")
