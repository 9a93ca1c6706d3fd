"""Wrong-but-plausible versions of the Mapping exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "ones_from_shapes",
        "misconception": "jax.tree.map(jnp.ones, shapes) sees each shape as one leaf",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    return jax.tree.map(jnp.ones, shapes)
""",
    },
    {
        "function": "ones_from_shapes",
        "misconception": "every tuple is a shape, a tuple of shapes too",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    return jax.tree.map(jnp.ones, shapes, is_leaf=lambda node: isinstance(node, tuple))
""",
    },
    {
        "function": "ones_from_shapes",
        "misconception": "the empty tuple is an empty container, not a scalar's shape",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    def is_shape(node):
        return isinstance(node, tuple) and len(node) > 0 and all(isinstance(d, int) for d in node)

    return jax.tree.map(jnp.ones, shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "ones_from_shapes",
        "misconception": "a walk of its own over dicts, lists and tuples is as good as jax.tree.map with is_leaf",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    if shapes is None:
        return None
    if isinstance(shapes, tuple) and all(isinstance(size, int) for size in shapes):
        return jnp.ones(shapes)
    if isinstance(shapes, dict):
        return type(shapes)((key, ones_from_shapes(value)) for key, value in shapes.items())
    items = [ones_from_shapes(item) for item in shapes]
    return type(shapes)(*items) if hasattr(shapes, "_fields") else type(shapes)(items)
""",
    },
    {
        "function": "ones_from_shapes",
        "misconception": "any sequence of ints is a shape, so an empty list is the scalar shape",
        "visible_passes": "only other inputs than the visible tests' show it: None and empty containers hold no shape: they come back as they were",
        "teaches": "Reread Mapping → Mapping over one tree",
        "source": """
def ones_from_shapes(shapes):
    def is_shape(node):
        return isinstance(node, (tuple, list)) and all(isinstance(d, int) for d in node)

    return jax.tree.map(lambda shape: jnp.ones(tuple(shape)), shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "a None gradient never reaches the mapped function",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": """
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "the order of the trees passed to jax.tree.map does not matter",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": """
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda g, p: p if g is None else p - lr * g, grads, params)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "two dicts' values pair up in insertion order",
        "teaches": "Reread Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    if params is None or grads is None:
        return params
    if isinstance(params, dict):
        pairs = zip(params.items(), grads.values())
        return type(params)((key, sgd_update(p, g, lr)) for (key, p), g in pairs)
    if isinstance(params, list):
        return [sgd_update(p, g, lr) for p, g in zip(params, grads)]
    if isinstance(params, tuple):
        items = [sgd_update(p, g, lr) for p, g in zip(params, grads)]
        return type(params)(*items) if hasattr(params, "_fields") else tuple(items)
    return params - lr * grads
