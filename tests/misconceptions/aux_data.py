"""Wrong-but-plausible versions of the aux_data exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "aux_data_demo",
        "misconception": "a jitted function cached per shape keeps the first scale",
        "teaches": "aux_data is part of jit's cache key",
        "source": """
_compiled = {}


def aux_data_demo(x, scale):
    x = jnp.asarray(x)
    key = (x.shape, x.dtype)
    if key not in _compiled:
        _compiled[key] = jax.jit(lambda values: values * scale)
    return _compiled[key](x)
""",
    },
    {
        "function": "aux_data_demo",
        "misconception": "results can be cached by scale, as if x were static too",
        "teaches": "aux_data → Children and aux_data",
        "source": """
@jax.tree_util.register_pytree_node_class
class Scaled:
    def __init__(self, x, scale):
        self.x = x
        self.scale = scale

    def tree_flatten(self):
        return (self.x,), self.scale

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(children[0], aux_data)


@jax.jit
def _scaled_values(scaled):
    return scaled.x * scaled.scale


_results = {}


def aux_data_demo(x, scale):
    if scale not in _results:
        _results[scale] = _scaled_values(Scaled(jnp.asarray(x), scale))
    return _results[scale]
""",
    },
    {
        "function": "split_static",
        "misconception": "only JAX arrays are arrays",
        "teaches": "aux_data → Arrays do not belong in aux_data",
        "source": """
def split_static(tree):
    dynamic = jax.tree.map(lambda leaf: leaf if isinstance(leaf, jax.Array) else None, tree)
    static = jax.tree.map(lambda leaf: None if isinstance(leaf, jax.Array) else leaf, tree)
    return dynamic, static
""",
    },
    {
        "function": "split_static",
        "misconception": "Python numbers are dynamic because jit can trace them",
        "teaches": "aux_data → Children and aux_data",
        "source": """
def split_static(tree):
    def is_dynamic(leaf):
        return isinstance(leaf, (jax.Array, np.ndarray, int, float))

    dynamic = jax.tree.map(lambda leaf: leaf if is_dynamic(leaf) else None, tree)
    static = jax.tree.map(lambda leaf: None if is_dynamic(leaf) else leaf, tree)
    return dynamic, static
""",
    },
    {
        "function": "combine",
        "misconception": "a missing part is anything falsy, not just None",
        "teaches": "Leaves → None is a node",
        "source": """
def combine(dynamic, static):
    return jax.tree.map(lambda d, s: s or d, dynamic, static, is_leaf=lambda x: x is None)
""",
    },
    {
        "function": "combine",
        "misconception": "the dynamic part holds only JAX arrays",
        "teaches": "aux_data → Arrays do not belong in aux_data",
        "source": """
def combine(dynamic, static):
    return jax.tree.map(
        lambda d, s: d if isinstance(d, jax.Array) else s,
        dynamic,
        static,
        is_leaf=lambda x: x is None,
    )
""",
    },
    {
        "function": "make_layer",
        "misconception": "the layer's name is a child",
        "teaches": "aux_data → Children and aux_data",
        "source": """
@jax.tree_util.register_pytree_node_class
class LayerParams:
    def __init__(self, weight, bias, name):
        self.weight = weight
        self.bias = bias
        self.name = name

    def tree_flatten(self):
        return (self.weight, self.bias, self.name), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children)


def make_layer(weight, bias, name):
    return LayerParams(weight, bias, name)
""",
    },
    {
        "function": "make_layer",
        "misconception": "a NamedTuple keeps its string field out of the leaves",
        "teaches": "aux_data → Children and aux_data",
        "source": """
from typing import NamedTuple


class LayerParams(NamedTuple):
    weight: object
    bias: object
    name: str


def make_layer(weight, bias, name):
    return LayerParams(weight, bias, name)
""",
    },
]
