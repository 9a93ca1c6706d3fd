"""Watchers see the learner's code run and answer with plain data, in a kernel or a worker."""

from __future__ import annotations

import re
import sys

import jax
import jax.numpy as jnp
import pytest
from jax.sharding import PartitionSpec as P

from autograder.execute import wire
from autograder.execute.worker import Worker
from autograder.learner.watchers import (
    WatcherError,
    WatchUntrusted,
    arguments_after,
    count_traces,
    describe,
    kept_for_backward,
    leaf_shardings,
    leaf_types,
    round_trip,
    watch_calls,
    watch_calls_and_result,
)

NOTEBOOK = """
import sys

import jax
import jax.numpy as jnp
from jax import vmap


@jax.jit
def _double(x):
    return x * 2


def uses_helper(x):
    return _double(x)


def skips_helper(x):
    return x * 2


def maps_with_alias(x):
    return vmap(lambda row: row.sum(), in_axes=0)(x)


def maps_by_attribute(x):
    return jax.vmap(lambda row: row.sum(), (0,))(x)
"""


@pytest.fixture
def notebook() -> dict:
    namespace: dict = {"__name__": "__main__"}
    exec(compile(NOTEBOOK, "<cell 1>", "exec"), namespace)
    return namespace


def test_count_traces_counts_a_trace_per_new_shape_and_none_for_a_repeat(notebook):
    calls = [(jnp.ones(2),), (jnp.zeros(2),), (jnp.ones(3),)]
    assert count_traces(notebook["uses_helper"], calls, inside="_double") == [1, 0, 1]


def test_count_traces_counts_a_jitted_functions_own_traces(notebook):
    calls = [(jnp.ones(2),), (jnp.zeros(2),)]
    assert count_traces(notebook["_double"], calls, inside="_double") == [1, 0]


def test_count_traces_refuses_a_function_that_is_not_jitted(notebook):
    with pytest.raises(WatcherError, match="not a jitted function"):
        count_traces(notebook["skips_helper"], [(jnp.ones(2),)], inside="skips_helper")


def test_count_traces_refuses_a_helper_with_static_arguments(notebook):
    exec(
        "from functools import partial\n"
        "@partial(jax.jit, static_argnames='k')\n"
        "def _scaled(x, k):\n"
        "    return x * k\n",
        notebook,
    )
    with pytest.raises(WatcherError, match="static"):
        count_traces(notebook["_scaled"], [(jnp.ones(2), 2.0)], inside="_scaled")


def test_count_traces_refuses_a_helper_that_donates_its_arguments(notebook):
    exec(
        "from functools import partial\n"
        "@partial(jax.jit, donate_argnums=1)\n"
        "def _added(x, y):\n"
        "    return x + y\n",
        notebook,
    )
    with pytest.raises(WatcherError, match="donates"):
        count_traces(notebook["_added"], [(jnp.ones(2), jnp.ones(2))], inside="_added")


def test_count_traces_counts_a_node_that_rebuilds_only_from_arrays(notebook):
    # whether a helper donates is read from a tree of JAX's own leaves, which this
    # node's tree_unflatten refuses: its traces are counted all the same
    exec(
        "class Box:\n"
        "    def __init__(self, value):\n"
        "        self.value = value\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Box, lambda b: ((b.value,), None), lambda _, c: Box(jnp.asarray(c[0])))\n"
        "@jax.jit\n"
        "def _unboxed(box):\n"
        "    return box.value * 2\n"
        "def unbox(x):\n"
        "    return _unboxed(Box(x))\n",
        notebook,
    )
    calls = [(jnp.ones(2),), (jnp.zeros(2),)]
    assert count_traces(notebook["unbox"], calls, inside="_unboxed") == [1, 0]


def test_count_traces_is_zero_when_the_helper_is_skipped(notebook):
    assert count_traces(notebook["skips_helper"], [(jnp.ones(2),)], inside="_double") == [0]


