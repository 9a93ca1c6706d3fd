"""Wrong-but-plausible versions of the Control flow over trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

SCAN_TREES = "Reread Control flow over trees → Scanning over a tree of stacked arrays"
TYPES = "Reread Control flow over trees → Same shapes and dtypes at every leaf"
CARRY = "Reread Control flow over trees → The carry keeps its treedef"
BRANCHES = "Reread Control flow over trees → cond and switch return one structure"
LAYERS = "Reread Control flow over trees → Stacking layers for scan"

CASES = [
    {
        "function": "tree_cumsum",
        "misconception": "a cumulative sum per leaf is the same as a scan over the tree",
        "teaches": SCAN_TREES,
        "source": """
def tree_cumsum(tree):
    return jax.tree.map(lambda leaf: jnp.cumsum(leaf, axis=0), tree)
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "the running totals can start as float32 zeros whatever the data",
        "teaches": TYPES,
        "source": """
def tree_cumsum(tree):
    start = jax.tree.map(lambda leaf: jnp.zeros(leaf.shape[1:]), tree)

    def add_row(totals, rows):
        totals = jax.tree.map(jnp.add, totals, rows)
        return totals, totals

    return lax.scan(add_row, start, tree)[1]
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "each leaf needs a scan of its own",
        "teaches": SCAN_TREES,
        "source": """
def tree_cumsum(tree):
    def one_leaf(leaf):
        def add_row(total, row):
            total = total + row
            return total, total

        return lax.scan(add_row, jnp.zeros_like(leaf[0]), leaf)[1]

    return jax.tree.map(one_leaf, tree)
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "a Python loop over the rows does what scan does",
        "teaches": SCAN_TREES,
        "source": """
def tree_cumsum(tree):
    leaves, treedef = jax.tree.flatten(tree)
    sums = []
    for leaf in leaves:
        rows, total = [], jnp.zeros_like(leaf[0])
        for row in leaf:
            total = total + row
            rows.append(total)
        sums.append(jnp.stack(rows))
    return jax.tree.unflatten(treedef, sums)
""",
    },
    {
        "function": "train_with_scan",
        "misconception": "a Python loop over the batches is as good as a scan",
        "teaches": SCAN_TREES,
        "source": """
def train_with_scan(params, batches, lr):
    losses = []
    for i in range(batches["x"].shape[0]):
        batch = {"x": batches["x"][i], "y": batches["y"][i]}
        value, grads = jax.value_and_grad(loss)(params, batch)
        params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
        losses.append(value)
    return params, jnp.stack(losses)
""",
    },
    {
        "function": "train_with_scan",
        "misconception": "only the weights need to go round the loop",
        "teaches": SCAN_TREES,
        "source": """
def train_with_scan(params, batches, lr):
    def step(w, batch):
        value, grads = jax.value_and_grad(loss)({"w": w, "b": params["b"]}, batch)
        return w - lr * grads["w"], value

    w, losses = lax.scan(step, params["w"], batches)
    return {"w": w, "b": params["b"]}, losses
""",
    },
    {
        "function": "train_with_scan",
        "misconception": "the step can collect the losses in a Python list",
        "teaches": "Reread Pytrees through transformations → Pytrees in, pytrees out",
        "source": """
def train_with_scan(params, batches, lr):
    losses = []

    def step(params, batch):
        value, grads = jax.value_and_grad(loss)(params, batch)
        losses.append(value)
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), None

    params, _ = lax.scan(step, params, batches)
    return params, jnp.stack(losses)
""",
    },
    {
        "function": "train_with_scan",
        "misconception": "the loss can be carried round the loop with the parameters",
        "teaches": CARRY,
        "source": """
def train_with_scan(params, batches, lr):
    def step(carry, batch):
        value, grads = jax.value_and_grad(loss)(carry, batch)
        new = jax.tree.map(lambda p, g: p - lr * g, carry, grads)
        return {**new, "loss": value}, value

    return lax.scan(step, params, batches)
""",
    },
    {
        "function": "update_if_finite",
        "misconception": "a Python if can test a traced value",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def update_if_finite(params, grads, lr):
    if all(jnp.isfinite(g).all() for g in jax.tree.leaves(grads)):
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params
""",
    },
    {
        "function": "update_if_finite",
        "misconception": "without jit a Python if is fine, so jit is optional",
        "teaches": BRANCHES,
        "source": """
def update_if_finite(params, grads, lr):
    if all(bool(jnp.isfinite(g).all()) for g in jax.tree.leaves(grads)):
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params
""",
    },
    {
        "function": "update_if_finite",
        "misconception": "the skipped branch can return nothing",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def update_if_finite(params, grads, lr):
    finite = jax.tree.reduce(
        jnp.logical_and, jax.tree.map(lambda g: jnp.isfinite(g).all(), grads), True
    )
    return lax.cond(
        finite,
        lambda: jax.tree.map(lambda p, g: p - lr * g, params, grads),
        lambda: None,
    )
""",
    },
    {
        "function": "update_if_finite",
        "misconception": "checking the first leaf tells whether the gradient is finite",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def update_if_finite(params, grads, lr):
    finite = jnp.isfinite(jax.tree.leaves(grads)[0]).all()
    return lax.cond(
        finite,
        lambda p: jax.tree.map(lambda x, g: x - lr * g, p, grads),
        lambda p: p,
        params,
    )
""",
    },
    {
        "function": "update_if_finite",
        "misconception": "a jnp.where per leaf is the same as a branch",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def update_if_finite(params, grads, lr):
    finite = jnp.all(jnp.stack([jnp.isfinite(g).all() for g in jax.tree.leaves(grads)]))
    return jax.tree.map(lambda p, g: jnp.where(finite, p - lr * g, p), params, grads)
""",
    },
    {
        "function": "apply_layers",
        "misconception": "a Python loop over the layers is as good as a scan",
        "teaches": LAYERS,
        "source": """
def apply_layers(layers, x):
    for layer in layers:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x
""",
    },
    {
        "function": "apply_layers",
        "misconception": "concatenating the layers stacks them",
        "teaches": TYPES,
        "source": """
def apply_layers(layers, x):
    stacked = jax.tree.map(lambda *leaves: jnp.concatenate(leaves), *layers)

    def layer(x, params):
        return jnp.tanh(x @ params["w"] + params["b"]), None

    return lax.scan(layer, x, stacked)[0]
""",
    },
    {
        "function": "apply_layers",
        "misconception": "the layer axis can go last",
        "teaches": TYPES,
        "source": """
def apply_layers(layers, x):
    stacked = jax.tree.map(lambda *leaves: jnp.stack(leaves, axis=-1), *layers)

    def layer(x, params):
        return jnp.tanh(x @ params["w"] + params["b"]), None

    return lax.scan(layer, x, stacked)[0]
""",
    },
    {
        "function": "apply_layers",
        "misconception": "a fori_loop indexing the stacked layers is the same as scanning them",
        "teaches": LAYERS,
        "source": """
def apply_layers(layers, x):
    stacked = jax.tree.map(lambda *leaves: jnp.stack(leaves), *layers)

    def body(i, x):
        return jnp.tanh(x @ stacked["w"][i] + stacked["b"][i])

    return lax.fori_loop(0, len(layers), body, x)
""",
    },
]
