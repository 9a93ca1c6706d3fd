"""Wrong-but-plausible versions of the aux_data exercise, one per misconception."""

CASES = [
    {
        "function": "aux_data_demo",
        "misconception": "a jitted function built once keeps the first scale",
        "teaches": "aux_data is part of jit's cache key",
        "source": """
_compiled = {}


def aux_data_demo(x, scale):
    if "f" not in _compiled:
        _compiled["f"] = jax.jit(lambda values: values * scale)
    return _compiled["f"](jnp.asarray(x))
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
        "function": "combine",
        "misconception": "a missing part is anything falsy, not just None",
        "teaches": "Leaves → None is a node",
        "source": """
def combine(dynamic, static):
    return jax.tree.map(lambda d, s: s or d, dynamic, static, is_leaf=lambda x: x is None)
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
]
