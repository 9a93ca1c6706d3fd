"""Wrong-but-plausible versions of the Structure exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "same_structure",
        "misconception": "the same number of leaves is the same structure",
        "teaches": "Reread Structure → Comparing structures",
        "source": """
def same_structure(a, b):
    return len(jax.tree.leaves(a)) == len(jax.tree.leaves(b))
""",
    },
    {
        "function": "same_structure",
        "misconception": "a dict's insertion order is part of its structure",
        "teaches": "Reread Structure → Comparing structures",
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
        "visible_passes": "only other inputs than the visible tests' show it: Being able to map over both trees is not having the same structure: the first may only be a prefix of the second",
        "teaches": "Reread Structure → Comparing structures",
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
        "visible_passes": "only other inputs than the visible tests' show it: New leaves go in flattening order, and a dict flattens in sorted key order, not insertion order",
        "teaches": "Reread Structure → Flatten and unflatten",
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
        "visible_passes": "only other inputs than the visible tests' show it: The containers are kept as they were: a namedtuple stays that namedtuple, an OrderedDict keeps its order",
        "teaches": "Reread Structure → Flatten and unflatten",
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
        "teaches": "Reread Structure → One flat vector",
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
        "visible_passes": "only other inputs than the visible tests' show it: The leaves go in flattening order: a dict's values in sorted key order, not insertion order, each leaf row by row",
        "teaches": "Reread Structure → One flat vector",
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
        "teaches": "Reread Structure → One flat vector",
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
    {
        "function": "same_structure",
        "misconception": "a hand-written walk over the built-in containers compares structures as JAX does",
        "teaches": "Reread Structure → Comparing structures",
        "source": """
def _shape(tree):
    if tree is None:
        return None
    kind = type(tree)
    if kind is dict:
        return ("dict", tuple((key, _shape(tree[key])) for key in sorted(tree)))
    if kind is OrderedDict:
        return ("ordered", tuple((key, _shape(value)) for key, value in tree.items()))
    if kind in (list, tuple) or (isinstance(tree, tuple) and hasattr(tree, "_fields")):
        return (kind.__name__, getattr(tree, "_fields", None), tuple(_shape(child) for child in tree))
    return "*"


def same_structure(a, b):
    return _shape(a) == _shape(b)
""",
    },
    {
        "function": "same_structure",
        "misconception": "blanking every leaf and comparing the trees with == compares their structures",
        "teaches": "Reread Structure → Comparing structures",
        "source": """
def same_structure(a, b):
    blank = lambda tree: jax.tree.map(lambda leaf: 0, tree)
    try:
        return blank(a) == blank(b)
    except Exception:
        return False
""",
    },
    {
        "function": "same_structure",
        "misconception": "None holds nothing, so it may as well be a leaf when comparing",
        "visible_passes": "only other inputs than the visible tests' show it: None is a node with no children, not a leaf: a None and a leaf in the same place are different structures",
        "teaches": "Reread Structure → Counting leaves and nodes",
        "source": """
def same_structure(a, b):
    is_none = lambda node: node is None
    return jax.tree.structure(a, is_leaf=is_none) == jax.tree.structure(b, is_leaf=is_none)
""",
    },
    {
        "function": "replace_leaves",
        "misconception": "mapping over the tree and taking the next new leaf each time is unflatten",
        "visible_passes": "only other inputs than the visible tests' show it: A list with the wrong number of leaves, too few or too many, must raise a ValueError, as jax.tree.unflatten does: a mistake in the count is caught at once",
        "teaches": "Reread Structure → What unflatten checks",
        "source": """
def replace_leaves(tree, leaves):
    new = iter(leaves)
    return jax.tree.map(lambda _: next(new), tree)
""",
    },
    {
        "function": "replace_leaves",
        "misconception": "the new leaves should be flattened too, to be safe",
        "visible_passes": "only other inputs than the visible tests' show it: Each item of the new list is one leaf, whatever it is, a tuple or None too: put it in place as it is, without taking it apart",
        "teaches": "Reread Structure → What unflatten checks",
        "source": """
def replace_leaves(tree, leaves):
    return jax.tree.unflatten(jax.tree.structure(tree), jax.tree.leaves(leaves))
""",
    },
    {
        "function": "replace_leaves",
        "misconception": "extra leaves are harmless: take as many as the treedef needs",
        "visible_passes": "only other inputs than the visible tests' show it: A list with the wrong number of leaves, too few or too many, must raise a ValueError, as jax.tree.unflatten does: a mistake in the count is caught at once",
        "teaches": "Reread Structure → What unflatten checks",
        "source": """
def replace_leaves(tree, leaves):
    treedef = jax.tree.structure(tree)
    return jax.tree.unflatten(treedef, list(leaves)[: treedef.num_leaves])
