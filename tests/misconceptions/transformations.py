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
        "teaches": "Reread Pytrees through transformations → Pytrees in, pytrees out",
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
        "teaches": "Reread Pytrees through transformations → None is a leaf in in_axes",
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
        "teaches": "Reread Pytrees through transformations → Per-example gradients",
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
        "teaches": "Reread Pytrees through transformations → Per-example gradients",
        "source": LOSS
        + """
def per_example_grads(params, xs, ys):
    return [jax.grad(loss)(params, x, y) for x, y in zip(xs, ys)]
""",
    },
    {
        "function": "l2_grad",
        "misconception": "allow_int=True differentiates int leaves",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
        "source": PENALTY
        + """
def l2_grad(params):
    return jax.grad(l2_penalty, allow_int=True)(params)
""",
    },
    {
        "function": "l2_grad",
        "misconception": "only Python ints are int leaves",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
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
        "teaches": "Reread Pytrees through transformations → in_axes is a prefix tree",
        "source": """
def in_axes_for(batch):
    return jax.tree.map(lambda leaf: 0 if np.ndim(leaf) >= 1 else None, batch)
""",
    },
    {
        "function": "in_axes_for",
        "misconception": "None in an axis spec is an empty node, so jax.tree.leaves sees every axis",
        "teaches": "Reread Pytrees through transformations → None is a leaf in in_axes",
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
        "teaches": "Reread Pytrees through transformations → in_axes is a prefix tree",
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
    {
        "function": "batched_apply",
        "misconception": "(None, 0) shares the params and maps the batch, shared temperature included",
        "teaches": "Reread Pytrees through transformations → None is a leaf in in_axes",
        "source": PREDICT
        + """
def batched_apply(params, batch):
    return jax.vmap(predict, in_axes=(None, 0))(params, batch)
""",
    },
    {
        "function": "batched_apply",
        "misconception": "a key left out of an in_axes dict is simply not mapped",
        "teaches": "Reread Pytrees through transformations → in_axes is a prefix tree",
        "source": PREDICT
        + """
def batched_apply(params, batch):
    return jax.vmap(predict, in_axes=(None, {"x": 0}))(params, batch)
""",
    },
    {
        "function": "batched_apply",
        "misconception": "the model is a matrix product, so the batch needs no vmap (right values, idea skipped)",
        "teaches": "Reread Pytrees through transformations → in_axes is a prefix tree",
        "source": PREDICT
        + """
def batched_apply(params, batch):
    logits = (batch["x"] @ params["w"] + params["b"]) / batch["temperature"]
    return {"probs": jax.nn.softmax(logits, axis=-1), "label": jnp.argmax(logits, axis=-1)}
""",
    },
    {
        "function": "batched_apply",
        "misconception": "a Python loop over the rows, stacked leaf by leaf, is what vmap does anyway",
        "teaches": "Reread Pytrees through transformations → in_axes is a prefix tree",
        "source": PREDICT
        + """
def batched_apply(params, batch):
    outs = [predict(params, {"x": x, "temperature": batch["temperature"]}) for x in batch["x"]]
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *outs)
""",
    },
    {
        "function": "per_example_grads",
        "misconception": "vmap's default in_axes=0 maps over the batch and leaves the params alone",
        "teaches": "Reread Pytrees through transformations → None is a leaf in in_axes",
        "source": LOSS
        + """
def per_example_grads(params, xs, ys):
    return jax.vmap(jax.grad(loss))(params, xs, ys)
""",
    },
    {
        "function": "per_example_grads",
        "misconception": "the gradient of a squared error can be written out by hand (right values, idea skipped)",
        "teaches": "Reread Pytrees through transformations → Per-example gradients",
        "source": LOSS
        + """
def per_example_grads(params, xs, ys):
    residual = 2 * (xs @ params["w"] + params["b"] - ys)
    return {"w": residual[:, None] * xs, "b": residual}
""",
    },
    {
        "function": "per_example_grads",
        "misconception": "a Python loop of grad calls, stacked leaf by leaf, is vmap of grad",
        "teaches": "Reread Pytrees through transformations → Per-example gradients",
        "source": LOSS
        + """
def per_example_grads(params, xs, ys):
    grads = [jax.grad(loss)(params, x, y) for x, y in zip(xs, ys)]
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *grads)
""",
    },
    {
        "function": "l2_grad",
        "misconception": "jax.grad differentiates any tree of numbers, int leaves included",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
        "source": PENALTY
        + """
def l2_grad(params):
    return jax.grad(l2_penalty)(params)
""",
    },
    {
        "function": "l2_grad",
        "misconception": "the gradient of a sum of squares is 2 * leaf, no grad needed (right values, idea skipped)",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
        "source": PENALTY
        + """
def l2_grad(params):
    return jax.tree.map(lambda leaf: 2 * jnp.asarray(leaf, dtype=jnp.float32), params)
""",
    },
    {
        "function": "l2_grad",
        "misconception": "one grad per leaf is as good as one grad over the whole tree",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
        "source": PENALTY
        + """
def l2_grad(params):
    def one(leaf):
        return jax.grad(lambda v: jnp.sum(jnp.square(v)))(jnp.asarray(leaf, dtype=jnp.float32))

    return jax.tree.map(one, params)
""",
    },
    {
        "function": "in_axes_for",
        "misconception": "a container collapses when its children's answers are equal, even containers",
        "visible_passes": "only other inputs than the visible tests' show it: Two children with equal answers do not make a container collapse unless those answers are single axes: a dict of specs is not a spec for the dict above it, whose keys differ",
        "teaches": "Reread Pytrees through transformations → in_axes is a prefix tree",
        "source": """
def in_axes_for(batch):
    if isinstance(batch, dict):
        children = type(batch)((k, in_axes_for(v)) for k, v in batch.items())
        answers = list(children.values())
    elif hasattr(batch, "_fields"):
        children = type(batch)(*[in_axes_for(v) for v in batch])
        answers = list(children)
    elif isinstance(batch, (list, tuple)):
        children = type(batch)(in_axes_for(v) for v in batch)
        answers = list(children)
    else:
        return 0 if np.ndim(batch) >= 1 else None
    if all(a == answers[0] for a in answers):
        return answers[0]
    return children
""",
    },
    {
        "function": "per_example_grads",
        "misconception": "to vmap over examples, every argument needs a batch axis, params too",
        "teaches": "Reread Pytrees through transformations → Per-example gradients",
        "source": """
@jax.jit
def loss(params, x, y):
    '''Squared error of a linear model on ONE example: ``x`` of shape (d,), ``y`` a number.'''
    return (x @ params["w"] + params["b"] - y) ** 2


def per_example_grads(params, xs, ys):
    n = xs.shape[0]
    tiled = jax.tree.map(lambda p: jnp.broadcast_to(p, (n,) + jnp.shape(p)), params)
    return jax.vmap(jax.grad(loss))(tiled, xs, ys)
""",
    },
    {
        "function": "l2_grad",
        "misconception": "only the int leaves need converting; float leaves are fine as they are",
        "visible_passes": "only other inputs than the visible tests' show it: Every gradient is a float32 array, whatever the leaf's dtype: grad gives each leaf a gradient of the leaf's own dtype, so float16 leaves must be cast to float32 too, not only the int ones",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
        "source": """
def l2_penalty(params):
    '''The sum of the squares of every number in every leaf of ``params``.'''
    return sum((jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(params)), jnp.float32(0.0))


def l2_grad(params):
    def to_float(leaf):
        if isinstance(leaf, (int, float)) or jnp.issubdtype(jnp.result_type(leaf), jnp.integer):
            return jnp.asarray(leaf, jnp.float32)
        return leaf  # a float array can be differentiated as it is

    return jax.grad(l2_penalty)(jax.tree.map(to_float, params))
""",
    },
    {
        "function": "l2_grad",
        "misconception": "grad cannot see int leaves, so their gradient is written out by hand",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
        "source": """
def l2_penalty(params):
    '''The sum of the squares of every number in every leaf of ``params``.'''
    return sum((jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(params)), jnp.float32(0.0))


def l2_grad(params):
    is_int = lambda leaf: jnp.issubdtype(jnp.result_type(leaf), jnp.integer)
    # grad the float leaves; an int leaf is held fixed (a zero placeholder)
    floats = jax.tree.map(lambda leaf: jnp.float32(0.0) if is_int(leaf) else jnp.asarray(leaf, jnp.float32), params)
    grads = jax.grad(l2_penalty)(floats)
    return jax.tree.map(lambda leaf, g: 2.0 * jnp.asarray(leaf, jnp.float32) if is_int(leaf) else g,
                        params, grads)
""",
    },
    {
        "function": "batched_apply",
        "misconception": "labels are cast to float so every leaf has one dtype",
        "teaches": "Reread Pytrees through transformations → Pytrees in, pytrees out",
        "source": """
@jax.jit
def predict(params, example):
    '''The model on ONE example.'''
    logits = (example["x"] @ params["w"] + params["b"]) / example["temperature"]
    return {"probs": jax.nn.softmax(logits), "label": jnp.argmax(logits)}


def batched_apply(params, batch):
    out = jax.vmap(predict, in_axes=(None, {"x": 0, "temperature": None}))(params, batch)
    return jax.tree.map(lambda leaf: leaf.astype(jnp.float32), out)
""",
    },
    {
        "function": "per_example_grads",
        "misconception": "params tiled and mapped with an explicit in_axes of zeros",
        "teaches": "Reread Pytrees through transformations → Per-example gradients",
        "source": """
@jax.jit
def loss(params, x, y):
    '''Squared error of a linear model on ONE example.'''
    return (x @ params["w"] + params["b"] - y) ** 2


def per_example_grads(params, xs, ys):
    n = xs.shape[0]
    tiled = jax.tree.map(lambda p: jnp.stack([jnp.asarray(p)] * n), params)
    return jax.vmap(jax.grad(loss), in_axes=(0, 0, 0))(tiled, xs, ys)
""",
    },
    {
        "function": "l2_grad",
        "misconception": "multiplying by 1.0 makes every leaf a float",
        "visible_passes": "only other inputs than the visible tests' show it: Every gradient is a float32 array, whatever the leaf's dtype: grad gives each leaf a gradient of the leaf's own dtype, so float16 leaves must be cast to float32 too, not only the int ones",
        "teaches": "Reread Pytrees through transformations → grad rejects int leaves",
        "source": """
def l2_penalty(params):
    '''The sum of the squares of every number in every leaf of ``params``.'''
    return sum((jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(params)), jnp.float32(0.0))


def l2_grad(params):
    return jax.grad(l2_penalty)(jax.tree.map(lambda leaf: jnp.asarray(leaf) * 1.0, params))
""",
    },
    {
        "function": "l2_grad",
        "misconception": "a recursion over dicts, lists and tuples casts every leaf",
        "visible_passes": "only other inputs than the visible tests' show it: On a tree of ints drawn at random (dicts, lists, tuples, OrderedDicts, namedtuples, a registered node, None and empty containers) the gradient does not have the structure of params with a float32 leaf for each leaf: jax.tree.map and jax.grad keep every container as it is",
        "teaches": "Reread Pytrees through transformations → Pytrees in, pytrees out",
        "source": """
def l2_penalty(params):
    '''The sum of the squares of every number in every leaf of ``params``.'''
    return sum((jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(params)), jnp.float32(0.0))


def cast(t):
    if t is None:
        return None
    if isinstance(t, dict):
        return type(t)((k, cast(v)) for k, v in t.items())
    if isinstance(t, (list, tuple)):
        return type(t)(cast(v) for v in t)
    return jnp.asarray(t, jnp.float32)


def l2_grad(params):
    return jax.grad(l2_penalty)(cast(params))
""",
    },
    {
        "function": "in_axes_for",
        "misconception": "a namedtuple is a tuple, so its prefix is a plain tuple",
        "teaches": "Reread Pytrees through transformations → in_axes is a prefix tree",
        "source": """
def in_axes_for(batch):
    def go(node):
        if isinstance(node, dict):
            kids = type(node)((k, go(v)) for k, v in node.items())
            answers = list(kids.values())
        elif isinstance(node, (list, tuple)):
            answers = [go(v) for v in node]
            kids = list(answers) if isinstance(node, list) else tuple(answers)
        else:
            return 0 if np.ndim(node) >= 1 else None
        leaves = [a for a in answers]
        if all(a is not None and not isinstance(a, (dict, list, tuple)) and a == 0 for a in leaves):
            return 0
        if all(a is None for a in leaves):
            return None
        return kids

    return go(batch)
""",
    },
]
