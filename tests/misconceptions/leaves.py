"""Wrong-but-plausible versions of the Leaves exercise, one per misconception."""

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
        "function": "is_leaf_type",
        "misconception": "anything that is not a list, tuple or dict is a leaf, None too",
        "teaches": "Leaves → None is a node",
        "source": """
def is_leaf_type(value):
    return not isinstance(value, (list, tuple, dict))
""",
    },
]
