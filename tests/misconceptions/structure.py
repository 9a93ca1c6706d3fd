"""Wrong-but-plausible versions of the Structure exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "same_structure",
        "misconception": "the same number of leaves is the same structure",
        "teaches": "Structure → Comparing structures",
        "source": """
def same_structure(a, b):
    return len(jax.tree.leaves(a)) == len(jax.tree.leaves(b))
""",
    },
    {
        "function": "same_structure",
        "misconception": "a dict's insertion order is part of its structure",
        "teaches": "Structure → Comparing structures",
        "source": """
def same_structure(a, b):
    containers = (list, tuple, dict)
    if a is None or b is None:
        return a is None and b is None
    if type(a) is not type(b):
        return not isinstance(a, containers) and not isinstance(b, containers)
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_structure(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b))
    return True
""",
    },
    {
        "function": "same_structure",
        "misconception": "trees that jax.tree.map accepts together have the same structure",
        "teaches": "Structure → Comparing structures",
        "source": """
def same_structure(a, b):
    try:
        jax.tree.map(lambda x, y: None, a, b)
    except ValueError:
        return False
    return True
""",
    },
    {
        "function": "replace_leaves",
        "misconception": "new leaves go into a dict in insertion order",
        "teaches": "Structure → Flatten and unflatten",
        "source": """
def replace_leaves(tree, leaves):
    new = iter(leaves)

    def walk(node):
        if node is None:
            return None
        if isinstance(node, dict):
            return type(node)((key, walk(value)) for key, value in node.items())
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            return type(node)(*[walk(child) for child in node])
        if isinstance(node, (list, tuple)):
            return type(node)(walk(child) for child in node)
        return next(new)

    return walk(tree)
""",
    },
    {
        "function": "replace_leaves",
        "misconception": "rebuilding by hand with plain tuples and dicts keeps the structure",
        "teaches": "Structure → Flatten and unflatten",
        "source": """
def replace_leaves(tree, leaves):
    new = iter(leaves)

    def walk(node):
        if node is None:
            return None
        if isinstance(node, dict):
            return {key: walk(node[key]) for key in sorted(node)}
        if isinstance(node, tuple):
            return tuple(walk(child) for child in node)
        if isinstance(node, list):
            return [walk(child) for child in node]
        return next(new)

    return walk(tree)
""",
    },
    {
        "function": "tree_ravel",
        "misconception": "a flat parameter vector is always float32",
        "teaches": "Structure → One flat vector",
        "source": """
def tree_ravel(tree):
    leaves = jax.tree.leaves(tree)
    if not leaves:
        return jnp.zeros(0, jnp.float32)
    return jnp.concatenate([jnp.ravel(jnp.asarray(leaf, jnp.float32)) for leaf in leaves])
""",
    },
    {
        "function": "tree_ravel",
        "misconception": "a leaf's entries can go in any order, column by column too",
        "teaches": "Structure → One flat vector",
        "source": """
def tree_ravel(tree):
    leaves = jax.tree.leaves(tree)
    if not leaves:
        return jnp.zeros(0, jnp.float32)
    dtype = jnp.result_type(*leaves)
    return jnp.concatenate([jnp.ravel(jnp.asarray(leaf, dtype), order="F") for leaf in leaves])
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "the pieces of the vector keep the vector's dtype",
        "teaches": "Structure → One flat vector",
        "source": """
def tree_unravel(like, vector):
    leaves, treedef = jax.tree.flatten(like)
    pieces, start = [], 0
    for leaf in leaves:
        size, shape = np.size(leaf), np.shape(leaf)
        pieces.append(jnp.reshape(vector[start : start + size], shape))
        start += size
    return jax.tree.unflatten(treedef, pieces)
""",
    },
]
