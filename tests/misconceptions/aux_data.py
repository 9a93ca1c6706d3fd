"""Wrong-but-plausible versions of the aux_data exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""


def _scaled(flatten: str, unflatten: str, demo: str | None, extra: str = "") -> str:
    """The aux_data_demo cell with the given bodies of its three methods/functions
    (without aux_data_demo when ``demo`` is None)."""
    cell = (
        extra
        + """@jax.tree_util.register_pytree_node_class
class Scaled:
    def __init__(self, x, scale):
        self.x = x
        self.scale = scale

    def tree_flatten(self):
        return """
        + flatten
        + """

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return """
        + unflatten
        + """


@jax.jit
def _scaled_values(scaled):
    return scaled.x * scaled.scale
"""
    )
    return (
        cell
        if demo is None
        else cell + "\n\ndef aux_data_demo(x, scale):\n    return " + demo + "\n"
    )


def _layer(flatten: str, unflatten: str, make: str = "LayerParams(weight, bias, name)") -> str:
    """The make_layer cell with the given bodies of its three methods/functions."""
    return (
        """@jax.tree_util.register_pytree_node_class
class LayerParams:
    def __init__(self, weight, bias, name):
        self.weight = weight
        self.bias = bias
        self.name = name

    def tree_flatten(self):
        return """
        + flatten
        + """

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return """
        + unflatten
        + """


def make_layer(weight, bias, name):
    return """
        + make
        + "\n"
    )


_FLAT = "(self.x,), self.scale"
_UNFLAT = "cls(children[0], aux_data)"
_DEMO = "_scaled_values(Scaled(jnp.asarray(x), scale))"

CASES = [
    {
        "function": "aux_data_demo",
        "misconception": "a jitted function cached per shape keeps the first scale",
        "teaches": "Reread aux_data → aux_data is part of jit's cache key",
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
        "teaches": "Reread aux_data → aux_data is part of jit's cache key",
        "source": _scaled(_FLAT, _UNFLAT, None)
        + """

_results = {}


def aux_data_demo(x, scale):
    if scale not in _results:
        _results[scale] = _scaled_values(Scaled(jnp.asarray(x), scale))
    return _results[scale]
""",
    },
    {
        "function": "aux_data_demo",
        "misconception": "the values are all that matter: x * scale without Scaled or jit",
        "teaches": "Reread aux_data → aux_data is part of jit's cache key",
        "source": _scaled(_FLAT, _UNFLAT, "jnp.asarray(x) * scale"),
    },
    {
        "function": "aux_data_demo",
        "misconception": "x and scale are both numbers to compute with, so both are children",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _scaled("(self.x, self.scale), None", "cls(*children)", _DEMO),
    },
    {
        "function": "aux_data_demo",
        "misconception": "tree_unflatten takes its arguments in the order of __init__",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _scaled(_FLAT, "cls(aux_data, children[0])", _DEMO),
    },
    {
        "function": "aux_data_demo",
        "misconception": "a settings object without __eq__ is fine aux_data for the scale",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _scaled(
            "(self.x,), _Box(self.scale)",
            "cls(children[0], aux_data.value)",
            _DEMO,
            extra="""class _Box:
    def __init__(self, value):
        self.value = value


""",
        ),
    },
    {
        "function": "aux_data_demo",
        "misconception": "the scale is best normalised to a float before it goes to aux_data",
        "visible_passes": "only other inputs than the visible tests' show it: With an int32 x and an int scale the result should be the int32 array JAX gives x * scale: the scale goes into the aux_data as it was given, not converted",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _scaled(_FLAT, _UNFLAT, "_scaled_values(Scaled(jnp.asarray(x), float(scale)))"),
    },
    {
        "function": "split_static",
        "misconception": "only JAX arrays are arrays",
        "visible_passes": "only other inputs than the visible tests' show it: NumPy arrays are arrays too: they belong to the dynamic part, never to the static part",
        "teaches": "Reread aux_data → Arrays do not belong in aux_data",
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
        "visible_passes": "only other inputs than the visible tests' show it: Python numbers, bools and strings are static: only arrays go to the dynamic part",
        "teaches": "Reread aux_data → Children and aux_data",
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
        "function": "split_static",
        "misconception": "a 0-d array is a scalar, so it is static",
        "teaches": "Reread aux_data → Arrays do not belong in aux_data",
        "source": """
def split_static(tree):
    def is_array(leaf):
        return isinstance(leaf, (jax.Array, np.ndarray)) and leaf.ndim > 0

    dynamic = jax.tree.map(lambda leaf: leaf if is_array(leaf) else None, tree)
    static = jax.tree.map(lambda leaf: None if is_array(leaf) else leaf, tree)
    return dynamic, static
""",
    },
    {
        "function": "split_static",
        "misconception": "anything with a .shape is an array, NumPy scalars included",
        "teaches": "Reread aux_data → Arrays do not belong in aux_data",
        "source": """
def split_static(tree):
    dynamic = jax.tree.map(lambda leaf: leaf if hasattr(leaf, "shape") else None, tree)
    static = jax.tree.map(lambda leaf: None if hasattr(leaf, "shape") else leaf, tree)
    return dynamic, static
