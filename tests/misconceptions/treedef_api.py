"""Wrong-but-plausible versions of The treedef and key API exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

ROOT = "Reread The treedef and key API → What a treedef says about its root"
WALK = "Reread The treedef and key API → Walking a treedef"
PREFIX = "Reread The treedef and key API → Flattening up to a prefix"
TRANSPOSE = "Reread The treedef and key API → Transposing a tree of trees"
KEYED = "Reread The treedef and key API → Registering nodes with keys"
KEYSTR = "Reread The treedef and key API → What keystr prints, and keys of your own"

LINEAR = """
class Linear:
    def __init__(self, weight, bias):
        self.weight = weight
        self.bias = bias

"""

PATHS = """

def linear_paths(weight, bias):
    return [keystr(path) for path, _ in jax.tree.leaves_with_path(Linear(weight, bias))]
"""

CASES = [
    {
        "function": "linear_paths",
        "misconception": "register_pytree_node gives the children names too",
        "teaches": KEYSTR,
        "source": LINEAR
        + """
jax.tree_util.register_pytree_node(
    Linear,
    lambda layer: ((layer.weight, layer.bias), None),
    lambda aux_data, children: Linear(*children),
)
"""
        + PATHS,
    },
    {
        "function": "linear_paths",
        "misconception": "register_pytree_node_class reads tree_flatten_with_keys",
        "teaches": KEYSTR,
        "source": """
@jax.tree_util.register_pytree_node_class
class Linear:
    def __init__(self, weight, bias):
        self.weight = weight
        self.bias = bias

    def tree_flatten(self):
        return (self.weight, self.bias), None

    def tree_flatten_with_keys(self):
        return ((GetAttrKey("weight"), self.weight), (GetAttrKey("bias"), self.bias)), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children)
"""
        + PATHS,
    },
    {
        "function": "linear_paths",
        "misconception": "an attribute is named by a DictKey",
        "teaches": KEYSTR,
        "source": LINEAR
        + """
jax.tree_util.register_pytree_with_keys(
    Linear,
    lambda layer: (((DictKey("weight"), layer.weight), (DictKey("bias"), layer.bias)), None),
    lambda aux_data, children: Linear(*children),
)
"""
        + PATHS,
    },
    {
        "function": "linear_paths",
        "misconception": "a plain string is as good a key as GetAttrKey",
        "teaches": KEYSTR,
        "source": LINEAR
        + """
jax.tree_util.register_pytree_with_keys(
    Linear,
    lambda layer: ((("weight", layer.weight), ("bias", layer.bias)), None),
    lambda aux_data, children: Linear(*children),
)
"""
        + PATHS,
    },
    {
        "function": "linear_paths",
        "misconception": "flatten_with_keys may return the bare children",
        "teaches": KEYED,
        "source": LINEAR
        + """
jax.tree_util.register_pytree_with_keys(
    Linear,
    lambda layer: ((layer.weight, layer.bias), None),
    lambda aux_data, children: Linear(*children),
)
"""
        + PATHS,
    },
    {
        "function": "linear_paths",
        "misconception": "the paths can be written by hand without registering the class",
        "teaches": KEYED,
        "source": LINEAR
        + """

def linear_paths(weight, bias):
    inside = [(".weight", weight), (".bias", bias)]
    return [name + keystr(path) for name, child in inside for path, _ in jax.tree.leaves_with_path(child)]
""",
    },
    {
        "function": "transpose_trees",
        "misconception": "stacking the leaves transposes any tree",
        "teaches": TRANSPOSE,
        "source": """
def transpose_trees(trees):
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *trees)
""",
    },
    {
        "function": "transpose_trees",
        "misconception": "the inner structure is the structure of the whole list",
        "teaches": TRANSPOSE,
        "source": """
def transpose_trees(trees):
    outer = jax.tree.structure([0] * len(trees))
    return jax.tree.transpose(outer, jax.tree.structure(trees), trees)
""",
    },
    {
        "function": "transpose_trees",
        "misconception": "the outer and inner treedefs can go in either order",
        "teaches": TRANSPOSE,
        "source": """
def transpose_trees(trees):
    outer = jax.tree.structure([0] * len(trees))
    inner = jax.tree.structure(trees[0])
    return jax.tree.transpose(inner, outer, trees)
""",
    },
    {
        "function": "transpose_trees",
        "misconception": "a tuple of trees is the same outer structure as a list",
        "teaches": TRANSPOSE,
        "source": """
