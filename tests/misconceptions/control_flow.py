"""Wrong-but-plausible versions of the Control flow over trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

SCAN_TREES = "Reread Control flow over trees → Scanning over a tree of stacked arrays"
TYPES = "Reread Control flow over trees → Same shapes and dtypes at every leaf"
CARRY = "Reread Control flow over trees → The carry keeps its treedef"
BRANCHES = "Reread Control flow over trees → cond and switch return one structure"
LAYERS = "Reread Control flow over trees → Stacking layers for scan"
ACCUMULATORS = "Reread Control flow over trees → An accumulator's dtype"

CASES = [
    {
        "function": "tree_cumsum",
        "misconception": "a cumulative sum per leaf is the same as a scan over the tree",
        "teaches": SCAN_TREES,
        "source": """
def tree_cumsum(tree):
    def running(leaf):
        floating = jnp.issubdtype(leaf.dtype, jnp.floating)
        total = jnp.cumsum(leaf, axis=0, dtype=jnp.float32 if floating else leaf.dtype)
        return total.astype(leaf.dtype)

    return jax.tree.map(running, tree)
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

        floating = jnp.issubdtype(leaf.dtype, jnp.floating)
        start = jnp.zeros(leaf.shape[1:], jnp.float32 if floating else leaf.dtype)
        return lax.scan(add_row, start, leaf)[1].astype(leaf.dtype)

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
        floating = jnp.issubdtype(leaf.dtype, jnp.floating)
        rows, total = [], jnp.zeros(leaf.shape[1:], jnp.float32 if floating else leaf.dtype)
        for row in leaf:
            total = total + row
            rows.append(total.astype(leaf.dtype))
        sums.append(jnp.stack(rows))
    return jax.tree.unflatten(treedef, sums)
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "an accumulator built with zeros_like of the data is always right",
        "teaches": ACCUMULATORS,
        "source": """
def tree_cumsum(tree):
    start = jax.tree.map(lambda leaf: jnp.zeros_like(leaf[0]), tree)

    def add_row(totals, rows):
        totals = jax.tree.map(jnp.add, totals, rows)
        return totals, totals

    return lax.scan(add_row, start, tree)[1]
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "a float32 accumulator is safe for int leaves too",
        "visible_passes": "only other inputs than the visible tests' show it: On an int32 leaf whose sums pass 2**24 your running sums are off: an int leaf's total stays in its own int dtype, since float32 holds integers exactly only up to 2**24",
        "teaches": ACCUMULATORS,
        "source": """
def tree_cumsum(tree):
    start = jax.tree.map(lambda leaf: jnp.zeros(leaf.shape[1:], jnp.float32), tree)

    def add_row(totals, rows):
        totals = jax.tree.map(lambda t, r: t + r.astype(jnp.float32), totals, rows)
        return totals, jax.tree.map(lambda t, r: t.astype(r.dtype), totals, rows)

    return lax.scan(add_row, start, tree)[1]
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "the float32 totals can be returned as they are",
        "teaches": ACCUMULATORS,
        "source": """
def tree_cumsum(tree):
    def accumulator(leaf):
        floating = jnp.issubdtype(leaf.dtype, jnp.floating)
        return jnp.zeros(leaf.shape[1:], jnp.float32 if floating else leaf.dtype)

    def add_row(totals, rows):
        totals = jax.tree.map(lambda t, r: t + r.astype(t.dtype), totals, rows)
        return totals, totals

    return lax.scan(add_row, jax.tree.map(accumulator, tree), tree)[1]
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "only bfloat16 needs a wider accumulator, float16 is precise enough",
        "visible_passes": "only other inputs than the visible tests' show it: On a long float16 leaf your running sums stall or drift: a total kept in float16 rounds away what each row adds",
        "teaches": ACCUMULATORS,
        "source": """
def tree_cumsum(tree):
    def accumulator(leaf):
        return jnp.zeros(leaf.shape[1:], jnp.float32 if leaf.dtype == jnp.bfloat16 else leaf.dtype)

    def add_row(totals, rows):
        totals = jax.tree.map(lambda t, r: t + r.astype(t.dtype), totals, rows)
        return totals, jax.tree.map(lambda t, r: t.astype(r.dtype), totals, rows)

    return lax.scan(add_row, jax.tree.map(accumulator, tree), tree)[1]
""",
    },
    {
        "function": "tree_cumsum",
        "misconception": "each step can output the totals before adding its row",
        "teaches": SCAN_TREES,
        "source": """
def tree_cumsum(tree):
    def accumulator(leaf):
        floating = jnp.issubdtype(leaf.dtype, jnp.floating)
        return jnp.zeros(leaf.shape[1:], jnp.float32 if floating else leaf.dtype)

    def add_row(totals, rows):
        out = jax.tree.map(lambda t, r: t.astype(r.dtype), totals, rows)
        return jax.tree.map(lambda t, r: t + r.astype(t.dtype), totals, rows), out

    return lax.scan(add_row, jax.tree.map(accumulator, tree), tree)[1]
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
        "misconception": "a finite sum of the gradients means every gradient is finite",
        "visible_passes": "only other inputs than the visible tests' show it: Gradients whose every element is finite must give the update, however large they are",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def update_if_finite(params, grads, lr):
    # a NaN or an infinity anywhere makes the total non-finite
    total = sum(jnp.sum(g) for g in jax.tree.leaves(grads))
    return lax.cond(
        jnp.isfinite(total),
        lambda: jax.tree.map(lambda p, g: p - lr * g, params, grads),
        lambda: params,
    )