""",
    },
    {
        "function": "split_static",
        "misconception": "a recursion over the built-in containers does what jax.tree.map does",
        "teaches": "Reread Mapping → Mapping over one tree",
        "source": """
def split_static(tree):
    def is_array(leaf):
        return isinstance(leaf, (jax.Array, np.ndarray))

    def split(node):
        if node is None:
            return None, None
        if isinstance(node, dict):
            parts = {key: split(value) for key, value in node.items()}
            return (
                type(node)((key, part[0]) for key, part in parts.items()),
                type(node)((key, part[1]) for key, part in parts.items()),
            )
        if isinstance(node, (list, tuple)):
            parts = [split(value) for value in node]
            dynamic, static = [p[0] for p in parts], [p[1] for p in parts]
            if hasattr(node, "_fields"):
                return type(node)(*dynamic), type(node)(*static)
            return type(node)(dynamic), type(node)(static)
        return (node, None) if is_array(node) else (None, node)

    return split(tree)
""",
    },
    {
        "function": "combine",
        "misconception": "a missing part is anything falsy, not just None",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def combine(dynamic, static):
    return jax.tree.map(lambda d, s: s or d, dynamic, static, is_leaf=lambda x: x is None)
""",
    },
    {
        "function": "combine",
        "misconception": "the dynamic part holds only JAX arrays",
        "visible_passes": "only other inputs than the visible tests' show it: The dynamic part may hold NumPy arrays too, not only JAX arrays: take whichever part is not None",
        "teaches": "Reread aux_data → Arrays do not belong in aux_data",
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
        "function": "combine",
        "misconception": "the arrays can be handed out in order wherever the static part has None",
        "visible_passes": "only other inputs than the visible tests' show it: Each position takes its own part's value: where both parts are None the result is None, and an array stays at the position it came from, even after such a None",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def combine(dynamic, static):
    arrays = iter(jax.tree.leaves(dynamic))
    values, treedef = jax.tree.flatten(static, is_leaf=lambda x: x is None)
    return jax.tree.unflatten(
        treedef, [next(arrays, None) if value is None else value for value in values]
    )
""",
    },
    {
        "function": "combine",
        "misconception": "the parts are flat, so merging their top level is enough",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def combine(dynamic, static):
    if isinstance(dynamic, dict):
        return {k: static[k] if dynamic[k] is None else dynamic[k] for k in dynamic}
    return type(dynamic)(s if d is None else d for d, s in zip(dynamic, static))
""",
    },
    {
        "function": "combine",
        "misconception": "a recursion over the built-in containers does what jax.tree.map does",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def combine(dynamic, static):
    if dynamic is None:
        return static
    if isinstance(dynamic, dict):
        return type(dynamic)((key, combine(dynamic[key], static[key])) for key in dynamic)
    if isinstance(dynamic, (list, tuple)):
        parts = [combine(d, s) for d, s in zip(dynamic, static)]
        return type(dynamic)(*parts) if hasattr(dynamic, "_fields") else type(dynamic)(parts)
    return dynamic
""",
    },
    {
        "function": "make_layer",
        "misconception": "the layer's name is a child",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _layer("(self.weight, self.bias, self.name), None", "cls(*children)"),
    },
    {
        "function": "make_layer",
        "misconception": "a NamedTuple keeps its string field out of the leaves",
        "teaches": "Reread aux_data → Children and aux_data",
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
    {
        "function": "make_layer",
        "misconception": "tree_unflatten only needs the children; the name is just a label",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _layer("(self.weight, self.bias), self.name", "cls(*children, None)"),
    },
    {
        "function": "make_layer",
        "misconception": "aux_data has to be a tuple, so the name goes in as (name,)",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _layer("(self.weight, self.bias), (self.name,)", "cls(*children, *aux_data)"),
    },
    {
        "function": "make_layer",
        "misconception": "a layer's parameters should always be converted to JAX arrays",
        "visible_passes": "only other inputs than the visible tests' show it: A bias given as a Python float should stay a Python float: make_layer and LayerParams keep the children as they are given, without converting them",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": _layer(
            "(self.weight, self.bias), self.name",
            "cls(*children, aux_data)",
            "LayerParams(jnp.asarray(weight), jnp.asarray(bias), name)",
        ),
    },
    {
        "function": "split_static",
        "misconception": "a recursion over dicts, lists and tuples splits any tree",
        "teaches": "Reread Mapping → Mapping over one tree",
        "source": """
def split_static(tree):
    if isinstance(tree, (jax.Array, np.ndarray)):
        return tree, None
    if tree is None:
        return None, None
    if isinstance(tree, dict):
        parts = {key: split_static(tree[key]) for key in sorted(tree)}
        return ({k: d for k, (d, s) in parts.items()}, {k: s for k, (d, s) in parts.items()})
    if isinstance(tree, (list, tuple)):
        parts = [split_static(item) for item in tree]
        return (type(tree)(d for d, s in parts), type(tree)(s for d, s in parts))
    return None, tree
""",
    },
    {
        "function": "split_static",
        "misconception": "Equinox's is_array decides what an array is",
        "teaches": "Reread aux_data → Arrays do not belong in aux_data",
        "source": """
import equinox as eqx


def split_static(tree):
    dynamic = jax.tree.map(lambda leaf: leaf if eqx.is_array(leaf) else None, tree)
    static = jax.tree.map(lambda leaf: None if eqx.is_array(leaf) else leaf, tree)
    return dynamic, static
""",
    },
    {
        "function": "combine",
        "misconception": "the dynamic part only ever holds arrays, so test for an array",
        "visible_passes": "only other inputs than the visible tests' show it: Either part may hold any leaf, not only arrays: at each position take the part that is not None, whatever its value is",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def combine(dynamic, static):
    def pick(d, s):
        return d if isinstance(d, (jax.Array, np.ndarray)) else s

    return jax.tree.map(pick, dynamic, static, is_leaf=lambda node: node is None)
""",
    },
    {
        "function": "combine",
        "misconception": "a recursion over both trees is as good as jax.tree.map",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def combine(dynamic, static):
    if dynamic is None:
        return static
    if static is None:
        return dynamic
    if isinstance(dynamic, dict):
        return {key: combine(dynamic[key], static[key]) for key in sorted(dynamic)}
    if isinstance(dynamic, (list, tuple)):
        return type(dynamic)(combine(d, s) for d, s in zip(dynamic, static))
    return dynamic
""",
    },
    {
        "function": "combine",
        "misconception": "jax.tree.map can walk the two parts as they are",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": """
def combine(dynamic, static):
    return jax.tree.map(lambda d, s: s if d is None else d, dynamic, static)
""",
    },
    {
        "function": "make_layer",
        "misconception": "tree_unflatten passes aux_data first, as it receives it",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": """
@jax.tree_util.register_pytree_node_class
class LayerParams:
    def __init__(self, weight, bias, name):
        self.weight = weight
        self.bias = bias
        self.name = name

    def tree_flatten(self):
        return (self.weight, self.bias), self.name

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(aux_data, *children)


def make_layer(weight, bias, name):
    return LayerParams(weight, bias, name)
""",
    },
    {
        "function": "make_layer",
        "misconception": "a name is a string, so store str(name)",
        "visible_passes": "only other inputs than the visible tests' show it: The aux_data must be the name itself, as it is given: a name that is not a string (an int, a tuple) is kept as it is, not turned into a string or wrapped",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": """
@jax.tree_util.register_pytree_node_class
class LayerParams:
    def __init__(self, weight, bias, name):
        self.weight = weight
        self.bias = bias
        self.name = name

    def tree_flatten(self):
        return (self.weight, self.bias), self.name

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children, aux_data)


