"""Errors teach: the errors this course's topics produce are named in the course's terms."""

from __future__ import annotations

import re

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from autograder.compare.explain import POINTERS, explain
from autograder.compare.failures import LearnerError
from autograder.compare.verdicts import run_test_cell
from autograder.execute.worker import Worker
from autograder.load.course import TestCell, hidden_lines


@jax.tree_util.register_pytree_node_class
class WithAux:
    def __init__(self, x, aux):
        self.x, self.aux = x, aux

    def tree_flatten(self):
        return (self.x,), self.aux

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux)


class _EqxModule(eqx.Module):
    w: jax.Array
    act: str = eqx.field(static=True, default="tanh")


def _module() -> _EqxModule:
    return _EqxModule(jnp.ones(2))


def _mlp() -> eqx.nn.MLP:
    return eqx.nn.MLP(in_size=2, out_size=1, width_size=2, depth=1, key=jax.random.key(0))


class _NnxNet(nnx.Module):
    def __init__(self, rngs):
        self.layers = [nnx.Linear(2, 2, rngs=rngs)]


class BareKeys:
    def __init__(self, a, b):
        self.a, self.b = a, b


jax.tree_util.register_pytree_with_keys(
    BareKeys, lambda node: ((node.a, node.b), None), lambda aux, children: BareKeys(*children)
)


def _array_in_aux_data():
    f = jax.jit(lambda node: node.x)
    f(WithAux(jnp.ones(2), jnp.ones(3)))
    f(WithAux(jnp.ones(2), jnp.ones(3)))


def _leaked_tracer():
    kept = []
    jax.jit(lambda x: kept.append(x) or x)(1.0)
    return kept[0] + 1


def _mesh():
    return jax.make_mesh((4, 2), ("data", "model"))


def _sharding(spec):
    return NamedSharding(_mesh(), spec)


_PAIR = {"w": jnp.ones((8, 4)), "b": jnp.ones(4)}


