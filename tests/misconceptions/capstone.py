"""Wrong-but-plausible versions of the capstone exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

_MSE_LOSS = """
def mse_loss(params, x, y):
    h = x
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    prediction = h @ params[-1]["w"] + params[-1]["b"]
    return jnp.mean((prediction - y) ** 2)
"""

CASES = [
    {
        "function": "init_mlp",
        "misconception": "jax.tree.map over a tree of shape tuples makes one array per shape",
        "teaches": "Reread Capstone: a tiny MLP → A tree of shapes is not a tree of leaves",
        "source": """
def init_mlp(sizes, seed):
    shapes = [{"w": (m, n), "b": (n,)} for m, n in zip(sizes[:-1], sizes[1:])]
    keys = jax.random.split(jax.random.key(seed), len(shapes))
    params = jax.tree.map(jnp.zeros, shapes)
    for layer, key, shape in zip(params, keys, shapes):
        layer["w"] = jax.random.normal(key, shape["w"]) / jnp.sqrt(shape["w"][0])
    return params
""",
    },
    {
        "function": "init_mlp",
        "misconception": "one key can be reused for every layer",
        "teaches": "Reread Capstone: a tiny MLP → Parameters as a pytree",
        "source": """
def init_mlp(sizes, seed):
    key = jax.random.key(seed)
    return [
        {"w": jax.random.normal(key, (m, n)) / jnp.sqrt(m), "b": jnp.zeros(n)}
        for m, n in zip(sizes[:-1], sizes[1:])
    ]
""",
    },
    {
        "function": "init_mlp",
        "misconception": "a tuple of layers is the same tree as a list of layers",
        "teaches": "Reread Capstone: a tiny MLP → Parameters as a pytree",
        "source": """
def init_mlp(sizes, seed):
    keys = jax.random.split(jax.random.key(seed), len(sizes) - 1)
    return tuple(
        {"w": jax.random.normal(k, (m, n)) / jnp.sqrt(m), "b": jnp.zeros(n)}
        for k, m, n in zip(keys, sizes[:-1], sizes[1:])
    )
""",
    },
    {
        "function": "mlp_forward",
        "misconception": "a layer dict's values come out as w then b",
        "teaches": "Reread Capstone: a tiny MLP → The forward pass",
        "source": """
def mlp_forward(params, x):
    *hidden, last = params
    for layer in hidden:
        w, b = layer.values()
        x = jnp.tanh(x @ w + b)
    w, b = last.values()
    return x @ w + b
""",
    },
    {
        "function": "mlp_forward",
        "misconception": "jax.tree.leaves gives a layer's arrays in the order they were written",
        "teaches": "Reread Capstone: a tiny MLP → The forward pass",
        "source": """
def mlp_forward(params, x):
    *hidden, last = params
    for layer in hidden:
        w, b = jax.tree.leaves(layer)
        x = jnp.tanh(x @ w + b)
    w, b = jax.tree.leaves(last)
    return x @ w + b
""",
    },
    {
        "function": "mlp_forward",
        "misconception": "every layer, the last included, ends with tanh",
        "teaches": "Reread Capstone: a tiny MLP → The forward pass",
        "source": """
def mlp_forward(params, x):
    for layer in params:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x
""",
    },
    {
        "function": "momentum_step",
        "misconception": "one jax.tree.map whose function returns a pair gives a pair of trees",
        "teaches": "Reread Capstone: a tiny MLP → One map, two trees",
        "source": """
def momentum_step(params, grads, velocity, lr, beta):
    def update(p, g, v):
        new_v = beta * v + g
        return p - lr * new_v, new_v

    return jax.tree.map(update, params, grads, velocity)
""",
    },
    {
        "function": "momentum_step",
        "misconception": "the params move with the old velocity",
        "teaches": "Reread Capstone: a tiny MLP → Momentum: optimiser state is a pytree",
        "source": """
def momentum_step(params, grads, velocity, lr, beta):
    new_params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
    new_velocity = jax.tree.map(lambda v, g: beta * v + g, velocity, grads)
    return new_params, new_velocity
""",
    },
    {
        "function": "momentum_step",
        "misconception": "the flat lists of leaves are as good as the trees",
        "teaches": "Reread Capstone: a tiny MLP → Momentum: optimiser state is a pytree",
        "source": """
