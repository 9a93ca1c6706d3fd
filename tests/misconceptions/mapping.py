"""Wrong-but-plausible versions of the Mapping exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "ones_from_shapes",
        "misconception": "jax.tree.map(jnp.ones, shapes) sees each shape as one leaf",
        "teaches": "Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    return jax.tree.map(jnp.ones, shapes)
""",
    },
    {
        "function": "ones_from_shapes",
        "misconception": "every tuple is a shape, a tuple of shapes too",
        "teaches": "Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    return jax.tree.map(jnp.ones, shapes, is_leaf=lambda node: isinstance(node, tuple))
""",
    },
    {
        "function": "ones_from_shapes",
        "misconception": "the empty tuple is an empty container, not a scalar's shape",
        "teaches": "Mapping → The tree-of-shapes trap",
        "source": """
def ones_from_shapes(shapes):
    def is_shape(node):
        return isinstance(node, tuple) and len(node) > 0 and all(isinstance(d, int) for d in node)

    return jax.tree.map(jnp.ones, shapes, is_leaf=is_shape)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "a None gradient never reaches the mapped function",
        "teaches": "Mapping → The first tree is a prefix",
        "source": """
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "the order of the trees passed to jax.tree.map does not matter",
        "teaches": "Mapping → The first tree is a prefix",
        "source": """
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda g, p: p if g is None else p - lr * g, grads, params)
""",
    },
    {
        "function": "sgd_update",
        "misconception": "two dicts' values pair up in insertion order",
        "teaches": "Mapping → Mapping over several trees",
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
        "teaches": "Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    return [p - lr * g for p, g in zip(jax.tree.leaves(params), jax.tree.leaves(grads))]
""",
    },
    {
        "function": "sgd_update",
        "misconception": "descent adds the gradient",
        "teaches": "Mapping → An SGD step",
        "source": """
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p if g is None else p + lr * g, params, grads)
""",
    },
    {
        "function": "global_norm",
        "misconception": "jax.tree.reduce needs no initializer",
        "teaches": "Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    return jnp.sqrt(jax.tree.reduce(lambda acc, leaf: acc + jnp.sum(jnp.square(leaf)), tree))
""",
    },
    {
        "function": "global_norm",
        "misconception": "the global norm is the sum of the leaves' norms",
        "teaches": "Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    return float(sum(jnp.linalg.norm(jnp.ravel(leaf)) for leaf in jax.tree.leaves(tree)))
""",
    },
    {
        "function": "global_norm",
        "misconception": "every tree has at least one leaf to concatenate",
        "teaches": "Mapping → Reducing a tree",
        "source": """
def global_norm(tree):
    flat = jnp.concatenate([jnp.ravel(leaf) for leaf in jax.tree.leaves(tree)])
    return float(jnp.linalg.norm(flat))
""",
    },
    {
        "function": "stack",
        "misconception": "jax.tree.map(f, trees) gives f one leaf from each tree in the list",
        "teaches": "Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), trees)
""",
    },
    {
        "function": "stack",
        "misconception": "a list of the stacked leaves is the stacked tree",
        "teaches": "Mapping → Transposing a list of trees",
        "source": """
def stack(trees):
    return [jnp.stack(leaves) for leaves in zip(*[jax.tree.leaves(t) for t in trees])]
""",
    },
    {
        "function": "stack",
        "misconception": "dicts' values line up in insertion order",
        "teaches": "Mapping → Mapping over several trees",
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
        "function": "unstack",
        "misconception": "mapping a function that returns the slices gives a list of trees",
        "teaches": "Mapping → Returning a tuple adds a level",
        "source": """
def unstack(tree):
    return jax.tree.map(list, tree)
""",
    },
    {
        "function": "unstack",
        "misconception": "jax.tree.transpose with a tuple as the inner structure gives a list",
        "teaches": "Mapping → Returning a tuple adds a level",
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
        "teaches": "Mapping → Transposing a list of trees",
        "source": """
def unstack(tree):
    return [jax.tree.map(lambda leaf: leaf[i], tree) for i in range(len(tree))]
""",
    },
]