""",
    },
    {
        "function": "sgd_update",
        "misconception": "zipping the two trees' leaves is the update",
        "teaches": "Reread Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    return [p - lr * g for p, g in zip(jax.tree.leaves(params), jax.tree.leaves(grads))]
""",
    },
    {
        "function": "sgd_update",
        "misconception": "descent adds the gradient",
        "teaches": "Reread Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p if g is None else p + lr * g, params, grads)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "a walk of its own over dicts, lists and tuples is as good as one jax.tree.map over both trees",
        "teaches": "Reread Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    if params is None:
        return None
    if grads is None:
        return params
    if isinstance(params, dict):
        return type(params)((key, sgd_update(p, grads[key], lr)) for key, p in params.items())
    if isinstance(params, (list, tuple)):
        items = [sgd_update(p, g, lr) for p, g in zip(params, grads)]
        return type(params)(*items) if hasattr(params, "_fields") else type(params)(items)
    return params - lr * grads
""",
    },
    {
        "function": "sgd_update",
        "misconception": "updating the parameters' containers in place and returning them is fine",
        "teaches": "Reread Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    if params is None or grads is None:
        return params
    if isinstance(params, (dict, list)):
        keys = params.keys() if isinstance(params, dict) else range(len(params))
        for key in keys:
            params[key] = sgd_update(params[key], grads[key], lr)
        return params
    if isinstance(params, tuple):
        items = [sgd_update(p, g, lr) for p, g in zip(params, grads)]
        return type(params)(*items) if hasattr(params, "_fields") else tuple(items)
    return params - lr * grads
""",
    },
    {
        "function": "global_norm",
        "misconception": "jax.tree.reduce needs no initializer",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    return jnp.sqrt(jax.tree.reduce(lambda acc, leaf: acc + jnp.sum(jnp.square(leaf)), tree))
""",
    },
    {
        "function": "global_norm",
        "misconception": "the global norm is the sum of the leaves' norms",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    return float(sum(jnp.linalg.norm(jnp.ravel(leaf)) for leaf in jax.tree.leaves(tree)))
""",
    },
    {
        "function": "global_norm",
        "misconception": "every tree has at least one leaf to concatenate",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    flat = jnp.concatenate([jnp.ravel(leaf) for leaf in jax.tree.leaves(tree)])
    return float(jnp.linalg.norm(flat))
""",
    },
    {
        "function": "global_norm",
        "misconception": "a walk of its own over dicts, lists and tuples is as good as jax.tree.reduce",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    def total(node):
        if node is None:
            return 0.0
        if isinstance(node, dict):
            return sum(total(value) for value in node.values())
        if isinstance(node, (list, tuple)):
            return sum(total(item) for item in node)
        return float(jnp.sum(jnp.square(jnp.asarray(node))))

    return float(jnp.sqrt(total(tree)))
""",
    },
    {
        "function": "global_norm",
        "misconception": "jnp.linalg.norm(leaf, 2) is a leaf's L2 norm whatever its shape",
        "visible_passes": "only other inputs than the visible tests' show it: Every number of a 2-D leaf counts once, squared, as if the leaf were flattened: the global norm is not a matrix norm such as the largest singular value",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    def squared_norm(leaf):
        if jnp.ndim(leaf) == 0:
            return jnp.square(leaf)
        return jnp.square(jnp.linalg.norm(leaf, 2))

    return float(jnp.sqrt(jax.tree.reduce(lambda acc, leaf: acc + squared_norm(leaf), tree, 0.0)))
""",
    },
    {
        "function": "global_norm",
        "misconception": "the 0-d array jnp.sqrt returns is the Python float the docstring asks for",
        "teaches": "convert the result at the end. Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    return jnp.sqrt(jax.tree.reduce(lambda acc, leaf: acc + jnp.sum(jnp.square(leaf)), tree, 0.0))
""",
    },
    {
        "function": "stack",
        "misconception": "jax.tree.map(f, trees) gives f one leaf from each tree in the list",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), trees)