def momentum_step(params, grads, velocity, lr, beta):
    new_params, new_velocity = [], []
    for p, g, v in zip(jax.tree.leaves(params), jax.tree.leaves(grads), jax.tree.leaves(velocity)):
        v = beta * v + g
        new_velocity.append(v)
        new_params.append(p - lr * v)
    return new_params, new_velocity
""",
    },
    {
        "function": "train_step",
        "misconception": "the loss to report is the one after the step",
        "teaches": "Reread Capstone: a tiny MLP → One jitted training step",
        "source": _MSE_LOSS
        + """

@jax.jit
def train_step(params, x, y, lr):
    grads = jax.grad(mse_loss)(params, x, y)
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return new_params, mse_loss(new_params, x, y)
""",
    },
    {
        "function": "train_step",
        "misconception": "only the weights are trained",
        "teaches": "Reread Capstone: a tiny MLP → Gradients of the whole tree",
        "source": _MSE_LOSS
        + """

@jax.jit
def train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    new_params = [
        {"w": layer["w"] - lr * grad["w"], "b": layer["b"]}
        for layer, grad in zip(params, grads)
    ]
    return new_params, loss
""",
    },
    {
        "function": "mlp_forward",
        "misconception": "a layer's leaves always come out b then w, so unpack them by position",
        "visible_passes": "only other inputs than the visible tests' show it: With layers given as OrderedDicts, one listing b before w, your forward pass mixed up w and b",
        "teaches": "Reread Capstone: a tiny MLP → The forward pass",
        "source": """
def mlp_forward(params, x):
    *hidden, last = params
    for layer in hidden:
        b, w = jax.tree.leaves(layer)
        x = jnp.tanh(x @ w + b)
    b, w = jax.tree.leaves(last)
    return x @ w + b
""",
    },
    {
        "function": "init_mlp",
        "misconception": "splitting the key as you go, one split per layer, is splitting it once",
        "teaches": "Reread Capstone: a tiny MLP → Parameters as a pytree",
        "source": """