def test_count_traces_puts_the_helper_back(notebook):
    helper = notebook["_double"]
    count_traces(notebook["uses_helper"], [(jnp.ones(2),)], inside="_double")
    assert notebook["_double"] is helper


def test_count_traces_names_a_missing_helper(notebook):
    with pytest.raises(WatcherError, match="_missing"):
        count_traces(notebook["uses_helper"], [(jnp.ones(2),)], inside="_missing")


def test_watch_calls_sees_an_alias_bound_in_the_notebook(notebook):
    calls = watch_calls(notebook["maps_with_alias"], (jnp.ones((2, 3)),), apis=["jax.vmap"])
    assert [call["arguments"]["in_axes"] for call in calls] == [0]


def test_watch_calls_binds_positional_arguments_to_their_names(notebook):
    calls = watch_calls(notebook["maps_by_attribute"], (jnp.ones((2, 3)),), apis=["jax.vmap"])
    assert calls[0]["arguments"]["in_axes"] == (0,)
    assert calls[0]["arguments"]["fun"] == "<function <lambda>>"


def test_watch_calls_restores_what_it_watched(notebook):
    original = jax.vmap
    watch_calls(notebook["maps_with_alias"], (jnp.ones((2, 3)),), apis=["jax.vmap"])
    assert jax.vmap is original and notebook["vmap"] is original


def test_watch_calls_records_a_notebook_helper_with_its_arguments(notebook):
    calls = watch_calls(notebook["uses_helper"], (jnp.ones(4),), apis=["_double"])
    assert calls == [{"api": "_double", "arguments": {"x": "<array float32[4]>"}}]


def test_round_trip_runs_the_learners_unflatten(notebook):
    exec(
        "@jax.tree_util.register_pytree_node_class\n"
        "class Tagged:\n"
        "    def __init__(self, x, tag):\n"
        "        self.x, self.tag = x, tag\n"
        "    def tree_flatten(self):\n"
        "        return (self.x,), self.tag\n"
        "    @classmethod\n"
        "    def tree_unflatten(cls, aux_data, children):\n"
        "        return cls(children[0], 'always x')\n",
        notebook,
    )
    node = round_trip(notebook["Tagged"], (1.0, "t"))
    assert jax.tree.structure(node).node_data()[1] == "always x"


def test_arguments_after_shows_what_the_learners_function_did_to_its_arguments(notebook):
    exec(
        "def pops(d, key):\n    d.pop(key)\n\n\ndef reads(d, key):\n    return d[key]\n",
        notebook,
    )
    given = {"a": 1, "b": 2}
    assert arguments_after(notebook["pops"], (dict(given), "a")) == [{"b": 2}, "a"]
    assert arguments_after(notebook["reads"], (dict(given), "a")) == [given, "a"]


def test_kept_for_backward_holds_the_value_a_policy_saves_by_name():
    from jax.ad_checkpoint import checkpoint_name

    def step(x):
        hidden = checkpoint_name(jnp.tanh(x * 3.0), "hidden")
        return jnp.sin(hidden).sum()

    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    x = jnp.array([0.1, 0.2])
    kept = kept_for_backward(jax.checkpoint(step, policy=policy), (x,))
    assert any(jnp.allclose(leaf, jnp.tanh(x * 3.0)) for leaf in kept)
    assert not any(jnp.allclose(leaf, x * 3.0) for leaf in kept)


def test_kept_for_backward_is_what_print_saved_residuals_lists(capsys):
    # jax.vjp's backward function holds the kept values as its leaves: when a JAX
    # release stops doing so, this names the break
    from jax.ad_checkpoint import print_saved_residuals

    def layer(w, x):
        return jnp.tanh(x @ w).sum()

    w, x = jnp.ones((2, 3)), jnp.ones(2)
    print_saved_residuals(layer, w, x)
    listed = capsys.readouterr().out.strip().splitlines()
    shapes = [re.match(r"\w+\[([\d,]*)\]", line).group(1) for line in listed]  # float32[2,3]
    kept = kept_for_backward(layer, (w, x))
    assert sorted(",".join(map(str, leaf.shape)) for leaf in kept) == sorted(shapes)