""",
    },
    {
        "function": "stack",
        "misconception": "a list of the stacked leaves is the stacked tree",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    return [jnp.stack(leaves) for leaves in zip(*[jax.tree.leaves(t) for t in trees])]
""",
    },
    {
        "function": "stack",
        "misconception": "dicts' values line up in insertion order",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    first = trees[0]
    if first is None:
        return None
    if isinstance(first, dict):
        columns = zip(*[list(t.values()) for t in trees])
        return type(first)((key, stack(list(col))) for key, col in zip(first, columns))
    if isinstance(first, (list, tuple)):
        items = [stack([t[i] for t in trees]) for i in range(len(first))]
        if hasattr(first, "_fields"):
            return type(first)(*items)
        return type(first)(items)
    return jnp.stack(trees)
""",
    },
    {
        "function": "stack",
        "misconception": "a walk of its own over dicts, lists and tuples is as good as jax.tree.map over *trees",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    first = trees[0]
    if first is None:
        return None
    if isinstance(first, dict):
        return type(first)((key, stack([t[key] for t in trees])) for key in first)
    if isinstance(first, (list, tuple)):
        items = [stack([t[i] for t in trees]) for i in range(len(first))]
        return type(first)(*items) if hasattr(first, "_fields") else type(first)(items)
    return jnp.stack(trees)
""",
    },
    {
        "function": "stack",
        "misconception": "concatenating the leaves is stacking them",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    return jax.tree.map(lambda *leaves: jnp.concatenate([jnp.atleast_1d(x) for x in leaves]), *trees)
""",
    },
    {
        "function": "unstack",
        "misconception": "mapping a function that returns the slices gives a list of trees",
        "teaches": "Reread Mapping → Returning a tuple adds a level",
        "source": """
def unstack(tree):
    return jax.tree.map(list, tree)
""",
    },
    {
        "function": "unstack",
        "misconception": "jax.tree.transpose with a tuple as the inner structure gives a list",
        "teaches": "Reread Mapping → Returning a tuple adds a level",
        "source": """
def unstack(tree):
    n = len(jax.tree.leaves(tree)[0])
    slices = jax.tree.map(lambda leaf: tuple(leaf), tree)
    return jax.tree.transpose(jax.tree.structure(tree), jax.tree.structure((0,) * n), slices)
""",
    },
    {
        "function": "unstack",
        "misconception": "the number of trees is the size of the top-level container",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    return [jax.tree.map(lambda leaf: leaf[i], tree) for i in range(len(tree))]
""",
    },
    {
        "function": "unstack",
        "misconception": "a walk of its own over dicts, lists and tuples is as good as jax.tree.map",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    def take(node, i):
        if node is None:
            return None
        if isinstance(node, dict):
            return type(node)((key, take(value, i)) for key, value in node.items())
        if isinstance(node, (list, tuple)):
            items = [take(item, i) for item in node]
            return type(node)(*items) if hasattr(node, "_fields") else type(node)(items)
        return node[i]

    n = len(jax.tree.leaves(tree)[0])
    return [take(tree, i) for i in range(n)]
""",
    },
    {
        "function": "unstack",
        "misconception": "the number of trees is the first leaf's size",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    n = jax.tree.leaves(tree)[0].size
    return [jax.tree.map(lambda leaf: leaf[i], tree) for i in range(n)]
""",
    },
    {
        "function": "unstack",
        "misconception": "slicing leaf[i : i + 1] is indexing leaf[i]",
        "teaches": "index each leaf, do not slice it. Reread Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    n = len(jax.tree.leaves(tree)[0])
    return [jax.tree.map(lambda leaf: leaf[i : i + 1], tree) for i in range(n)]
""",
    },
    {
        "function": "sgd_update",
        "misconception": "a frozen parameter is one whose gradient is zero",
        "visible_passes": "only other inputs than the visible tests' show it: A frozen parameter comes back unchanged, the very value it was: an int32 array stays int32 and a Python number stays a Python number",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": """
def sgd_update(params, grads, lr):
    def step(p, g):
        if g is None:
            g = jnp.zeros_like(p)  # frozen: no gradient, so no change
        return p - lr * g

    return jax.tree.map(step, params, grads)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "p -= lr * g inside the map is harmless",
        "visible_passes": "only other inputs than the visible tests' show it: Each updated parameter is a new value, p - lr * g, with the dtype that expression gives (NumPy float32 minus float64 is float64)",
        "teaches": "Reread Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    def step(p, g):
        if g is None:
            return p
        p -= lr * g
        return p

    return jax.tree.map(step, params, grads)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "recursing over dicts, lists and tuples is the same as jax.tree.map",
        "teaches": "Reread Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    if params is None:
        return None
    if grads is None:
        return params
    if isinstance(params, dict):
        return {key: sgd_update(params[key], grads[key], lr) for key in sorted(params)}
    if isinstance(params, (list, tuple)):
        return type(params)(sgd_update(p, g, lr) for p, g in zip(params, grads))
    return params - lr * grads
""",
    },
    {
        "function": "global_norm",
        "misconception": "an empty tree's norm can be the int 0",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    leaves = jax.tree.leaves(tree)
    if not leaves:
        return 0
    total = sum(jnp.sum(jnp.square(leaf)) for leaf in leaves)
    return float(jnp.sqrt(total))
""",
    },
    {
        "function": "global_norm",
        "misconception": "squares can be summed in the leaf's own dtype (ints included)",
        "visible_passes": "only other inputs than the visible tests' show it: Every number is squared and summed as a float32, an int leaf's too: summed as int32, squares past 46341 squared overflow and the norm comes out wrong",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    total = jax.tree.reduce(lambda acc, leaf: acc + jnp.sum(leaf * leaf), tree, 0)
    return float(jnp.sqrt(total))
""",
    },
    {
        "function": "stack",
        "misconception": "after transposing, every list in the tree is one group of leaves to stack",
        "visible_passes": "only other inputs than the visible tests' show it: The result should have the structure of each input tree, namedtuples, None and empty containers included",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    outer = jax.tree.structure([0] * len(trees))
    grouped = jax.tree.transpose(outer, None, trees)  # a tree of lists
    return jax.tree.map(lambda group: jnp.stack(group), grouped,
                        is_leaf=lambda node: isinstance(node, list))
""",
    },
    {
        "function": "stack",
        "misconception": "a recursion over dicts, lists and tuples pairs the leaves just as well",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    first = trees[0]
    if first is None:
        return None
    if isinstance(first, dict):
        return {key: stack([tree[key] for tree in trees]) for key in first}
    if isinstance(first, (list, tuple)):
        return type(first)(stack(list(group)) for group in zip(*trees))
    return jnp.stack(trees)
""",
    },
    {
        "function": "unstack",
        "misconception": "split along the first axis then squeeze removes just that axis",
        "visible_passes": "only other inputs than the visible tests' show it: Tree i holds leaf[i] itself: a NumPy leaf gives NumPy slices with its own dtype (converting it to a JAX array first turns float64 into float32), and only the first axis goes",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    n = jax.tree.leaves(tree)[0].shape[0]
    return [jax.tree.map(lambda leaf: jnp.split(leaf, n)[i].squeeze(), tree) for i in range(n)]
""",
    },
    {
        "function": "unstack",
        "misconception": "leaves should be converted to JAX arrays before slicing",
        "visible_passes": "only other inputs than the visible tests' show it: Tree i holds leaf[i] itself: a NumPy leaf gives NumPy slices with its own dtype (converting it to a JAX array first turns float64 into float32), and only the first axis goes",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    n = len(jax.tree.leaves(tree)[0])
    return [jax.tree.map(lambda leaf: jnp.asarray(leaf)[i], tree) for i in range(n)]
""",
    },
    {
        "function": "ones_from_shapes",
        "misconception": "a shape is a tuple whose first item is an int",
        "visible_passes": "only other inputs than the visible tests' show it: A namedtuple whose items are all ints is a tuple of ints, so it is a shape: it gives one array",
        "teaches": "Reread Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    def is_shape(node):
        return type(node) is tuple and (not node or isinstance(node[0], int))

    return jax.tree.map(jnp.ones, shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "the update can be written with jnp so every parameter becomes a JAX array",
        "visible_passes": "only other inputs than the visible tests' show it: A frozen parameter comes back unchanged, the very value it was: an int32 array stays int32 and a Python number stays a Python number",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": """
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: jnp.asarray(p) if g is None else p - lr * g, params, grads)
""",
    },
    {
        "function": "global_norm",
        "misconception": "square in the leaf's dtype, then add the totals as floats",
        "visible_passes": "only other inputs than the visible tests' show it: Every number is squared and summed as a float32, an int leaf's too: summed as int32, squares past 46341 squared overflow and the norm comes out wrong",
        "teaches": "Reread Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    total = jax.tree.reduce(lambda acc, leaf: acc + jnp.sum(jnp.square(leaf)), tree, 0.0)
    return float(jnp.sqrt(total))
""",
    },
    {
        "function": "unstack",
        "misconception": "slicing with leaf[i:i+1] keeps each tree's leaves as they were",
        "teaches": "Reread Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    n = len(jax.tree.leaves(tree)[0])
    return [jax.tree.map(lambda leaf: leaf[i : i + 1], tree) for i in range(n)]
""",
    },
]
