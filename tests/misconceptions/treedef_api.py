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
        "function": "linear_paths",
        "misconception": "the children's names belong in the aux_data",
        "teaches": KEYED,
        "source": LINEAR
        + """
jax.tree_util.register_pytree_with_keys(
    Linear,
    lambda layer: (((GetAttrKey("weight"), layer.weight), (GetAttrKey("bias"), layer.bias)), ("weight", "bias")),
    lambda aux_data, children: Linear(*children),
)
"""
        + PATHS,
    },
    {
        "function": "linear_paths",
        "misconception": "the unflatten function may take the children in any order",
        "teaches": KEYED,
        "source": """
class Linear:
    def __init__(self, weight, bias):
        self.weight = weight
        self.bias = bias

jax.tree_util.register_pytree_with_keys(
    Linear,
    lambda l: (((GetAttrKey("weight"), l.weight), (GetAttrKey("bias"), l.bias)), None),
    lambda aux, ch: Linear(ch[1], ch[0]),
)

def linear_paths(weight, bias):
    return [keystr(p) for p, _ in jax.tree.leaves_with_path(Linear(weight, bias))]
""",
    },
    {
        "function": "transpose_trees",
        "misconception": "a recursion over lists, tuples and dicts transposes as JAX does",
        "teaches": TRANSPOSE,
        "source": """
def transpose_trees(trees):
    first = trees[0]
    if isinstance(first, dict):
        return {key: transpose_trees([tree[key] for tree in trees]) for key in sorted(first)}
    if isinstance(first, (list, tuple)) and not hasattr(first, "_fields"):
        return type(first)(transpose_trees([tree[i] for tree in trees]) for i in range(len(first)))
    if first is None:
        return None
    return list(trees)
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
        "function": "transpose_trees",
        "misconception": "the outer treedef is the structure of the list itself",
        "teaches": TRANSPOSE,
        "source": """
def transpose_trees(trees):
    return jax.tree.transpose(jax.tree.structure(list(trees)), None, trees)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a None of the prefix pairs with any subtree",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    limits = iter(max_norms)

    def clip(mark, part):
        if mark is None:
            return part
        limit = next(limits)
        norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(part)))
        if norm <= limit:
            return part
        return jax.tree.map(lambda g: (g * (limit / norm)).astype(g.dtype), part)

    return jax.tree.map(clip, groups, grads)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "max_norms has an entry for every leaf of the is_leaf treedef, None included",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    parts = []
    for mark, part, limit in zip(marks, treedef.flatten_up_to(grads), list(max_norms) + [0.0] * len(marks)):
        if mark is not None:
            norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(part)))
            if norm > limit:
                part = jax.tree.map(lambda g, s=limit / norm: (g * s).astype(g.dtype), part)
        parts.append(part)
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "max_norms follows the order the groups dict was written in",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    if isinstance(groups, dict):
        order = [key for key in groups if groups[key] is not None]
        limits = dict(zip(order, max_norms))
        return {
            key: grads[key] if groups[key] is None else clip_by_group(grads[key], groups[key], [limits[key]])
            for key in grads
        }
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    limits = iter(max_norms)
    parts = []
    for mark, part in zip(marks, treedef.flatten_up_to(grads)):
        if mark is not None:
            limit = next(limits)
            norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(part)))
            if norm > limit:
                part = jax.tree.map(lambda g, s=limit / norm: (g * s).astype(g.dtype), part)
        parts.append(part)
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "each leaf is clipped to the group's maximum by its own norm",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    limits = iter(max_norms)

    def clip_leaf(g, limit):
        norm = jnp.sqrt(jnp.sum(jnp.square(g.astype(jnp.float32))))
        return (g * (limit / norm)).astype(g.dtype) if norm > limit else g

    parts = []
    for mark, part in zip(marks, treedef.flatten_up_to(grads)):
        if mark is not None:
            limit = next(limits)
            part = jax.tree.map(lambda g, limit=limit: clip_leaf(g, limit), part)
        parts.append(part)
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "every group is rescaled to exactly its maximum norm",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    limits = iter(max_norms)
    parts = []
    for mark, part in zip(marks, treedef.flatten_up_to(grads)):
        if mark is not None:
            limit = next(limits)
            norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(part)))
            part = jax.tree.map(lambda g, s=limit / jnp.maximum(norm, 1e-12): (g * s).astype(g.dtype), part)
        parts.append(part)
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a scale computed in float32 leaves a float16 leaf in float16",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    limits = iter(max_norms)
    parts = []
    for mark, part in zip(marks, treedef.flatten_up_to(grads)):
        if mark is not None:
            limit = next(limits)
            norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(part)))
            scale = jnp.minimum(1.0, limit / norm)
            part = jax.tree.map(lambda g, s=scale: g * s, part)
        parts.append(part)
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "one global norm over the whole tree decides every group's scale",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(grads)))
    limits = iter(max_norms)
    parts = []
    for mark, part in zip(marks, treedef.flatten_up_to(grads)):
        if mark is not None:
            limit = next(limits)
            if norm > limit:
                part = jax.tree.map(lambda g, s=limit / norm: (g * s).astype(g.dtype), part)
        parts.append(part)
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a group marked 0, an empty string or False is no group",
        "visible_passes": "only other inputs than the visible tests' show it: With a namedtuple, a registered node or an OrderedDict in grads and groups, or with groups marked by 0, '' or False, some group was not scaled to its own maximum",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    limits = iter(max_norms)
    parts = []
    for mark, part in zip(marks, treedef.flatten_up_to(grads)):
        if mark:
            limit = next(limits)
            norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(part)))
            if norm > limit:
                part = jax.tree.map(lambda g, s=limit / norm: (g * s).astype(g.dtype), part)
        parts.append(part)
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a subtree outside every group may be multiplied by 1",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    treedef = jax.tree.structure(groups, is_leaf=lambda x: x is None)
    marks = jax.tree.leaves(groups, is_leaf=lambda x: x is None)
    limits = iter(max_norms)
    parts = []
    for mark, part in zip(marks, treedef.flatten_up_to(grads)):
        scale = 1.0
        if mark is not None:
            limit = next(limits)
            norm = float(jnp.sqrt(sum(jnp.sum(jnp.square(jnp.asarray(g, jnp.float32))) for g in jax.tree.leaves(part))))
            if norm > limit:
                scale = limit / norm
        parts.append(jax.tree.map(lambda g, s=scale: jnp.asarray(g * s, jnp.asarray(g).dtype), part))
    return treedef.unflatten(parts)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a recursion over dicts and lists pairs a prefix as well as JAX",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    limits = iter(max_norms)

    def walk(g, m):
        if m is None:
            return g
        if isinstance(m, dict):
            return type(g)((key, walk(g[key], m[key])) for key in sorted(m))
        if isinstance(m, (list, tuple)):
            return type(g)(walk(a, b) for a, b in zip(g, m))
        limit = next(limits)
        norm = jnp.sqrt(sum(jnp.sum(jnp.square(x.astype(jnp.float32))) for x in jax.tree.leaves(g)))
        if norm > limit:
            return jax.tree.map(lambda x: (x * (limit / norm)).astype(x.dtype), g)
        return g

    return walk(grads, groups)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a subtree outside every group comes back as None",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    limits = iter(max_norms)

    def clip(mark, part):
        if mark is None:
            return None
        limit = next(limits)
        norm = float(jnp.sqrt(sum(jnp.sum(jnp.asarray(x, jnp.float32) ** 2) for x in jax.tree.leaves(part))))
        if norm <= limit:
            return part
        return jax.tree.map(lambda x: (x * (limit / norm)).astype(x.dtype), part)

    return jax.tree.map(clip, groups, grads, is_leaf=lambda x: x is None)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a group's norm is the sum of its leaves' norms",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    limits = iter(max_norms)

    def clip(mark, part):
        if mark is None:
            return part
        limit = next(limits)
        norm = float(sum(jnp.linalg.norm(jnp.ravel(x)) for x in jax.tree.leaves(part)))
        if norm <= limit:
            return part
        return jax.tree.map(lambda x: (x * (limit / norm)).astype(x.dtype), part)

    return jax.tree.map(clip, groups, grads, is_leaf=lambda x: x is None)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a scale computed in NumPy's float64 leaves a float32 leaf as it was",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    limits = iter(max_norms)

    def clip(mark, part):
        if mark is None:
            return part
        limit = next(limits)
        norm = np.sqrt(sum(np.sum(np.square(np.asarray(x, np.float64))) for x in jax.tree.leaves(part)))
        if norm <= limit:
            return part
        return jax.tree.map(lambda x: np.asarray(x) * (limit / norm), part)

    return jax.tree.map(clip, groups, grads, is_leaf=lambda x: x is None)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "whatever sits under a None may be turned into JAX arrays",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    limits = iter(max_norms)

    def clip(mark, part):
        part = jax.tree.map(jnp.asarray, part)
        if mark is None:
            return part
        limit = next(limits)
        norm = jnp.sqrt(sum(jnp.sum(x.astype(jnp.float32) ** 2) for x in jax.tree.leaves(part)))
        return jax.tree.map(lambda x: jnp.where(norm > limit, x * (limit / norm), x).astype(x.dtype), part)

    return jax.tree.map(clip, groups, grads, is_leaf=lambda x: x is None)
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
    {
        "function": "node_counts",
        "misconception": "'leaf' is always a key, with 0 when there is none",
        "visible_passes": "only other inputs than the visible tests' show it: A namedtuple counts under its own class name, an OrderedDict under 'OrderedDict' and a registered node under its class's name; an array or a string is one leaf; None alone is one node",
        "teaches": WALK,
        "source": """
def node_counts(tree):
    counts = {"leaf": 0}
    def visit(td):
        d = td.node_data()
        name = "leaf" if d is None else d[0].__name__
        counts[name] = counts.get(name, 0) + 1
        for c in td.children():
            visit(c)
    visit(jax.tree.structure(tree))
    return counts
""",
    },
    {
        "function": "node_counts",
        "misconception": "a namedtuple counts as a tuple and an OrderedDict as a dict",
        "teaches": WALK,
        "source": """
def node_counts(tree):
    counts = {}
    def visit(td):
        d = td.node_data()
        if d is None:
            name = "leaf"
        elif issubclass(d[0], tuple):
            name = "tuple"
        elif issubclass(d[0], dict):
            name = "dict"
        else:
            name = d[0].__name__
        counts[name] = counts.get(name, 0) + 1
        for c in td.children():
            visit(c)
    visit(jax.tree.structure(tree))
    return counts
""",
    },
    {
        "function": "node_counts",
        "misconception": "a class's __qualname__ is its name",
        "visible_passes": "only other inputs than the visible tests' show it: A node's type counts under its own __name__, wherever the class was defined: a class defined inside a function or another class has a __qualname__ that names that place too, which is not its name",
        "teaches": WALK,
        "source": """
def node_counts(tree):
    counts = {}
    def visit(td):
        d = td.node_data()
        name = "leaf" if d is None else d[0].__qualname__
        counts[name] = counts.get(name, 0) + 1
        for c in td.children():
            visit(c)
    visit(jax.tree.structure(tree))
    return counts
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "the norm can be summed in each leaf's own dtype, float16 too",
        "visible_passes": "only other inputs than the visible tests' show it: A float16 group whose values pass 256 must still be scaled by its true norm: compute each group's norm in float32, as the docstring says, since a float16 square overflows to inf",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    '''Scale each group of ``grads`` down to its own maximum global norm.'''
    is_none = lambda x: x is None
    groups_def = jax.tree.structure(groups, is_leaf=is_none)
    marks = jax.tree.leaves(groups, is_leaf=is_none)
    parts = groups_def.flatten_up_to(grads)
    norms = iter(max_norms)
    clipped = []
    for mark, part in zip(marks, parts):
        if mark is None:
            clipped.append(part)
            continue
        max_norm = next(norms)
        norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(part)))
        if norm > max_norm:
            part = jax.tree.map(lambda leaf: (leaf * (max_norm / norm)).astype(leaf.dtype), part)
        clipped.append(part)
    return groups_def.unflatten(clipped)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "scaling every group by min(1, max_norm / norm) leaves small groups as they are",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    '''Scale each group of ``grads`` down to its own maximum global norm.'''
    is_none = lambda x: x is None
    groups_def = jax.tree.structure(groups, is_leaf=is_none)
    marks = jax.tree.leaves(groups, is_leaf=is_none)
    parts = groups_def.flatten_up_to(grads)
    norms = iter(max_norms)
    clipped = []
    for mark, part in zip(marks, parts):
        if mark is None:
            clipped.append(part)
            continue
        max_norm = next(norms)
        norm = jnp.sqrt(sum(jnp.sum(jnp.square(leaf.astype(jnp.float32))) for leaf in jax.tree.leaves(part)))
        factor = jnp.minimum(1.0, max_norm / jnp.maximum(norm, 1e-12))
        clipped.append(jax.tree.map(lambda leaf: (leaf * factor).astype(leaf.dtype), part))
    return groups_def.unflatten(clipped)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a group exactly at its maximum gets clipped too (>= instead of >)",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    '''Scale each group of ``grads`` down to its own maximum global norm.'''
    is_none = lambda x: x is None
    groups_def = jax.tree.structure(groups, is_leaf=is_none)
    marks = jax.tree.leaves(groups, is_leaf=is_none)
    parts = groups_def.flatten_up_to(grads)
    norms = iter(max_norms)
    clipped = []
    for mark, part in zip(marks, parts):
        if mark is None:
            clipped.append(part)
            continue
        max_norm = next(norms)
        norm = jnp.sqrt(sum(jnp.sum(jnp.square(leaf.astype(jnp.float32))) for leaf in jax.tree.leaves(part)))
        if norm >= max_norm:
            part = jax.tree.map(lambda leaf: (leaf * (max_norm / norm)).astype(leaf.dtype), part)
        clipped.append(part)
    return groups_def.unflatten(clipped)
""",
    },
    {
        "function": "clip_by_group",
        "misconception": "a clipped norm needs an epsilon, max_norm / (norm + 1e-6)",
        "visible_passes": "only other inputs than the visible tests' show it: a group of small gradients, whose norm the epsilon changes by more than the tests' tolerance",
        "teaches": PREFIX,
        "source": """
def clip_by_group(grads, groups, max_norms):
    limits = iter(max_norms)

    def scaled(part, limit):
        norm = jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32))) for g in jax.tree.leaves(part)))
        factor = limit / (norm + 1e-6)  # as torch's clip_grad_norm_ writes it
        return jax.tree.map(lambda g: (g * factor).astype(g.dtype), part) if norm > limit else part

    return jax.tree.map(
        lambda mark, part: part if mark is None else scaled(part, next(limits)),
        groups,
        grads,
        is_leaf=lambda node: node is None,
    )
""",
    },
]