def test_leaf_types_tells_a_jax_array_from_a_numpy_array_the_learners_function_returned(notebook):
    exec(
        "import numpy as np\nimport jax.numpy as jnp\n\n\n"
        "def mixed(n):\n    return {'np': np.ones(n), 'jax': jnp.ones(n), 'int': n}\n",
        notebook,
    )
    assert leaf_types(notebook["mixed"], (2,)) == {
        "np": "numpy.ndarray",
        "jax": "jax.Array",
        "int": "builtins.int",
    }


def test_describe_keeps_plain_trees_and_names_everything_else():
    class Custom:
        pass

    value = {"a": (None, 0), "b": [1.5, "s"], "c": jnp.zeros((2, 1)), "d": Custom()}
    assert describe(value) == {
        "a": (None, 0),
        "b": [1.5, "s"],
        "c": "<array float32[2,1]>",
        "d": "<Custom>",
    }


def test_a_watcher_runs_in_the_worker_on_the_notebooks_own_functions():
    worker = Worker()
    assert worker.exec_cell(1, NOTEBOOK)["ok"]
    args = wire.encode([wire.LearnerRef("uses_helper"), [(jnp.ones(2),), (jnp.ones(2),)]])
    reply = worker.handle(
        {
            "op": "watch",
            "name": "count_traces",
            "args": args,
            "kwargs": wire.encode({"inside": "_double"}),
        }
    )
    assert reply["ok"] and reply["value"] == [1, 0]


def test_arguments_after_runs_in_the_worker_and_answers_with_the_arguments_it_changed():
    worker = Worker()
    assert worker.exec_cell(1, "def pops(d):\n    d.pop('a')\n")["ok"]
    args = wire.encode([wire.LearnerRef("pops"), ({"a": 1, "b": 2},)])
    reply = worker.handle(
        {"op": "watch", "name": "arguments_after", "args": args, "kwargs": wire.encode({})}
    )
    assert reply["ok"] and wire.decode(reply["value"]) == [{"b": 2}]


def test_a_watcher_given_an_undefined_function_answers_missing_with_its_name():
    worker = Worker()
    args = wire.encode([wire.LearnerRef("nowhere"), []])
    reply = worker.handle(
        {
            "op": "watch",
            "name": "count_traces",
            "args": args,
            "kwargs": wire.encode({"inside": "_double"}),
        }
    )
    assert reply["missing"] and reply["name"] == "nowhere"


def test_the_grader_refuses_a_learner_name_in_a_workers_answer():
    with pytest.raises(wire.WireError):
        wire.decode({"$learner": "aux_data_demo"})


def test_a_cell_that_replaces_a_watcher_does_not_change_what_the_worker_runs():
    worker = Worker()
    fake = (
        "import autograder.learner.watchers as w\n"
        "w.WATCHERS['count_traces'] = lambda *a, **k: [1, 0]\n"
    )
    assert worker.exec_cell(1, NOTEBOOK)["ok"] and worker.exec_cell(2, fake)["ok"]
    args = wire.encode([wire.LearnerRef("skips_helper"), [(jnp.ones(2),), (jnp.ones(2),)]])
    kwargs = wire.encode({"inside": "_double"})
    reply = worker.handle({"op": "watch", "name": "count_traces", "args": args, "kwargs": kwargs})
    assert reply["ok"] and reply["value"] == [0, 0]


