"""What the reference run records about each module it compiles, and how it is read."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from autograder.store import jax_internals as provenance

# Runs in a process of its own: recording patches JAX for the rest of the process.
LOWER_THINGS = textwrap.dedent(
    """
    import sys
    from functools import partial, wraps
    from autograder.store.jax_internals import record_lowerings
    record_lowerings(sys.argv[1])

    import jax, jax.numpy as jnp
    from jax._src import core, dispatch
    from jax.flatten_util import ravel_pytree
    from jax.interpreters import mlir

    x = jnp.ones((2, 3))
    jnp.stack([x, x])
    x[1:]
    x @ x.T
    flat, unravel = ravel_pytree({"a": x, "b": jnp.arange(2)})
    unravel(flat)
    jax.grad(lambda v: (v * v).sum())(x)

    def double(v):
        return v * 2
    class Doubler:
        def __call__(self, v):
            return v * 2
    jax.lax.map(double, x)
    jax.jit(double)(x)
    jnp.piecewise(x, [x > 0], [double])
    jax.jit(Doubler())(x)
    jax.jit(partial(jax.tree.map, jax.jit(double, inline=True)))(x)
    inline_partial = jax.jit(partial(jax.tree.map, double), inline=True)
    jax.jit(partial(jax.tree_util.tree_map, inline_partial))(x)
    def double_at(path, v):
        return v * 2
    inline_wrapper = jax.jit(wraps(jnp.tanh)(double_at), inline=True)
    jax.jit(partial(jax.tree_util.tree_map_with_path, inline_wrapper))(x)
    jax.jit(jnp.arange(6.0).reshape(2, 3).__sub__)(x)

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


JUDGED = {
    "an eager JAX primitive is JAX's own": ("jit_broadcast_in_dim", {"jax"}),
    "numpy integers among parameters are plain data": ("jit_dynamic_slice", {"jax"}),
    "a primitive with nothing to do is JAX's own": ("jit_convert_element_type", {"jax"}),
    "a jitted JAX function is JAX's own": ("jit_matmul", {"jax"}),
    "a primitive bound by a gradient is JAX's own": ("jit_mul", {"jax"}),
    "a function defined outside JAX is code": ("jit_double", {"code"}),
    "a JAX operation given a function is code": ("jit_scan", {"code"}),
    "a JAX function that calls a given function is code": ("jit__piecewise", {"code"}),
    "a jitted callable object is code": ("jit__unnamed_function", {"code"}),
    "a function inlined into JAX's code is code": ("jit_map", {"code"}),
    "a partial inlined into JAX's code is code": ("jit_tree_map", {"code"}),
    "a function posing as JAX's inlined into JAX's code is code": (
        "jit_tree_map_with_path",
        {"code"},
    ),
    "a JAX function closing over an array is code": ("jit__operator_sub", {"code"}),
    # jnp.stack first, then the primitive LOWER_THINGS registers under the same name
    "a primitive registered after recording began is code": ("jit_stack", {"jax", "code"}),
}


@pytest.mark.parametrize(("module", "kinds"), JUDGED.values(), ids=JUDGED.keys())
def test_each_module_is_recorded_as_what_it_holds(recorded, module, kinds):
    assert recorded[module] == kinds


OVERRIDE_A_RULE = textwrap.dedent(
    """
    import sys
    from autograder.store.jax_internals import record_lowerings
    record_lowerings(sys.argv[1])

    import jax.numpy as jnp
    from jax import lax
    from jax.interpreters import mlir

    jnp.negative(jnp.ones(2))
    mlir.register_lowering(lax.neg_p, mlir.lower_fun(lambda v: v * 3, False), platform="cpu")
    jnp.negative(jnp.ones(3))
    """
)


def test_a_jax_primitive_lowered_with_a_rule_registered_later_is_code(tmp_path):
    subprocess.run([sys.executable, "-c", OVERRIDE_A_RULE, str(tmp_path)], check=True)
    assert provenance.read_kinds(tmp_path)["jit_negative"] == {"jax", "code"}


COURSE_GRADIENT = textwrap.dedent(
    """
    import sys
    from functools import partial
    from autograder.store.jax_internals import record_lowerings
    record_lowerings(sys.argv[1])

    import jax, jax.numpy as jnp

    @jax.custom_vjp
    def f(v):
        return v
    f.defvjp(lambda v: (v, None), lambda _, g: (g * 3.0,))
    jax.jit(partial(jax.tree.map, jax.grad(f)))(jnp.ones(()))
    """
)


def test_a_gradient_rule_written_outside_jax_makes_what_follows_code(tmp_path):
    subprocess.run([sys.executable, "-c", COURSE_GRADIENT, str(tmp_path)], check=True)
    assert provenance.read_kinds(tmp_path)["jit_map"] == {provenance.CODE}


SAME_MODULE = textwrap.dedent(
    """
    import sys
    import jax
    from autograder.store.jax_internals import record_lowerings

    def draw(key):
        return jax.random.normal(key, (3,)) + jax.numpy.tanh(jax.random.uniform(key, (3,)))

    def lowered():
        jax.clear_caches()
        return jax.jit(draw).lower(jax.random.key(0)).as_text()

    before = lowered()
    record_lowerings(sys.argv[1])
    sys.exit(0 if lowered() == before else 1)
    """
)


def test_recording_leaves_what_jax_compiles_for_its_own_code_unchanged(tmp_path):
    subprocess.run([sys.executable, "-c", SAME_MODULE, str(tmp_path)], check=True)


def test_kinds_from_every_record_file_are_joined(tmp_path):
    _write(tmp_path / "provenance-a.jsonl", {"module": "jit_stack", "kind": "jax"})
    _write(tmp_path / "provenance-b.jsonl", {"module": "jit_stack", "kind": "code"})
    assert provenance.read_kinds(tmp_path) == {"jit_stack": {"jax", "code"}}


def test_no_records_at_all_tell_nothing(tmp_path):
    assert provenance.read_kinds(tmp_path) is None


@pytest.mark.parametrize(
    "line",
    [
        '{"module": "jit_stack", "ki',
        '{"module": "jit_stack"}',
        '{"module": null, "kind": "unreadable"}',
        '{"module": "jit_stack", "kind": "safe"}',
        "\udcff",
    ],
)
def test_one_unreadable_record_makes_the_whole_record_unreadable(tmp_path, line):
    _write(tmp_path / "provenance-a.jsonl", {"module": "jit_tanh", "kind": "jax"})
    with (tmp_path / "provenance-b.jsonl").open("ab") as records:
        records.write((line + "\n").encode("utf-8", "surrogateescape"))  # \udcff: not UTF-8
    assert provenance.read_kinds(tmp_path) is None


def _write(path, record: dict) -> None:
    with path.open("a") as records:
        records.write(json.dumps(record) + "\n")