# Each error as the course's topics produce it on the pinned JAX, and the section it points to.
ERRORS = {
    "array in aux_data": (_array_in_aux_data, "aux_data → Arrays do not belong in aux_data"),
    "structures differ in tree.map": (
        lambda: jax.tree.map(lambda a, b: a, {"a": 1}, {"b": 1}),
        "Mapping → The first tree is a prefix",
    ),
    "leaked tracer": (_leaked_tracer, "Pytrees through transformations → Pytrees in, pytrees out"),
    "concretization": (
        lambda: jax.jit(lambda x: 1 if x > 0 else 2)(1.0),
        "aux_data → Children and aux_data",
    ),
    "non-hashable static argument": (
        lambda: jax.jit(lambda x, s: x, static_argnums=1)(1.0, [1]),
        "aux_data → aux_data is part of jit's cache key",
    ),
    "int leaf under grad": (
        lambda: jax.grad(lambda p: p["a"] * 1.0)({"a": 1}),
        "Pytrees through transformations → grad rejects int leaves",
    ),
    "in_axes not a prefix": (
        lambda: jax.vmap(lambda x: x, in_axes=({"a": 0},))({"b": jnp.ones(2)}),
        "Pytrees through transformations → in_axes is a prefix tree",
    ),
    "shared value mapped": (
        lambda: jax.vmap(lambda x, y: x + y)(jnp.ones(2), 1.0),
        "Pytrees through transformations → None is a leaf in in_axes",
    ),
    "registered twice": (
        lambda: jax.tree_util.register_pytree_node(
            WithAux, lambda n: ((), None), lambda a, c: None
        ),
        "Custom nodes → Register a type once",
    ),
    "scan carry of another tree": (
        lambda: jax.lax.scan(lambda c, x: ({**c, "n": 1}, None), {"s": 0.0}, jnp.ones(2)),
        "Control flow over trees → The carry keeps its treedef",
    ),
    "scan carry of another dtype": (
        lambda: jax.lax.scan(lambda c, x: (c + x, None), jnp.int32(0), jnp.ones(2)),
        "Control flow over trees → Same shapes and dtypes at every leaf",
    ),
    "cond branches of different trees": (
        lambda: jax.lax.cond(True, lambda: {"a": 1.0}, lambda: None),
        "Control flow over trees → cond and switch return one structure",
    ),
    "switch branches of different dtypes": (
        lambda: jax.lax.switch(0, [lambda: 1.0, lambda: jnp.int32(1)]),
        "Control flow over trees → cond and switch return one structure",
    ),
    "xs of different lengths": (
        lambda: jax.lax.scan(lambda c, x: (c, None), 0.0, [jnp.ones(2), jnp.ones(3)]),
        "Control flow over trees → Scanning over a tree of stacked arrays",
    ),
    "a function as a leaf under jit": (
        lambda: jax.jit(lambda tree: tree["w"])({"w": jnp.ones(2), "act": jnp.tanh}),
        "Static data and functions in trees → What a leaf may be under jit",
    ),
    "a string returned from jit": (
        lambda: jax.jit(lambda x: {"y": x, "label": "hidden"})(jnp.ones(2)),
        "Static data and functions in trees → What a leaf may be under jit",
    ),
    "a string returned alone from jit": (
        lambda: jax.jit(lambda x: "hidden")(jnp.ones(2)),
        "Static data and functions in trees → What a leaf may be under jit",
    ),
    "transpose with the wrong inner structure": (
        lambda: jax.tree.transpose(
            jax.tree.structure([0, 0]), jax.tree.structure({"a": 0, "b": 0}), [{"x": 1}, {"x": 2}]
        ),
        "The treedef and key API → Transposing a tree of trees",
    ),
    "a None of a prefix over a subtree": (
        lambda: jax.tree.structure({"frozen": None, "w": 0}).flatten_up_to(
            {"frozen": [1.0], "w": 2.0}
        ),
        "The treedef and key API → Flattening up to a prefix",
    ),
    "bare children from flatten_with_keys": (
        lambda: jax.tree.flatten_with_path(BareKeys(1.0, 2.0)),
        "The treedef and key API → Registering nodes with keys",
    ),
    "key data of another implementation": (
        lambda: jax.random.wrap_key_data(np.zeros(4, np.uint32)),
        "Checkpoints → PRNG keys in a checkpoint",
    ),
    "an assignment to an Equinox module": (
        lambda: setattr(_module(), "w", jnp.zeros(2)),
        "The libraries' own trees → Frozen modules and eqx.tree_at",
    ),
    "tree_at on a static field": (
        lambda: eqx.tree_at(lambda module: module.act, _module(), "relu"),
        "The libraries' own trees → Frozen modules and eqx.tree_at",
    ),
    "Optax initialised on a model with function leaves": (
        lambda: optax.adam(1e-3).init(_mlp()),
        "The libraries' own trees → Optax on an Equinox model",
    ),
    "a plain list of NNX modules": (
        lambda: _NnxNet(nnx.Rngs(0)),
        "The libraries' own trees → NNX: a GraphDef and a State",
    ),
    "a tree without leaves reduced without an initializer": (
        lambda: jax.tree.reduce(lambda total, leaf: total + leaf, {"frozen": None}),
        "Mapping → Reducing a tree",
    ),
    "unflatten with too few leaves": (
        lambda: jax.tree.unflatten(jax.tree.structure([1, 2]), [1]),
        "Structure → What unflatten checks",
    ),
    # Trees across devices
    "a shardings tree that lacks a key, under jit": (
        lambda: jax.jit(lambda t: t, in_shardings=({"w": _sharding(P())},))(_PAIR),
        "Trees across devices → A tree of specs is a prefix of the parameter tree",
    ),
    "a shardings tree that lacks a key, under device_put": (
        lambda: jax.device_put(_PAIR, {"w": _sharding(P())}),
        "Trees across devices → A tree of specs is a prefix of the parameter tree",
    ),
    "an in_specs tree that lacks a key": (
        lambda: jax.shard_map(lambda t: t, mesh=_mesh(), in_specs=({"w": P()},), out_specs=P())(
            _PAIR
        ),
        "Trees across devices → A tree of specs is a prefix of the parameter tree",
    ),
    "a spec longer than the rank, under jit": (
        lambda: jax.jit(lambda t: t, in_shardings=(_sharding(P("data", "model")),))(_PAIR),
        "Trees across devices → A tree of specs is a prefix of the parameter tree",
    ),
    "a spec longer than the rank, under device_put": (
        lambda: jax.device_put(jnp.ones(4), _sharding(P("data", "model"))),
        "Trees across devices → A tree of specs is a prefix of the parameter tree",
    ),
    "a dimension the axis does not divide": (
        lambda: jax.device_put(jnp.ones((6, 4)), _sharding(P("data"))),
        "Trees across devices → A PartitionSpec says which axis splits which dimension",
    ),
    "a dimension the axis does not divide, under jit": (
        lambda: jax.jit(lambda x: x, in_shardings=(_sharding(P("data")),))(jnp.ones((6, 4))),
        "Trees across devices → A PartitionSpec says which axis splits which dimension",
    ),
    "an axis the mesh lacks": (
        lambda: jax.device_put(jnp.ones(8), _sharding(P("expert"))),
        "Trees across devices → A mesh names the devices' axes",
    ),
    "specs given to jit without a mesh": (
        lambda: jax.jit(lambda t: t, in_shardings=({"w": P(), "b": P()},))(_PAIR),
        "Trees across devices → jit with trees of shardings",
    ),
    "a spec given to device_put without a mesh": (
        lambda: jax.device_put(jnp.ones(8), P("data")),
        "Trees across devices → jit with trees of shardings",
    ),
    "shard_map given arguments not laid out": (
        lambda: jax.shard_map(lambda x: x, mesh=_mesh(), in_specs=P("data"), out_specs=P("data"))(
            jnp.ones(8)
        ),
        "Trees across devices → shard_map with spec trees",
    ),
    "shard_map returning a block as replicated": (
        lambda: jax.shard_map(lambda x: x.sum(), mesh=_mesh(), in_specs=P("data"), out_specs=P())(
            jax.device_put(jnp.ones(8), _sharding(P("data")))
        ),
        "Trees across devices → shard_map with spec trees",
    ),
    # Randomness and stacking over trees
    "arithmetic on a typed key": (
        lambda: jax.tree.map(lambda leaf: leaf * 0.9, {"w": jnp.ones(2), "rng": jax.random.key(0)}),
        "Randomness and stacking over trees → Typed keys as leaves",
    ),
    "an Equinox module out of jax.vmap": (
        lambda: jax.vmap(lambda key: _mlp())(jax.random.split(jax.random.key(0), 2)),
        "Randomness and stacking over trees → filter_vmap and nnx.vmap",
    ),
}