def transpose_trees(trees):
    outer = jax.tree.structure(tuple(0 for _ in trees))
    return jax.tree.transpose(outer, jax.tree.structure(trees[0]), tuple(trees))
""",
    },
    {
        "function": "transpose_trees",
        "misconception": "gathering with jax.tree.map is what the exercise asks for",
        "teaches": TRANSPOSE,
        "source": """
def transpose_trees(trees):
    return jax.tree.map(lambda *leaves: list(leaves), *trees)
""",
    },
    {
        "function": "scale_by_group",
        "misconception": "the order of the trees in jax.tree.map does not matter",
        "teaches": PREFIX,
        "source": """
def scale_by_group(grads, lrs):
    return jax.tree.map(lambda g, lr: lr * g, grads, lrs)
""",
    },
    {
        "function": "scale_by_group",
        "misconception": "a prefix leaf meets a leaf, never a subtree",
        "teaches": PREFIX,
        "source": """
def scale_by_group(grads, lrs):
    return jax.tree.map(lambda lr, g: lr * g, lrs, grads)
""",
    },
    {
        "function": "scale_by_group",
        "misconception": "the leaves of the prefix and of the full tree can be zipped",
        "teaches": PREFIX,
        "source": """
def scale_by_group(grads, lrs):
    leaves, treedef = jax.tree.flatten(grads)
    rates = jax.tree.leaves(lrs)
    rates = rates + [rates[-1]] * (len(leaves) - len(rates))
    return jax.tree.unflatten(treedef, [lr * g for lr, g in zip(rates, leaves)])
""",
    },
    {
        "function": "scale_by_group",
        "misconception": "a recursion over dicts and lists pairs a prefix as well as JAX",
        "teaches": PREFIX,
        "source": """
def scale_by_group(grads, lrs):
    if isinstance(lrs, dict):
        return {key: scale_by_group(grads[key], lrs[key]) for key in lrs}
    if isinstance(lrs, (list, tuple)):
        return type(lrs)(scale_by_group(g, lr) for g, lr in zip(grads, lrs))
    if lrs is None:
        return None
    return jax.tree.map(lambda g: lrs * g, grads)
""",
    },
    {
        "function": "scale_by_group",
        "misconception": "flatten_up_to is called on the full tree's treedef",
        "teaches": PREFIX,
        "source": """
def scale_by_group(grads, lrs):
    treedef = jax.tree.structure(grads)
    rates = treedef.flatten_up_to(lrs)
    return treedef.unflatten([lr * g for lr, g in zip(rates, jax.tree.leaves(grads))])
""",
    },
    {
        "function": "node_counts",
        "misconception": "a treedef without children is a leaf",
        "teaches": ROOT,
        "source": """
def node_counts(tree):
    counts = {}

    def visit(treedef):
        name = "leaf" if not treedef.children() else treedef.node_data()[0].__name__
        counts[name] = counts.get(name, 0) + 1
        for child in treedef.children():
            visit(child)

    visit(jax.tree.structure(tree))
    return counts
""",
    },
    {
        "function": "node_counts",
        "misconception": "treedef_is_leaf tells a leaf from None",
        "teaches": ROOT,
        "source": """
def node_counts(tree):
    counts = {}

    def visit(treedef):
        if jax.tree_util.treedef_is_leaf(treedef):
            name = "leaf"
        else:
            name = treedef.node_data()[0].__name__
        counts[name] = counts.get(name, 0) + 1
        for child in jax.tree_util.treedef_children(treedef):
            visit(child)

    visit(jax.tree.structure(tree))
    return counts
""",
    },
    {
        "function": "node_counts",
        "misconception": "a walk over the Python containers sees what the treedef sees",
        "teaches": WALK,
        "source": """
def node_counts(tree):
    counts = {}

    def visit(node):
        if isinstance(node, dict):
            name, children = "dict", list(node.values())
        elif isinstance(node, (list, tuple)):
            name, children = type(node).__name__, list(node)
        elif node is None:
            name, children = "NoneType", []
        else:
            name, children = "leaf", []
        counts[name] = counts.get(name, 0) + 1
        for child in children:
            visit(child)

    visit(tree)
    return counts
""",
    },
    {
        "function": "node_counts",
        "misconception": "the root's children are all the nodes there are",
        "teaches": WALK,
        "source": """
def node_counts(tree):
    treedef = jax.tree.structure(tree)
    counts = {}
    for td in [treedef] + treedef.children():
        data = td.node_data()
        name = "leaf" if data is None else data[0].__name__
        counts[name] = counts.get(name, 0) + 1
    return counts
""",
    },
]
