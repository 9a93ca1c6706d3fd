"""Wrong-but-plausible versions of the Leaves exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "count_leaves",
        "misconception": "None is a leaf",
        "visible_passes": "only other inputs than the visible tests' show it: By default None is a node with no children, not a leaf: it adds nothing to the count",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    return len(jax.tree.leaves(tree, is_leaf=lambda node: node is None))
""",
    },
    {
        "function": "count_leaves",
        "misconception": "an array is a container of its numbers",
        "visible_passes": "only other inputs than the visible tests' show it: An array is one leaf, however many numbers it holds: JAX does not look inside it",
        "teaches": "Reread Leaves → Containers and leaves",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    is_leaf = (lambda node: node is None) if none_is_leaf else None
    return sum(int(np.size(leaf)) for leaf in jax.tree.leaves(tree, is_leaf=is_leaf))
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "dicts flatten in insertion order",
        "teaches": "Reread Leaves → Flattening order",
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
        "teaches": "Reread Leaves → Flattening order",
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
        "visible_passes": "only other inputs than the visible tests' show it: A namedtuple is a registered container: its fields are visited in order",
        "teaches": "Reread Leaves → The registry",
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
        "teaches": "Reread Leaves → None is a node",
        "source": """
def is_leaf_type(value):
    return not isinstance(value, (list, tuple, dict))
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "a treedef with a single node is a leaf",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def is_leaf_type(value):
    return jax.tree_util.treedef_is_leaf(jax.tree.structure(value))
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "a value with exactly one leaf is a leaf",
        "visible_passes": "only other inputs than the visible tests' show it: A container that holds a single leaf is still a container, not a leaf",
        "teaches": "Reread Leaves → Containers and leaves",
        "source": """
def is_leaf_type(value):
    return len(jax.tree.leaves(value)) == 1
""",
    },
    {
        "function": "count_leaves",
        "misconception": "a hand-written walk over the built-in container types finds the same leaves as JAX",
        "teaches": "Reread Leaves → The registry",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    if tree is None:
        return 1 if none_is_leaf else 0
    kind = type(tree)
    if kind in (list, tuple) or (isinstance(tree, tuple) and hasattr(tree, "_fields")):
        return sum(count_leaves(child, none_is_leaf=none_is_leaf) for child in tree)
    if kind in (dict, OrderedDict, defaultdict):
        return sum(count_leaves(child, none_is_leaf=none_is_leaf) for child in tree.values())
    return 1
""",
    },
    {
        "function": "count_leaves",
        "misconception": "the Nones can be counted by hand and added to JAX's count, no need for is_leaf",
        "visible_passes": "only other inputs than the visible tests' show it: With none_is_leaf=True a None inside a registered node counts too: let JAX walk the tree, and tell it with is_leaf to stop at each None",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def _nones(tree):
    if tree is None:
        return 1
    if isinstance(tree, (list, tuple)):
        return sum(_nones(child) for child in tree)
    if isinstance(tree, dict):
        return sum(_nones(child) for child in tree.values())
    return 0


def count_leaves(tree, *, none_is_leaf=False):
    count = len(jax.tree.leaves(tree))
    return count + _nones(tree) if none_is_leaf else count
""",
    },
    {
        "function": "count_leaves",
        "misconception": "the Nones show in the printed tree, so counting 'None' in its text adds them",
        "visible_passes": "only other inputs than the visible tests' show it: With none_is_leaf=True only the None values add a leaf each; every other leaf, strings included, counts once as always",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    count = len(jax.tree.leaves(tree))
    return count + str(tree).count("None") if none_is_leaf else count
""",
    },
    {
        "function": "count_leaves",
        "misconception": "none_is_leaf makes every childless node a leaf, empty containers too",
        "visible_passes": "only other inputs than the visible tests' show it: With none_is_leaf=True each None counts as one leaf and nothing else changes: empty containers still add nothing",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    def childless(node):
        return node is None or (type(node) in (list, tuple, dict) and len(node) == 0)

    return len(jax.tree.leaves(tree, is_leaf=childless if none_is_leaf else None))
""",
    },
    {
        "function": "count_leaves",
        "misconception": "sets and ranges are collections, so JAX walks into them like lists",
        "visible_passes": "only other inputs than the visible tests' show it: Only registered types are containers: sets, ranges and objects of unregistered classes are one leaf each, whatever they hold",
        "teaches": "Reread Leaves → The registry",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    def opened(node):
        if type(node) in (set, frozenset, range):
            return [opened(item) for item in node]
        if type(node) is list:
            return [opened(item) for item in node]
        if type(node) is tuple:
            return tuple(opened(item) for item in node)
        if type(node) is dict:
            return {key: opened(value) for key, value in node.items()}
        return node

    is_leaf = (lambda node: node is None) if none_is_leaf else None
    return len(jax.tree.leaves(opened(tree), is_leaf=is_leaf))
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "asking JAX for the leaves is the same as walking the tree yourself",
        "teaches": "Reread Leaves → The registry",
        "source": """
def leaves_in_order(tree):
    return jax.tree_util.tree_leaves(tree)
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "JAX's one-level flattening can decide what a container is while I recurse by hand",
        "teaches": "Reread Leaves → The registry",
        "source": """
def leaves_in_order(tree):
    try:
        children, _ = jax.tree_util.flatten_one_level(tree)
    except ValueError:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "sorting dict keys by their text avoids the mixed-key error and gives the same order",
        "visible_passes": "only other inputs than the visible tests' show it: Dict keys are sorted as they are, numbers as numbers, not as the text they print as",
        "teaches": "Reread Leaves → Flattening order",
        "source": """
def leaves_in_order(tree):
    if tree is None:
        return []
    kind = type(tree)
    if kind is list or kind is tuple or (isinstance(tree, tuple) and hasattr(tree, "_fields")):
        children = list(tree)
    elif kind is dict or kind is defaultdict:
        children = [tree[key] for key in sorted(tree, key=str)]
    elif kind is OrderedDict:
        children = list(tree.values())
    else:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "sets and ranges are containers like lists, so their items are the leaves",
        "visible_passes": "only other inputs than the visible tests' show it: Only registered types are containers: sets, ranges and objects of unregistered classes are leaves, kept whole",
        "teaches": "Reread Leaves → The registry",
        "source": """
def leaves_in_order(tree):
    if tree is None:
        return []
    kind = type(tree)
    if kind in (list, tuple, set, frozenset, range) or (isinstance(tree, tuple) and hasattr(tree, "_fields")):
        children = list(tree)
    elif kind is dict or kind is defaultdict:
        children = [tree[key] for key in sorted(tree)]
    elif kind is OrderedDict:
        children = list(tree.values())
    else:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "a hand-written list of the built-in container types is JAX's registry",
        "teaches": "Reread Leaves → The registry",
        "source": """
def is_leaf_type(value):
    if value is None or type(value) in (list, tuple, dict, OrderedDict, defaultdict):
        return False
    return not (isinstance(value, tuple) and hasattr(value, "_fields"))
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "anything iterable, apart from strings, is a container",
        "teaches": "Reread Leaves → The registry",
        "source": """
import collections.abc


def is_leaf_type(value):
    if value is None:
        return False
    if isinstance(value, (str, bytes)):
        return True
    return not isinstance(value, collections.abc.Iterable)
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "isinstance checks: subclasses of list/tuple/dict are containers",
        "visible_passes": "only other inputs than the visible tests' show it: JAX registers containers by exact type: an instance of a subclass of list, tuple or dict is one leaf, kept whole, not walked into (compare types with `is`, not isinstance)",
        "teaches": "Reread Leaves → Subclasses are leaves",
        "source": """
def leaves_in_order(tree):
    out = []

    def walk(node):
        if node is None:
            return
        if isinstance(node, OrderedDict):
            for value in node.values():
                walk(value)
        elif isinstance(node, dict):
            for key in sorted(node):
                walk(node[key])
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)
        else:
            out.append(node)

    walk(tree)
    return out
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "only a plain dict is sorted; defaultdict keeps insertion order",
        "visible_passes": "only other inputs than the visible tests' show it: A defaultdict is a dict to JAX: its values come in sorted key order, not insertion order",
        "teaches": "Reread Leaves → Flattening order",
        "source": """
def leaves_in_order(tree):
    out = []

    def walk(node):
        kind = type(node)
        if node is None:
            return
        if kind is dict:
            for key in sorted(node):
                walk(node[key])
        elif kind in (OrderedDict, defaultdict):
            for value in node.values():
                walk(value)
        elif kind in (list, tuple) or (isinstance(node, tuple) and hasattr(node, "_fields")):
            for item in node:
                walk(item)
        else:
            out.append(node)

    walk(tree)
    return out
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "empty things (falsy values) have no leaves, like None and []",
        "visible_passes": "only other inputs than the visible tests' show it: A leaf that is zero, empty or false is still a leaf: only None and empty containers give nothing",
        "teaches": "Reread Leaves → Empty containers",
        "source": """