def _raised(produce) -> BaseException:
    with pytest.raises(Exception) as info:
        produce()
    return info.value


@pytest.mark.parametrize("case", ERRORS)
def test_a_course_error_points_to_its_section(case):
    produce, section = ERRORS[case]
    error = _raised(produce)
    pointer = explain(type(error).__name__, str(error))
    assert pointer is not None and pointer.section == section


def test_an_if_on_a_tracer_points_to_cond_in_the_control_flow_exercise_only():
    error = _raised(lambda: jax.jit(lambda x: 1 if x > 0 else 2)(1.0))
    here = explain(type(error).__name__, str(error), chapter="control_flow")
    elsewhere = explain(type(error).__name__, str(error), chapter="aux_data")
    assert here.section == "Control flow over trees → cond and switch return one structure"
    assert elsewhere.section == "aux_data → Children and aux_data"


def test_a_list_indexed_by_a_tracer_points_to_switch_in_the_control_flow_exercise_only():
    error = _raised(lambda: jax.jit(lambda kind, x: [x, x + 1][kind])(1, 1.0))
    here = explain(type(error).__name__, str(error), chapter="control_flow")
    elsewhere = explain(type(error).__name__, str(error), chapter="aux_data")
    assert here.section == "Control flow over trees → cond and switch return one structure"
    assert elsewhere.section == "aux_data → Children and aux_data"


def test_an_if_on_an_array_points_to_cond_in_the_control_flow_exercise_only():
    def skip_if_not_finite(grad):
        if jnp.isfinite(grad):
            return grad
        return jnp.zeros_like(grad)

    error = _raised(lambda: skip_if_not_finite(jnp.array([1.0, jnp.nan])))
    assert "truth value of an array with more than one element is ambiguous" in str(error)
    here = explain(type(error).__name__, str(error), chapter="control_flow")
    assert here.section == "Control flow over trees → cond and switch return one structure"
    assert explain(type(error).__name__, str(error), chapter="aux_data") is None


def test_a_missing_path_points_to_restoring_in_the_checkpoints_exercise_only():
    error = _raised(lambda: {"['b']": 1}[jax.tree_util.keystr((jax.tree_util.DictKey("w"),))])
    here = explain(type(error).__name__, str(error), chapter="checkpoints")
    assert here.section == "Checkpoints → Restoring into a template"
    assert explain(type(error).__name__, str(error), chapter="mapping") is None


def test_a_tuple_of_shapes_given_to_ones_points_to_the_tree_of_shapes_trap_in_mapping_only():
    shapes = ((2,), (3, 1))
    error = _raised(lambda: jax.tree.map(jnp.ones, [shapes], is_leaf=lambda n: type(n) is tuple))
    here = explain(type(error).__name__, str(error), chapter="mapping")
    assert here.section == "Mapping → The tree-of-shapes trap"
    assert explain(type(error).__name__, str(error), chapter="transformations") is None


def test_key_data_of_another_dtype_points_to_prng_keys_in_checkpoints():
    error = _raised(lambda: jax.random.wrap_key_data(np.zeros(2, np.int32)))
    pointer = explain(type(error).__name__, str(error))
    assert pointer.section == "Checkpoints → PRNG keys in a checkpoint"