def make_layer(weight, bias, name):
    return LayerParams(weight, bias, str(name))
""",
    },
    {
        "function": "make_layer",
        "misconception": "aux_data stays with the class, so unflatten only restores the children",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": """
@jax.tree_util.register_pytree_node_class
class LayerParams:
    def __init__(self, weight, bias, name):
        self.weight = weight
        self.bias = bias
        self.name = name

    def tree_flatten(self):
        return (self.weight, self.bias), self.name

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        layer = object.__new__(cls)
        layer.weight, layer.bias = children
        return layer


def make_layer(weight, bias, name):
    return LayerParams(weight, bias, name)
""",
    },
    {
        "function": "make_layer",
        "misconception": "a layer's name is case-insensitive, so store it lowercased",
        "visible_passes": "only other inputs than the visible tests' show it: The aux_data must be the name itself, as it is given: a name that is not a string (an int, a tuple) is kept as it is, not turned into a string or wrapped",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": """
@jax.tree_util.register_pytree_node_class
class LayerParams:
    def __init__(self, weight, bias, name):
        self.weight = weight
        self.bias = bias
        self.name = name

    def tree_flatten(self):
        return (self.weight, self.bias), self.name

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children, aux_data)


def make_layer(weight, bias, name):
    return LayerParams(weight, bias, name.lower())
""",
    },
    {
        "function": "aux_data_demo",
        "misconception": "a jitted closure per scale, kept in a dict, does the same",
        "teaches": "Reread aux_data → aux_data is part of jit's cache key",
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


_by_scale = {}


def aux_data_demo(x, scale):
    if scale not in _by_scale:
        _by_scale[scale] = jax.jit(lambda x: x * scale)
    return _by_scale[scale](jnp.asarray(x))
""",
    },
    {
        "function": "aux_data_demo",
        "misconception": "the scale's type belongs in the aux_data, so that 2 and 2.0 differ",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": """
@jax.tree_util.register_pytree_node_class
class Scaled:
    def __init__(self, x, scale):
        self.x = x
        self.scale = scale

    def tree_flatten(self):
        return (self.x,), (type(self.scale), self.scale)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(children[0], aux_data[1])


@jax.jit
def _scaled_values(scaled):
    return scaled.x * scaled.scale


def aux_data_demo(x, scale):
    return _scaled_values(Scaled(jnp.asarray(x), scale))
""",
    },
]