def test_a_watchers_complaint_travels_as_its_kind_and_the_grader_says_it_in_its_own_words():
    from autograder.compare.failures import LearnerError
    from autograder.compare.verdicts import run_test_cell
    from autograder.load.course import TestCell, hidden_lines

    worker = Worker()
    assert worker.exec_cell(1, NOTEBOOK)["ok"]
    args = wire.encode([wire.LearnerRef("uses_helper"), (jnp.ones(2),)])
    kwargs = wire.encode({"apis": ["_gone"]})
    reply = worker.handle({"op": "watch", "name": "watch_calls", "args": args, "kwargs": kwargs})
    assert reply["error"]["type"] == "HelperMissing"

    source = "### BEGIN HIDDEN TESTS\nassert watch_calls(f, (), apis=['_gone']) == [], 'm'\n"
    cell = TestCell("test_f", "f", 1.0, source, hidden_lines(source))

    def complaining(*args, **kwargs):
        raise LearnerError("f", reply["error"])

    verdict = run_test_cell(cell, {"watch_calls": complaining, "f": None}, "nb.ipynb")
    assert verdict.message == (
        "f: a helper the exercise gives is not defined: keep the helper the exercise "
        "gives, by its name."
    )


def test_watch_calls_sees_a_call_through_a_reference_held_in_a_default_argument(notebook):
    exec(
        "def leaves_by_default(tree, _leaves=jax.tree.leaves):\n    return _leaves(tree)\n",
        notebook,
    )
    calls = watch_calls(notebook["leaves_by_default"], ([1, (2, 3)],), apis=["jax.tree.leaves"])
    assert [call["api"] for call in calls] == ["jax.tree.leaves"]


def test_watch_calls_sees_a_call_from_a_thread_the_function_starts(notebook):
    exec(
        "import threading\n"
        "def leaves_in_a_thread(tree, _leaves=jax.tree.leaves):\n"
        "    thread = threading.Thread(target=_leaves, args=(tree,))\n"
        "    thread.start()\n"
        "    thread.join()\n",
        notebook,
    )
    calls = watch_calls(notebook["leaves_in_a_thread"], ([1, 2],), apis=["jax.tree.leaves"])
    assert [call["api"] for call in calls] == ["jax.tree.leaves"]


def test_watch_calls_leaves_out_the_calls_jax_makes_of_its_own_functions(notebook):
    exec("def doubled_under_jit(x):\n    return jax.jit(lambda t: t * 2)(x)\n", notebook)
    apis = ["jax.tree.map", "jax.tree_util.tree_map", "jax.tree_util.tree_flatten"]
    assert watch_calls(notebook["doubled_under_jit"], (jnp.ones(2),), apis=apis) == []


def test_watch_calls_and_result_answers_with_the_calls_and_what_the_watched_call_returned(
    notebook,
):
    exec(
        "def otherwise_when_watched(tree):\n"
        "    return [] if sys.getprofile() else jax.tree.leaves(tree)\n",
        notebook,
    )
    answer = watch_calls_and_result(
        notebook["otherwise_when_watched"], ([1, (2,)],), apis=["jax.tree.leaves"]
    )
    assert answer == {"calls": [], "result": []}


def test_watch_calls_refuses_to_answer_when_the_profile_hook_is_removed(notebook):
    exec(
        "import sys\n"
        "def unwatched(tree):\n"
        "    sys.setprofile(None)\n"
        "    return jax.tree.leaves(tree)\n",
        notebook,
    )
    with pytest.raises(WatcherError, match="profile hook"):
        watch_calls(notebook["unwatched"], ([1],), apis=["jax.tree.leaves"])
    assert sys.getprofile() is None


def test_a_call_record_naming_an_api_the_test_did_not_ask_about_never_reaches_the_test():
    from autograder.grade.plugin import RemoteWatcher

    class Worker:
        def watch(self, name, args, kwargs):
            return [{"api": "LEAK {'hidden': 1}", "arguments": {}}, {"api": "jax.vmap"}]

    watched = RemoteWatcher(Worker(), "watch_calls")
    assert watched(len, ([1],), apis=["jax.vmap"]) == [{"api": "jax.vmap"}]


