"""Wrong-but-plausible versions of the Gotchas exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "zeros_from_shapes",
        "misconception": "a shape tuple is a leaf",
        "teaches": "Gotchas → Shape tuples are nodes",
        "source": """
def zeros_from_shapes(shapes):
    return jax.tree.map(jnp.zeros, shapes)
""",
    },
    {
        "function": "zeros_from_shapes",
        "misconception": "every tuple is a shape",
        "teaches": "Gotchas → Shape tuples are nodes",
        "source": """
def zeros_from_shapes(shapes):
    return jax.tree.map(jnp.zeros, shapes, is_leaf=lambda node: isinstance(node, tuple))
""",
    },
    {
        "function": "zeros_from_shapes",
        "misconception": "a non-empty tuple of ints is a shape, () is an empty container",
        "teaches": "Gotchas → Shape tuples are nodes",
        "source": """
def zeros_from_shapes(shapes):
    def is_shape(node):
        return isinstance(node, tuple) and len(node) > 0 and all(isinstance(n, int) for n in node)

    return jax.tree.map(jnp.zeros, shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "fill_none",
        "misconception": "jax.tree.map calls the function on None",
        "teaches": "Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    return jax.tree.map(lambda x: value if x is None else x, tree)
""",
    },
    {
        "function": "fill_none",
        "misconception": "empty containers are None too",
        "teaches": "Gotchas → None is not a leaf",
        "source": """
def fill_none(tree, value):
    def is_empty(x):
        return x is None or (isinstance(x, (list, tuple, dict)) and len(x) == 0)

    return jax.tree.map(lambda x: value if is_empty(x) else x, tree, is_leaf=is_empty)
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "dicts flatten in insertion order",
        "teaches": "Gotchas → Dict order",
        "source": """
def leaf_keys(d):
    return [key for key in d for _ in jax.tree.leaves(d[key])]
""",
    },
    {
        "function": "leaf_keys",
        "misconception": "an OrderedDict is sorted like any dict",
        "teaches": "Gotchas → Dict order",
        "source": """
def leaf_keys(d):
    return [key for key in sorted(d) for _ in jax.tree.leaves(d[key])]
""",
    },
]
