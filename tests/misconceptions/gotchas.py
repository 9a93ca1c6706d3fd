"""Wrong-but-plausible versions of the Gotchas exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "zeros_from_shapes",
        "misconception": "a shape tuple is a leaf",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def zeros_from_shapes(shapes):
    return jax.tree.map(jnp.zeros, shapes)
""",
    },
    {
        "function": "zeros_from_shapes",
        "misconception": "every tuple is a shape",
        "visible_passes": "only other inputs than the visible tests' show it: A tuple that holds shapes (such as a layer's (weight, bias) pair) is a container, not a shape: only a tuple of ints is a shape",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def zeros_from_shapes(shapes):
    return jax.tree.map(jnp.zeros, shapes, is_leaf=lambda node: isinstance(node, tuple))
""",
    },
    {
        "function": "zeros_from_shapes",
        "misconception": "a non-empty tuple of ints is a shape, () is an empty container",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def zeros_from_shapes(shapes):
    def is_shape(node):
        return isinstance(node, tuple) and len(node) > 0 and all(isinstance(n, int) for n in node)

    return jax.tree.map(jnp.zeros, shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "zeros_from_shapes",
        "misconception": "any array of zeros will do, so np.zeros is as good as jnp.zeros",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def zeros_from_shapes(shapes):
    def is_shape(node):
        return isinstance(node, tuple) and all(isinstance(n, int) for n in node)

    return jax.tree.map(np.zeros, shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "zeros_from_shapes",
        "misconception": "a recursion of one's own avoids the trap as well as is_leaf does",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def zeros_from_shapes(shapes):
    if shapes is None:
        return None
    if isinstance(shapes, tuple) and all(isinstance(n, int) for n in shapes):
        return jnp.zeros(shapes)
    if isinstance(shapes, dict):
        return type(shapes)((key, zeros_from_shapes(value)) for key, value in shapes.items())
    parts = [zeros_from_shapes(value) for value in shapes]
    return type(shapes)(*parts) if hasattr(shapes, "_fields") else type(shapes)(parts)
""",
    },
    {
        "function": "fill_none",
        "misconception": "jax.tree.map calls the function on None",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    return jax.tree.map(lambda x: value if x is None else x, tree)
""",
    },
    {
        "function": "fill_none",
        "misconception": "empty containers are None too",
        "visible_passes": "only other inputs than the visible tests' show it: Only None is replaced: 0, False, '' and empty containers are not None and stay as they were",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    def is_empty(x):
        return x is None or (isinstance(x, (list, tuple, dict)) and len(x) == 0)

    return jax.tree.map(lambda x: value if is_empty(x) else x, tree, is_leaf=is_empty)
""",
    },
    {
        "function": "fill_none",
        "misconception": "x == None is the same test as x is None",
        "visible_passes": "only other inputs than the visible tests' show it: fill_none stopped with ValueError on a tree that holds an array",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    return jax.tree.map(lambda x: value if x == None else x, tree, is_leaf=lambda x: x == None)
""",
    },
    {
        "function": "fill_none",
        "misconception": "a tree that is just None has nothing in it to fill",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    if tree is None:
        return tree
    return jax.tree.map(lambda x: value if x is None else x, tree, is_leaf=lambda x: x is None)
""",
    },
    {
        "function": "fill_none",
        "misconception": "a recursion of one's own replaces None as well as is_leaf does",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    if tree is None:
        return value
    if isinstance(tree, dict):
        return type(tree)((key, fill_none(item, value)) for key, item in tree.items())
    if isinstance(tree, (list, tuple)):
        parts = [fill_none(item, value) for item in tree]
        return type(tree)(*parts) if hasattr(tree, "_fields") else type(tree)(parts)
    return tree
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "dicts flatten in insertion order",
        "teaches": "Reread Gotchas → Dict order",
        "source": """
def leaf_keys(d):
    return [key for key in d for _ in jax.tree.leaves(d[key])]
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "an OrderedDict is sorted like any dict",
        "teaches": "Reread Gotchas → Dict order",
        "source": """
def leaf_keys(d):
    return [key for key in sorted(d) for _ in jax.tree.leaves(d[key])]
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "the first entry of a key path is the key itself",
        "teaches": "Reread Gotchas → Dict order",
        "source": """
def leaf_keys(d):
    return [path[0] for path, _ in jax.tree.leaves_with_path(d)]
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "knowing the order rule is enough: no need for key paths",
        "teaches": "Reread Gotchas → Dict order",
        "source": """
def leaf_keys(d):
    keys = list(d) if isinstance(d, OrderedDict) else sorted(d)
    return [key for key in keys for _ in jax.tree.leaves(d[key])]
""",
    },
    {
        "function": "zeros_from_shapes",
        "misconception": "a list of ints describes a shape as well as a tuple does",
        "visible_passes": "only other inputs than the visible tests' show it: An empty list is a container with no shapes in it, and stays an empty list: only a tuple whose items are all ints is a shape, () included",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def is_shape(node):
    return isinstance(node, (tuple, list)) and all(isinstance(n, int) for n in node)


def zeros_from_shapes(shapes):
    return jax.tree.map(lambda shape: jnp.zeros(tuple(shape)), shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "keystr(simple=True) of the first key gives the key itself",
        "teaches": "Reread Gotchas → Dict order",
        "source": """
from jax.tree_util import keystr


def leaf_keys(d):
    return [keystr(path[:1], simple=True) for path, _ in jax.tree.leaves_with_path(d)]
""",
    },
    {
        "function": "fill_none",
        "misconception": "is_leaf=lambda x: x is None is enough; the function can test falsiness",
        "visible_passes": "only other inputs than the visible tests' show it: fill_none stopped with ValueError on a tree that holds an array",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    return jax.tree.map(lambda x: x or value if x is None or x == () else x, tree, is_leaf=lambda x: x is None)
""",
    },
    {
        "function": "fill_none",
        "misconception": "a subclass of list or dict is a leaf, so an OrderedDict is one too",
        "visible_passes": "only other inputs than the visible tests' show it: Arrays stay as they were and each None becomes the value",
        "teaches": "Reread Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    def is_leaf(x):
        return x is None or (isinstance(x, (list, dict)) and type(x) not in (list, dict))

    def fill(x):
        if x is None:
            return value
        if isinstance(x, list) and type(x) is not list:
            return type(x)(value if i is None else i for i in x)
        return x

    return jax.tree.map(fill, tree, is_leaf=is_leaf)
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "str(path[0].key) names the key",
        "teaches": "Reread Gotchas → Dict order",
        "source": """
def leaf_keys(d):
    return [str(path[0].key) for path, _ in jax.tree.leaves_with_path(d)]
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "an empty list subclass has no leaves, like []",
        "visible_passes": "only other inputs than the visible tests' show it: A subclass of list, tuple or dict is one leaf to JAX, empty or not, whatever it holds: only the exact built-in types are containers",
        "teaches": "Reread Leaves → Subclasses are leaves",
        "source": """
def leaf_keys(d):
    return [path[0].key for path, leaf in jax.tree.leaves_with_path(d)
            if not (isinstance(leaf, (list, tuple, dict)) and len(leaf) == 0)]
""",
    },
]