def leaves_in_order(tree):
    out = []

    def walk(node):
        kind = type(node)
        if node is None:
            return
        if not isinstance(node, (np.ndarray, jax.Array)) and not node:
            return  # None, [], (), {} and other empty values give nothing
        if kind in (dict, defaultdict):
            for key in sorted(node):
                walk(node[key])
        elif kind is OrderedDict:
            for value in node.values():
                walk(value)
        elif kind in (list, tuple) or (isinstance(node, tuple) and hasattr(node, "_fields")):
            for item in node:
                walk(item)
        else:
            out.append(node)

    walk(tree)
    return out
""",
    },
    {
        "function": "is_leaf_type",
        "misconception": "a leaf is a value whose only leaf equals it (== comparison)",
        "visible_passes": "only other inputs than the visible tests' show it: An array is one leaf, even an empty one: JAX does not walk into arrays",
        "teaches": "Reread Leaves → Containers and leaves",
        "source": """
def is_leaf_type(value):
    leaves = jax.tree.leaves(value)
    return bool(len(leaves) == 1 and leaves[0] == value)
""",
    },
    {
        "function": "count_leaves",
        "misconception": "every None shows in the tree's text, so count the word None",
        "visible_passes": "only other inputs than the visible tests' show it: With none_is_leaf=True only the None values add a leaf each; every other leaf, strings included, counts once as always",
        "teaches": "Reread Leaves → None is a node",
        "source": """