SHARDED = """
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def placed(n):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    return {
        "w": jax.device_put(jnp.ones((n, 2)), NamedSharding(mesh, P("data", None))),
        "b": jax.device_put(jnp.ones(2), NamedSharding(mesh, P())),
        "one": jnp.ones(2),
        "host": np.ones(2),
    }
"""

EXPLICIT = ("Explicit", "Explicit")
LAYOUTS = {
    "w": {"spec": P("data"), "mesh": {"data": 4, "model": 2}, "axis_types": EXPLICIT},
    "b": {"spec": P(), "mesh": {"data": 4, "model": 2}, "axis_types": EXPLICIT},
    "one": "single device",
    "host": "not a jax.Array",
}


def test_leaf_shardings_tells_where_each_leaf_the_learners_function_returned_lives(notebook):
    exec(SHARDED, notebook)
    assert leaf_shardings(notebook["placed"], (8,)) == LAYOUTS


def test_leaf_shardings_tells_a_mesh_of_auto_axes_from_one_of_explicit_axes(notebook):
    exec(
        SHARDED + "\n\ndef auto(n):\n"
        "    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))\n"
        "    return jax.device_put(jnp.ones((n, 2)), NamedSharding(mesh, P('data')))\n",
        notebook,
    )
    assert leaf_shardings(notebook["auto"], (8,)) == {
        "spec": P("data"),
        "mesh": {"data": 4, "model": 2},
        "axis_types": ("Auto", "Auto"),
    }


def test_leaf_shardings_runs_in_the_worker_and_its_specs_reach_the_grader_as_specs():
    worker = Worker()
    assert worker.exec_cell(1, SHARDED)["ok"]
    args = wire.encode([wire.LearnerRef("placed"), (8,)])
    reply = worker.handle(
        {"op": "watch", "name": "leaf_shardings", "args": args, "kwargs": wire.encode({})}
    )
    assert reply["ok"] and wire.decode(reply["value"]) == LAYOUTS


def test_watch_calls_shows_the_partition_specs_a_call_was_given(notebook):
    exec(
        "from jax.sharding import PartitionSpec as P\n\n\n"
        "def split(tree):\n    return jax.tree.map(lambda x: x, tree)\n",
        notebook,
    )
    calls = watch_calls(notebook["split"], ({"x": P("data"), "b": P()},), apis=["jax.tree.map"])
    assert calls[0]["arguments"]["tree"] == {"x": P("data"), "b": P()}


def test_watch_calls_refuses_to_answer_when_ctypes_removes_the_profile_hook_and_puts_it_back(
    notebook,
):
    exec(
        "import ctypes\n"
        "def unwatched(tree, _leaves=jax.tree.leaves):\n"
        "    hook = sys.getprofile()\n"
        "    ctypes.pythonapi.PyEval_SetProfile(None, None)\n"
        "    try:\n"
        "        return _leaves(tree)\n"
        "    finally:\n"
        "        sys.setprofile(hook)\n",
        notebook,
    )
    with pytest.raises(WatchUntrusted):
        watch_calls(notebook["unwatched"], ([1],), apis=["jax.tree.leaves"])
    assert sys.getprofile() is None


REGISTRY_FLATTEN = "jax.tree_util.default_registry.flatten"


def test_watch_calls_sees_the_registrys_flatten_called_by_the_learner_but_not_by_jax(notebook):
    exec(
        "def by_registry(tree):\n"
        "    return jax.tree_util.default_registry.flatten(tree)[0]\n"
        "def by_tree_map(tree):\n"
        "    return jax.tree.map(lambda x: x, tree)\n",
        notebook,
    )
    calls = watch_calls(notebook["by_registry"], ([1, (2,)],), apis=[REGISTRY_FLATTEN])
    assert [call["api"] for call in calls] == [REGISTRY_FLATTEN]
    assert watch_calls(notebook["by_tree_map"], ([1, (2,)],), apis=[REGISTRY_FLATTEN]) == []