""",
    },
    {
        "function": "replace_leaves",
        "misconception": "a careful hand-written rebuild of the built-in containers is as good as the treedef",
        "visible_passes": "only other inputs than the visible tests' show it: An object of a class registered as a pytree node is a node: it stays an object of that class, with the new leaves as its children",
        "teaches": "Reread Structure → Flatten and unflatten",
        "source": """
def replace_leaves(tree, leaves):
    new = iter(leaves)

    def rebuild(node):
        kind = type(node)
        if node is None:
            return None
        if kind is dict:
            values = {key: rebuild(node[key]) for key in sorted(node)}
            return {key: values[key] for key in node}
        if kind is OrderedDict:
            return OrderedDict((key, rebuild(value)) for key, value in node.items())
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            return kind(*[rebuild(child) for child in node])
        if kind in (list, tuple):
            return kind(rebuild(child) for child in node)
        return next(new)

    out = rebuild(tree)
    if next(new, new) is not new:
        raise ValueError("too many leaves")
    return out
""",
    },
    {
        "function": "tree_ravel",
        "misconception": "the first leaf's dtype is the vector's dtype",
        "visible_passes": "only other inputs than the visible tests' show it: A Python number counts with the dtype jnp.asarray gives it, int32 for an int, as ravel_pytree does: a Python int with an int8 array gives int32, not int8",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_ravel(tree):
    leaves = jax.tree.leaves(tree)
    if not leaves:
        return jnp.zeros(0, jnp.float32)
    dtype = jnp.asarray(leaves[0]).dtype
    return jnp.concatenate([jnp.ravel(jnp.asarray(leaf, dtype)) for leaf in leaves])
""",
    },
    {
        "function": "tree_ravel",
        "misconception": "walking the built-in containers by hand finds the same leaves as JAX",
        "visible_passes": "only other inputs than the visible tests' show it: An object of a class registered as a pytree node is a node: its children's numbers go in, in JAX's flattening order",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def _leaves(tree):
    if tree is None:
        return []
    if type(tree) in (dict,):
        return [leaf for key in sorted(tree) for leaf in _leaves(tree[key])]
    if type(tree) is OrderedDict:
        return [leaf for value in tree.values() for leaf in _leaves(value)]
    if isinstance(tree, (list, tuple)):
        return [leaf for child in tree for leaf in _leaves(child)]
    return [tree]


def tree_ravel(tree):
    leaves = _leaves(tree)
    if not leaves:
        return jnp.zeros(0, jnp.float32)
    dtype = jnp.result_type(*leaves)
    return jnp.concatenate([jnp.ravel(jnp.asarray(leaf, dtype)) for leaf in leaves])
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "ravel_pytree's unravel inverts any vector, whatever its dtype",
        "visible_passes": "only other inputs than the visible tests' show it: Each leaf gets its own dtype back whatever the vector's dtype, also when all the leaves share one dtype that is not the vector's",
        "teaches": "Reread Structure → One flat vector",
        "source": """
from jax.flatten_util import ravel_pytree


def tree_unravel(like, vector):
    return ravel_pytree(like)[1](vector)
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "NumPy slicing and astype make the same leaves as JAX operations",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_unravel(like, vector):
    leaves, treedef = jax.tree.flatten(like)
    numbers = np.asarray(vector)
    pieces, start = [], 0
    for leaf in leaves:
        pieces.append(numbers[start : start + leaf.size].reshape(leaf.shape).astype(leaf.dtype))
        start += leaf.size
    return jax.tree.unflatten(treedef, pieces)
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "a leaf with one entry is a scalar, so take vector[start] for it",
        "visible_passes": "only other inputs than the visible tests' show it: Each leaf gets its own shape back, a leaf of one entry too: it stays an array of shape (1,), not a scalar",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_unravel(like, vector):
    leaves, treedef = jax.tree.flatten(like)
    pieces, start = [], 0
    for leaf in leaves:
        if leaf.size == 1:
            piece = vector[start]
        else:
            piece = jnp.reshape(vector[start : start + leaf.size], leaf.shape)
        pieces.append(piece.astype(leaf.dtype))
        start += leaf.size
    return jax.tree.unflatten(treedef, pieces)
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "rebuilding the built-in containers by hand is as good as the treedef",
        "visible_passes": "only other inputs than the visible tests' show it: An object of a class registered as a pytree node stays an object of that class, None kept: rebuild with like's treedef, which knows the class",
        "teaches": "Reread Structure → Flatten and unflatten",
        "source": """
def tree_unravel(like, vector):
    start = 0

    def rebuild(node):
        nonlocal start
        kind = type(node)
        if node is None:
            return None
        if kind is dict:
            values = {key: rebuild(node[key]) for key in sorted(node)}
            return {key: values[key] for key in node}
        if kind is OrderedDict:
            return OrderedDict((key, rebuild(value)) for key, value in node.items())
        if kind in (list, tuple):
            return kind(rebuild(child) for child in node)
        leaf = jnp.asarray(node)
        piece = jnp.reshape(vector[start : start + leaf.size], leaf.shape).astype(leaf.dtype)
        start += leaf.size
        return piece

    return rebuild(like)
""",
    },
    {
        "function": "tree_ravel",
        "misconception": "jnp.concatenate handles every tree, the empty one included",
        "visible_passes": "only other inputs than the visible tests' show it: A tree without leaves ravels to an empty float32 vector, as ravel_pytree gives",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_ravel(tree):
    leaves = jax.tree.leaves(tree)
    return jnp.concatenate([jnp.ravel(leaf) for leaf in leaves])
""",
    },
    {
        "function": "tree_ravel",
        "misconception": "NumPy's promotion rules are the same as JAX's",
        "visible_passes": "only other inputs than the visible tests' show it: The dtype is the one JAX promotes the leaves to, not NumPy's: JAX promotes int32 and float16 to float16, NumPy to float64",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_ravel(tree):
    leaves = jax.tree.leaves(tree)
    if not leaves:
        return jnp.zeros(0, jnp.float32)
    return jnp.asarray(np.concatenate([np.ravel(leaf) for leaf in leaves]))
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "round floats before converting them to an int dtype",
        "visible_passes": "only other inputs than the visible tests' show it: A float piece going back to an int leaf is converted as astype converts, truncated toward zero, not rounded: the vector's numbers are not changed on the way",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_unravel(like, vector):
    leaves, treedef = jax.tree.flatten(like)
    pieces, start = [], 0
    for leaf in leaves:
        piece = vector[start : start + leaf.size].reshape(leaf.shape)
        if jnp.issubdtype(leaf.dtype, jnp.integer):
            piece = jnp.round(piece)  # so 2.9999 becomes 3, not 2
        pieces.append(piece.astype(leaf.dtype))
        start += leaf.size
    return jax.tree.unflatten(treedef, pieces)
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "a leaf's size is np.prod(leaf.shape)",
        "visible_passes": "only other inputs than the visible tests' show it: A 0-d leaf (shape ()) takes one entry of the vector, leaf.size is 1, and comes back with shape (); the next leaf starts after it",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_unravel(like, vector):
    leaves, treedef = jax.tree.flatten(like)
    pieces, start = [], 0
    for leaf in leaves:
        size = np.prod(leaf.shape)
        pieces.append(vector[start : start + size].reshape(leaf.shape).astype(leaf.dtype))
        start += size
    return jax.tree.unflatten(treedef, pieces)
""",
    },
    {
        "function": "replace_leaves",
        "misconception": "the wrong count is an assertion error",
        "visible_passes": "only other inputs than the visible tests' show it: A list with the wrong number of leaves, too few or too many, must raise a ValueError, as jax.tree.unflatten does: a mistake in the count is caught at once",
        "teaches": "Reread Structure → What unflatten checks",
        "source": """
def replace_leaves(tree, leaves):
    treedef = jax.tree.structure(tree)
    assert len(leaves) == treedef.num_leaves, "wrong number of leaves"
    return jax.tree.unflatten(treedef, leaves)
""",
    },
    {
        "function": "tree_ravel",
        "misconception": "float32 is the dtype of every flat vector",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_ravel(tree):
    leaves = jax.tree.leaves(tree)
    if not leaves:
        return jnp.zeros(0, jnp.float32)
    return jnp.concatenate([jnp.ravel(jnp.asarray(leaf, jnp.float32)) for leaf in leaves])
""",
    },
    {
        "function": "tree_unravel",
        "misconception": "the pieces keep the vector's dtype when all the leaves share one",
        "visible_passes": "only other inputs than the visible tests' show it: Each leaf gets its own dtype back whatever the vector's dtype, also when all the leaves share one dtype that is not the vector's",
        "teaches": "Reread Structure → One flat vector",
        "source": """
def tree_unravel(like, vector):
    leaves, treedef = jax.tree.flatten(like)
    dtypes = {jnp.asarray(leaf).dtype for leaf in leaves}
    pieces, start = [], 0
    for leaf in leaves:
        leaf = jnp.asarray(leaf)
        piece = jnp.reshape(vector[start : start + leaf.size], leaf.shape)
        pieces.append(piece if len(dtypes) == 1 else piece.astype(leaf.dtype))
        start += leaf.size
    return jax.tree.unflatten(treedef, pieces)
""",
    },
]
