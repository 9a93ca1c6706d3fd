"""Wrong-but-plausible versions of the Leaves exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "count_leaves",
        "misconception": "None is a leaf",
        "teaches": "Leaves → None is a node",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    return len(jax.tree.leaves(tree, is_leaf=lambda node: node is None))
""",
    },
    {
        "function": "count_leaves",
        "misconception": "an array is a container of its numbers",
        "teaches": "Leaves → Containers and leaves",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    is_leaf = (lambda node: node is None) if none_is_leaf else None
    return sum(int(np.size(leaf)) for leaf in jax.tree.leaves(tree, is_leaf=is_leaf))
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "dicts flatten in insertion order",
        "teaches": "Leaves → Flattening order",
        "source": """
def leaves_in_order(tree):
    if tree is None:
        return []
    if isinstance(tree, (list, tuple)):
        children = list(tree)
    elif isinstance(tree, dict):
        children = list(tree.values())
    else:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "an OrderedDict is sorted like any dict",
        "teaches": "Leaves → Flattening order",
        "source": """
def leaves_in_order(tree):
    if tree is None:
        return []
    if isinstance(tree, (list, tuple)):
        children = list(tree)
    elif isinstance(tree, dict):
        children = [tree[key] for key in sorted(tree)]
    else:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "a namedtuple is a leaf",
        "teaches": "Leaves → The registry",
        "source": """
def leaves_in_order(tree):
    if tree is None:
        return []
    if type(tree) in (list, tuple):
        children = list(tree)
    elif type(tree) in (dict, defaultdict):
        children = [tree[key] for key in sorted(tree)]
    elif type(tree) is OrderedDict:
        children = list(tree.values())
    else:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "anything that is not a list, tuple or dict is a leaf, None too",
        "teaches": "Leaves → None is a node",
        "source": """
def is_leaf_type(value):
    return not isinstance(value, (list, tuple, dict))
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "a treedef with a single node is a leaf",
        "teaches": "Leaves → None is a node",
        "source": """
def is_leaf_type(value):
    return jax.tree_util.treedef_is_leaf(jax.tree.structure(value))
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "a value with exactly one leaf is a leaf",
        "teaches": "Leaves → Containers and leaves",
        "source": """
def is_leaf_type(value):
    return len(jax.tree.leaves(value)) == 1
""",
    },
]