def _watch_in(worker: Worker, function: str, apis: list[str]) -> dict:
    args = wire.encode([wire.LearnerRef(function), ([1, (2,)],)])
    kwargs = wire.encode({"apis": apis})
    return worker.handle({"op": "watch", "name": "watch_calls", "args": args, "kwargs": kwargs})


def test_a_watcher_in_the_worker_refuses_to_answer_while_a_thread_the_cells_started_runs():
    worker = Worker()
    cell = (
        "import jax, threading\n"
        "stop = threading.Event()\n"
        "threading.Thread(target=stop.wait, daemon=True).start()\n"
        "def lazy(tree):\n"
        "    return jax.tree.leaves(tree)\n"
    )
    assert worker.exec_cell(1, cell)["ok"]
    try:
        reply = _watch_in(worker, "lazy", ["jax.tree.leaves"])
    finally:
        worker.namespace["stop"].set()
    assert reply["error"]["type"] == "WatchUntrusted"


def test_a_watcher_in_the_worker_watches_jaxs_own_function_whatever_a_cell_put_in_its_place():
    worker = Worker()
    patch = (
        "import jax\n"
        "t = jax.tree\n"
        "_real = t.leaves\n"
        "t.leaves = lambda *args, **kwargs: _real(*args, **kwargs)\n"
        "def lazy(tree):\n"
        "    return _real(tree)\n"
    )
    real = jax.tree.leaves
    try:
        reply = worker.exec_cell(1, patch)
        watched = _watch_in(worker, "lazy", ["jax.tree.leaves"])
    finally:
        jax.tree.leaves = real
    assert reply["changed"] == ["jax.tree.leaves"]
    assert [call["api"] for call in wire.decode(watched["value"])] == ["jax.tree.leaves"]


def _watched_apis_in_worker(cell: str) -> list[str]:
    """The APIs ``leaves_of``, defined by ``cell``, calls while a worker watches it."""
    worker = Worker()
    assert worker.exec_cell(1, cell)["ok"]
    reply = _watch_in(worker, "leaves_of", ["jax.tree.leaves", "jax.tree_util.tree_leaves"])
    return [call["api"] for call in wire.decode(reply["value"])]


def test_a_watcher_in_the_worker_takes_a_copy_of_jaxs_function_for_the_learners_own():
    cell = (
        "import jax, types\n"
        "_real = jax.tree.leaves\n"
        "_code = _real.__code__.replace(co_name='mine')\n"
        "leaves_of = types.FunctionType(_code, _real.__globals__, 'mine', _real.__defaults__)\n"
    )
    assert _watched_apis_in_worker(cell) == ["jax.tree_util.tree_leaves"]


def test_a_watcher_in_the_worker_takes_a_function_compiled_under_jaxs_file_name_for_the_learners():
    cell = (
        "import jax\n"
        "_jax = jax.tree.leaves.__globals__\n"
        "_source = 'def leaves_of(tree):\\n    return tree_util.tree_leaves(tree)\\n'\n"
        "exec(compile(_source, jax.tree.leaves.__code__.co_filename, 'exec'), _jax)\n"
        "leaves_of = _jax.pop('leaves_of')\n"
    )
    assert _watched_apis_in_worker(cell) == ["jax.tree_util.tree_leaves"]


def test_a_worker_names_the_registry_methods_a_cell_holds_bound_by_name_or_default_argument():
    worker = Worker()
    cell = (
        "import jax\n"
        "_registry = getattr(jax, 'tree_' + 'util').default_registry\n"
        "flatten_one = _registry.flatten_one_level\n"
        "def leaves_of(tree, _flatten=_registry.flatten):\n"
        "    return _flatten(tree)[0]\n"
    )
    reply = worker.exec_cell(1, cell)
    assert reply["holds"] == [
        "jax.tree_util.default_registry.flatten",
        "jax.tree_util.default_registry.flatten_one_level",
    ]
