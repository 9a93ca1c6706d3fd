"""Wrong-but-plausible versions of the Pytrees through transformations exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

PREDICT = """
def predict(params, example):
    logits = (example["x"] @ params["w"] + params["b"]) / example["temperature"]
    return {"probs": jax.nn.softmax(logits), "label": jnp.argmax(logits)}
"""

LOSS = """
def loss(params, x, y):
    return (x @ params["w"] + params["b"] - y) ** 2
"""

PENALTY = """
def l2_penalty(params):
    return sum((jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(params)), jnp.float32(0.0))
"""

CASES = [
    {
        "function": "batched_apply",
        "misconception": "mapping over a batch gives a list of per-example results",
        "teaches": "Pytrees through transformations → Pytrees in, pytrees out",
        "source": PREDICT
        + """
def batched_apply(params, batch):
    return [
        predict(params, {"x": x, "temperature": batch["temperature"]}) for x in batch["x"]
    ]
""",
    },
    {
        "function": "batched_apply",
        "misconception": "a temperature given as a 0-d array is mapped like the inputs",
        "teaches": "Pytrees through transformations → in_axes is a prefix tree",
        "source": PREDICT
        + """
def batched_apply(params, batch):
    shared = None if isinstance(batch["temperature"], (int, float)) else 0
    spec = (None, {"x": 0, "temperature": shared})
    return jax.vmap(predict, in_axes=spec)(params, batch)
""",
    },
    {
        "function": "per_example_grads",
        "misconception": "the gradient of the batch's mean loss is the per-example gradient",
        "teaches": "Pytrees through transformations → Per-example gradients",
        "source": LOSS
        + """
def per_example_grads(params, xs, ys):
    def mean_loss(params):
        return jnp.mean(jax.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))

    return jax.grad(mean_loss)(params)
""",
    },
    {
        "function": "per_example_grads",
        "misconception": "vmap of grad returns a list of gradient dicts",
        "teaches": "Pytrees through transformations → Per-example gradients",
        "source": LOSS
        + """
def per_example_grads(params, xs, ys):
    return [jax.grad(loss)(params, x, y) for x, y in zip(xs, ys)]
""",
    },
    {
        "function": "l2_grad",
        "misconception": "allow_int=True differentiates int leaves",
        "teaches": "Pytrees through transformations → grad rejects int leaves",
        "source": PENALTY
        + """
def l2_grad(params):
    return jax.grad(l2_penalty, allow_int=True)(params)
""",
    },
    {
        "function": "l2_grad",
        "misconception": "only Python ints are int leaves",
        "teaches": "Pytrees through transformations → grad rejects int leaves",
        "source": PENALTY
        + """
def l2_grad(params):
    as_float = jax.tree.map(lambda leaf: float(leaf) if isinstance(leaf, int) else leaf, params)
    return jax.grad(l2_penalty)(as_float)
""",
    },
    {
        "function": "in_axes_for",
        "misconception": "in_axes must spell out every leaf",
        "teaches": "Pytrees through transformations → in_axes is a prefix tree",
        "source": """
def in_axes_for(batch):
    return jax.tree.map(lambda leaf: 0 if np.ndim(leaf) >= 1 else None, batch)
""",
    },
    {
        "function": "in_axes_for",
        "misconception": "None in an axis spec is an empty node, so jax.tree.leaves sees every axis",
        "teaches": "Pytrees through transformations → None is a leaf in in_axes",
        "source": """
def in_axes_for(batch):
    full = jax.tree.map(lambda leaf: 0 if np.ndim(leaf) >= 1 else None, batch)

    def shorten(spec):
        axes = set(jax.tree.leaves(spec))
        if len(axes) <= 1:
            return axes.pop() if axes else None
        return jax.tree.map(shorten, spec, is_leaf=lambda child: child is not spec)

    return shorten(full)
""",
    },
    {
        "function": "in_axes_for",
        "misconception": "anything with a shape can be mapped, 0-d arrays too",
        "teaches": "Pytrees through transformations → in_axes is a prefix tree",
        "source": """
def in_axes_for(batch):
    def axis(leaf):
        return 0 if hasattr(leaf, "shape") else None

    def prefix(node):
        axes = {axis(leaf) for leaf in jax.tree.leaves(node)}
        if len(axes) == 1:
            return axes.pop()
        return jax.tree.map(prefix, node, is_leaf=lambda child: child is not node)

    return prefix(batch)
""",
    },
]