def init_mlp(sizes, seed):
    key = jax.random.key(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, subkey = jax.random.split(key)
        w = jax.random.normal(subkey, (n_in, n_out)) / jnp.sqrt(n_in)
        params.append({"w": w, "b": jnp.zeros(n_out)})
    return params
""",
    },
    {
        "function": "momentum_step",
        "misconception": "a walk of one's own over dicts, lists and tuples does what jax.tree.map does",
        "teaches": "Reread Capstone: a tiny MLP → Momentum: optimiser state is a pytree",
        "source": """
def momentum_step(params, grads, velocity, lr, beta):
    def walk(f, *trees):
        first = trees[0]
        if first is None:
            return None
        if isinstance(first, dict):
            return type(first)((k, walk(f, *(t[k] for t in trees))) for k in first)
        if isinstance(first, (list, tuple)):
            items = [walk(f, *parts) for parts in zip(*trees)]
            return type(first)(*items) if hasattr(first, "_fields") else type(first)(items)
        return f(*trees)

    new_velocity = walk(lambda v, g: beta * v + g, velocity, grads)
    new_params = walk(lambda p, v: p - lr * v, params, new_velocity)
    return new_params, new_velocity
""",
    },
    {
        "function": "train_step",
        "misconception": "jit only makes the step faster, so the decorator can go",
        "teaches": "Reread Capstone: a tiny MLP → One jitted training step",
        "source": _MSE_LOSS
        + """

def train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return new_params, loss
""",
    },
    {
        "function": "train_step",
        "misconception": "one grad per layer is as good as one grad over the whole params tree",
        "teaches": "Reread Capstone: a tiny MLP → Gradients of the whole tree",
        "source": _MSE_LOSS
        + """

@jax.jit
def train_step(params, x, y, lr):
    loss = mse_loss(params, x, y)
    new_params = []
    for i, layer in enumerate(params):
        def layer_loss(layer, i=i):
            return mse_loss(params[:i] + [layer] + params[i + 1 :], x, y)

        grads = jax.grad(layer_loss)(layer)
        new_params.append(jax.tree.map(lambda p, g: p - lr * g, layer, grads))
    return new_params, loss
""",
    },
    {
        "function": "mlp_forward",
        "misconception": "an OrderedDict keeps w before b, so only plain dicts need keys",
        "teaches": "Reread Capstone: a tiny MLP → The forward pass",
        "source": """
from collections import OrderedDict


def mlp_forward(params, x):
    h = x
    for i, layer in enumerate(params):
        if isinstance(layer, OrderedDict):
            w, b = layer.values()  # an OrderedDict remembers the order w, b
        else:
            w, b = layer["w"], layer["b"]
        h = h @ w + b
        if i < len(params) - 1:
            h = jnp.tanh(h)
    return h
""",
    },
    {
        "function": "train_step",
        "misconception": "differentiating the raveled parameter vector is differentiating the tree",
        "teaches": "Reread Capstone: a tiny MLP → Gradients of the whole tree",
        "source": """
from jax.flatten_util import ravel_pytree


def mse_loss(params, x, y):
    '''Mean squared error of the MLP ``params`` (tanh hidden layers, linear output) on (x, y).'''
    h = x
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    prediction = h @ params[-1]["w"] + params[-1]["b"]
    return jnp.mean((prediction - y) ** 2)


@jax.jit
def train_step(params, x, y, lr):
    flat, unravel = ravel_pytree(params)
    loss, grad = jax.value_and_grad(lambda f: mse_loss(unravel(f), x, y))(flat)
    return unravel(flat - lr * grad), loss
""",
    },
    {
        "function": "mlp_forward",
        "misconception": "jax.tree.leaves(layer) gives w, b in that order",
        "teaches": "Reread Capstone: a tiny MLP → The forward pass",
        "source": """
def mlp_forward(params, x):
    for i, layer in enumerate(params):
        b, w = jax.tree.leaves(layer) if type(layer) is dict else jax.tree.leaves(layer)[::-1]
        x = x @ w + b
        if i < len(params) - 1:
            x = jnp.tanh(x)
    return x
""",
    },
    {
        "function": "init_mlp",
        "misconception": "np.zeros(n) is a float array like jnp.zeros(n)",
        "teaches": "Reread Capstone: a tiny MLP → Parameters as a pytree",
        "source": """
def init_mlp(sizes, seed):
    keys = jax.random.split(jax.random.key(seed), len(sizes) - 1)
    return [{"w": jax.random.normal(k, (m, n)) / jnp.sqrt(m), "b": np.zeros(n)}
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]
""",
    },
    {
        "function": "momentum_step",
        "misconception": "a walk over lists and dicts covers every optimiser state",
        "visible_passes": "only other inputs than the visible tests' show it: On trees drawn at random (dicts, lists, tuples, OrderedDicts, namedtuples, a registered node, None and empty containers) your (new_params, new_velocity) differ from what jax.tree.map computes: same structure as params, new_v = beta * v + g, new_p = p - lr * new_v",
        "teaches": "Reread Capstone: a tiny MLP → Momentum: optimiser state is a pytree",
        "source": """
def momentum_step(params, grads, velocity, lr, beta):
    def walk(p, g, v):
        if isinstance(p, dict):
            pairs = {k: walk(p[k], g[k], v[k]) for k in p}
            return type(p)((k, pairs[k][0]) for k in p), type(p)((k, pairs[k][1]) for k in p)
        if isinstance(p, (list, tuple)):
            pairs = [walk(*t) for t in zip(p, g, v)]
            return type(p)(a for a, _ in pairs), type(p)(b for _, b in pairs)
        if p is None:
            return None, None
        new_v = beta * v + g
        return p - lr * new_v, new_v

    jax.tree.map(lambda a, b, c: a, params, grads, velocity)
    return walk(params, grads, velocity)
""",
    },
    {
        "function": "mlp_forward",
        "misconception": "popping the last layer off params is a fine way to take it",
        "teaches": "Reread Capstone: a tiny MLP → The forward pass",
        "source": """
def mlp_forward(params, x):
    last = params.pop()
    h = x
    for layer in params:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    return h @ last["w"] + last["b"]
""",
    },
    {
        "function": "momentum_step",
        "misconception": "updating the arrays in place (v *= beta) saves memory and is the same",
        "teaches": "Reread Capstone: a tiny MLP → Momentum: optimiser state is a pytree",
        "source": """
def momentum_step(params, grads, velocity, lr, beta):
    def new_v(v, g):
        v *= beta
        v += g
        return v

    new_velocity = jax.tree.map(new_v, velocity, grads)

    def new_p(p, v):
        p -= lr * v
        return p

    new_params = jax.tree.map(new_p, params, new_velocity)
    return new_params, new_velocity
""",
    },
]