""",
    },
    {
        "function": "update_if_finite",
        "misconception": "checking the first leaf tells whether the gradient is finite",
        "visible_passes": "only other inputs than the visible tests' show it: One infinite element in one leaf, the last one included, makes the whole step skipped: params come back unchanged, as the same tree",
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
        "function": "update_if_finite",
        "misconception": "a strong float32 learning rate is harmless",
        "visible_passes": "only other inputs than the visible tests' show it: update_if_finite stopped with TypeError on parameters with bfloat16 leaves",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def update_if_finite(params, grads, lr):
    lr = jnp.asarray(lr, jnp.float32)
    finite = jax.tree.reduce(
        jnp.logical_and, jax.tree.map(lambda g: jnp.isfinite(g).all(), grads), True
    )
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
        "misconception": "only infinities make a gradient unusable",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def update_if_finite(params, grads, lr):
    finite = jax.tree.reduce(
        jnp.logical_and, jax.tree.map(lambda g: ~jnp.isinf(g).any(), grads), True
    )
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
        "misconception": "an if on a leaf's finiteness asks whether all of it is finite",
        "teaches": BRANCHES,
        "source": """
def update_if_finite(params, grads, lr):
    for g in jax.tree.leaves(grads):
        if not jnp.isfinite(g):
            return params
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
""",
    },
    {
        "function": "apply_update",
        "misconception": "a Python if can pick the update under jit",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    if kind == 0:
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)
    if kind == 1:
        return jax.tree.map(lambda p, g: p - lr * jnp.sign(g), params, grads)
    return jax.tree.map(jnp.zeros_like, params)
""",
    },
    {
        "function": "apply_update",
        "misconception": "zeros of the right shape are zeros of the right dtype",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    branches = [
        lambda p: jax.tree.map(lambda x, g: x - lr * g, p, grads),
        lambda p: jax.tree.map(lambda x, g: x - lr * jnp.sign(g), p, grads),
        lambda p: jax.tree.map(lambda x: jnp.zeros(x.shape), p),
    ]
    return lax.switch(kind, branches, params)
""",
    },
    {
        "function": "apply_update",
        "misconception": "a strong float32 learning rate changes nothing",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    lr = jnp.float32(lr)
    branches = [
        lambda p: jax.tree.map(lambda x, g: x - lr * g, p, grads),
        lambda p: jax.tree.map(lambda x, g: x - lr * jnp.sign(g), p, grads),
        lambda p: jax.tree.map(jnp.zeros_like, p),
    ]
    return lax.switch(kind, branches, params)
""",
    },
    {
        "function": "apply_update",
        "misconception": "a Python float as the reset value fits every leaf",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    branches = [
        lambda p: jax.tree.map(lambda x, g: x - lr * g, p, grads),
        lambda p: jax.tree.map(lambda x, g: x - lr * jnp.sign(g), p, grads),
        lambda p: jax.tree.map(lambda x: jnp.full(x.shape, 0.0), p),
    ]
    return lax.switch(kind, branches, params)
""",
    },
    {
        "function": "apply_update",
        "misconception": "jnp.where on the kind chooses like switch",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    def pick(p, g):
        descent, by_sign = p - lr * g, p - lr * jnp.sign(g)
        return jnp.where(kind == 0, descent, jnp.where(kind == 1, by_sign, jnp.zeros_like(p)))

    return jax.tree.map(pick, params, grads)
""",
    },
    {
        "function": "apply_update",
        "misconception": "a static kind is as good as a traced one",
        "teaches": BRANCHES,
        "source": """
import functools


@functools.partial(jax.jit, static_argnums=0)
def apply_update(kind, params, grads, lr):
    if kind == 0:
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)
    if kind == 1:
        return jax.tree.map(lambda p, g: p - lr * jnp.sign(g), params, grads)
    return jax.tree.map(jnp.zeros_like, params)
""",
    },
    {
        "function": "apply_update",
        "misconception": "g / |g| is the sign of the gradient",
        "visible_passes": "only other inputs than the visible tests' show it: Update 1 must be sign descent, p - lr * sign(g), a zero gradient leaving its element unchanged, leaf by leaf, keeping the parameters' structure, shapes and dtypes (a bfloat16 leaf stays bfloat16)",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    branches = [
        lambda p: jax.tree.map(lambda x, g: x - lr * g, p, grads),
        lambda p: jax.tree.map(lambda x, g: x - lr * g / jnp.abs(g), p, grads),
        lambda p: jax.tree.map(jnp.zeros_like, p),
    ]
    return lax.switch(kind, branches, params)
""",
    },
    {
        "function": "apply_update",
        "misconception": "a list of the updates can be indexed by the traced kind",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    updates = [
        jax.tree.map(lambda p, g: p - lr * g, params, grads),
        jax.tree.map(lambda p, g: p - lr * jnp.sign(g), params, grads),
        jax.tree.map(jnp.zeros_like, params),
    ]
    return updates[kind]
""",
    },
    {
        "function": "apply_update",
        "misconception": "nested lax.cond is the same exercise as one lax.switch",
        "teaches": BRANCHES,
        "source": """
@jax.jit
def apply_update(kind, params, grads, lr):
    def descent(p, g):
        return jax.tree.map(lambda p, g: p - lr * g, p, g)

    def sign_descent(p, g):
        return jax.tree.map(lambda p, g: p - lr * jnp.sign(g), p, g)

    def reset(p, g):
        return jax.tree.map(jnp.zeros_like, p)

    def not_descent(p, g):
        return lax.cond(kind == 1, sign_descent, reset, p, g)

    return lax.cond(kind == 0, descent, not_descent, params, grads)
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