def count_leaves(tree, *, none_is_leaf=False):
    count = len(jax.tree.leaves(tree))
    return count + str(tree).count("None") if none_is_leaf else count
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "any tuple, namedtuple or not, is walked into",
        "visible_passes": "only other inputs than the visible tests' show it: JAX registers containers by exact type: an instance of a subclass of list, tuple or dict is one leaf, kept whole, not walked into (compare types with `is`, not isinstance)",
        "teaches": "Reread Leaves → Subclasses are leaves",
        "source": """
def leaves_in_order(tree):
    if tree is None:
        return []
    if type(tree) is list or isinstance(tree, tuple):
        children = list(tree)
    elif type(tree) in (dict, defaultdict):
        children = [tree[k] for k in sorted(tree)]
    elif type(tree) is OrderedDict:
        children = list(tree.values())
    else:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
    {
        "function": "leaves_in_order",
        "misconception": "everything iterable but a string is a container",
        "visible_passes": "only other inputs than the visible tests' show it: Only registered types are containers: sets, ranges and objects of unregistered classes are leaves, kept whole",
        "teaches": "Reread Leaves → The registry",
        "source": """
def leaves_in_order(tree):
    if tree is None:
        return []
    if isinstance(tree, OrderedDict):
        children = list(tree.values())
    elif isinstance(tree, dict):
        children = [tree[k] for k in sorted(tree)]
    elif hasattr(tree, "__iter__") and not isinstance(tree, (str, bytes, np.ndarray, jax.Array)):
        children = list(tree)
    else:
        return [tree]
    return [leaf for child in children for leaf in leaves_in_order(child)]
""",
    },
]