def test_a_module_as_labels_points_to_optax_on_equinox_in_the_libraries_exercise_only():
    arrays = eqx.filter(_mlp(), eqx.is_array)
    labels = jax.tree.map(lambda _: "train", arrays)
    error = _raised(lambda: optax.multi_transform({"train": optax.sgd(0.1)}, labels).init(arrays))
    here = explain(type(error).__name__, str(error), chapter="libraries")
    assert here.section == "The libraries' own trees → Optax on an Equinox model"
    assert explain(type(error).__name__, str(error), chapter="mapping") is None


def test_a_returned_array_of_python_objects_points_to_what_an_array_holds():
    worker = Worker()
    source = (
        "import numpy as np\n"
        "def f():\n"
        "    return np.array([np.ones(2), np.ones(3)], dtype=object)\n"
    )
    assert worker.exec_cell(1, source)["ok"]
    reply = worker.handle({"op": "call", "name": "f", "args": [], "kwargs": {"$dict": []}})
    error = reply["error"]
    pointer = explain(error["type"], error["message"])
    assert pointer is not None and pointer.section == "Leaves → Containers and leaves"


def test_optax_updates_added_to_functions_point_to_optax_on_equinox_in_libraries_only():
    model = _mlp()
    updates = jax.tree.map(jnp.zeros_like, eqx.filter(model, eqx.is_array))
    error = _raised(lambda: optax.apply_updates(model, updates))
    here = explain(type(error).__name__, str(error), chapter="libraries")
    assert here.section == "The libraries' own trees → Optax on an Equinox model"
    assert explain(type(error).__name__, str(error), chapter="mapping") is None


def test_vmap_over_a_count_points_to_stacks_by_vmap_in_the_stacking_exercise_only():
    error = _raised(lambda: jax.vmap(lambda key: jax.random.normal(key, (2,)))(3))
    here = explain(type(error).__name__, str(error), chapter="stacking")
    elsewhere = explain(type(error).__name__, str(error), chapter="transformations")
    assert here.section == "Randomness and stacking over trees → A stack of layers by vmap"
    assert elsewhere.section == "Pytrees through transformations → None is a leaf in in_axes"


def test_layers_of_different_shapes_stacked_point_to_stacks_in_the_stacking_exercise_only():
    layers = [{"w": jnp.ones((2, 2))}, {"w": jnp.ones((3, 3))}]
    error = _raised(lambda: jax.tree.map(lambda *leaves: jnp.stack(leaves), *layers))
    here = explain(type(error).__name__, str(error), chapter="stacking")
    assert here.section == "Randomness and stacking over trees → A stack of layers by vmap"
    assert explain(type(error).__name__, str(error), chapter="mapping") is None


def test_an_error_outside_the_course_topics_gets_no_pointer():
    assert explain("ZeroDivisionError", "division by zero") is None


def test_every_pointer_is_exercised_by_a_real_error():
    sections = {section for _, section in ERRORS.values()}
    # a pointer kept to some chapters has a test of its own, below
    everywhere = {pointer.section for _, pointer in POINTERS if not pointer.only_in}
    assert everywhere - sections <= {"Leaves → Flattening order", "Leaves → Containers and leaves"}


SOURCE = "assert f(1) == 2, 'f(1) should be 2'\n"
CELL = TestCell("test_f", "f", 1.0, SOURCE, hidden_lines(SOURCE))


class Remote:
    """A stand-in that raises as the grader's stand-ins do when the learner's code raised."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __call__(self, *args):
        info = {"type": type(self.error).__name__, "message": str(self.error)}
        raise LearnerError("f", info)


def test_the_graders_message_names_the_idea_then_shows_jaxs_own():
    error = _raised(_array_in_aux_data)
    verdict = run_test_cell(CELL, {"f": Remote(error)}, "nb.ipynb")
    first, _, rest = verdict.message.partition("\n")
    assert verdict.outcome == "error"
    assert "Reread aux_data → Arrays do not belong in aux_data." in first
    assert str(error).splitlines()[0] in rest


def test_check_in_the_notebook_names_the_idea_too():
    def f(x):
        return jax.grad(lambda p: p * 1.0)(x)

    verdict = run_test_cell(CELL, {"f": f}, "nb.ipynb")
    assert "Reread Pytrees through transformations → grad rejects int leaves." in verdict.message
    assert "grad requires real- or complex-valued inputs" in verdict.message


def test_every_pointer_has_an_id_of_its_own():
    ids = [pointer.id for _, pointer in POINTERS]
    assert sorted(i for i in set(ids) if ids.count(i) > 1) == []
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)
