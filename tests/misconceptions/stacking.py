"""Wrong-but-plausible versions of the Randomness and stacking over trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CHAPTER = "Reread Randomness and stacking over trees"
KEYS = f"{CHAPTER} → One key per leaf"
REUSE = f"{CHAPTER} → A key is used once"
SHAPES = f"{CHAPTER} → Parameters from a tree of shapes"
VMAP = f"{CHAPTER} → A stack of layers by vmap"
SCAN = f"{CHAPTER} → Running the stack with scan"
REMAT = f"{CHAPTER} → jax.checkpoint on the body"

CASES = [
    {
        "function": "leaf_noise",
        "misconception": "one key is enough for a whole tree",
        "teaches": KEYS,
        "source": """
def leaf_noise(key, tree, scale):
    return jax.tree.map(lambda leaf: scale * jax.random.normal(key, leaf.shape, leaf.dtype), tree)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "the key that was split can still draw the first leaf",
        "teaches": REUSE,
        "source": """
def leaf_noise(key, tree, scale):
    leaves, treedef = jax.tree.flatten(tree)
    keys = [key, *jax.random.split(key, max(len(leaves) - 1, 1))]
    noise = [scale * jax.random.normal(k, leaf.shape, leaf.dtype) for k, leaf in zip(keys, leaves)]
    return jax.tree.unflatten(treedef, noise)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "noise can be drawn in float32 and cast to the leaf's dtype",
        "teaches": KEYS,
        "source": """
def leaf_noise(key, tree, scale):
    keys = optax.tree_utils.tree_split_key_like(key, tree)
    return jax.tree.map(lambda leaf, k: (scale * jax.random.normal(k, leaf.shape)).astype(leaf.dtype), tree, keys)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "one draw from the key, cut into the leaves' shapes, is one key per leaf",
        "teaches": REUSE,
        "source": """
def leaf_noise(key, tree, scale):
    leaves, treedef = jax.tree.flatten(tree)
    sizes = [leaf.size for leaf in leaves]
    flat = jax.random.normal(key, (sum(sizes),))
    starts = np.cumsum([0, *sizes])
    noise = [
        scale * flat[start : start + leaf.size].reshape(leaf.shape).astype(leaf.dtype)
        for start, leaf in zip(starts, leaves)
    ]
    return jax.tree.unflatten(treedef, noise)
""",
    },
    {
        "function": "init_params",
        "misconception": "only the weights need keys, the zeros do not",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    leaves, treedef = jax.tree.flatten(shapes)
    keys = iter(jax.random.split(key, max(sum(len(s.shape) >= 2 for s in leaves), 1)))
    lecun = jax.nn.initializers.lecun_normal()
    made = [lecun(next(keys), s.shape, s.dtype) if len(s.shape) >= 2 else jnp.zeros(s.shape, s.dtype) for s in leaves]
    return jax.tree.unflatten(treedef, made)
""",
    },
    {
        "function": "init_params",
        "misconception": "one key can initialise every weight",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    lecun = jax.nn.initializers.lecun_normal()
    return jax.tree.map(
        lambda s: lecun(key, s.shape, s.dtype) if len(s.shape) >= 2 else jnp.zeros(s.shape, s.dtype), shapes
    )
""",
    },
    {
        "function": "init_params",
        "misconception": "LeCun normal is a plain normal divided by the square root of the fan-in",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    def init(s, k):
        if len(s.shape) < 2:
            return jnp.zeros(s.shape, s.dtype)
        return (jax.random.normal(k, s.shape) / jnp.sqrt(s.shape[0])).astype(s.dtype)

    return jax.tree.map(init, shapes, optax.tree_utils.tree_split_key_like(key, shapes))
""",
    },
    {
        "function": "init_params",
        "misconception": "parameters are float32 whatever the struct's dtype",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    lecun = jax.nn.initializers.lecun_normal()

    def init(s, k):
        return lecun(k, s.shape) if len(s.shape) >= 2 else jnp.zeros(s.shape)

    return jax.tree.map(init, shapes, optax.tree_utils.tree_split_key_like(key, shapes))
""",
    },
    {
        "function": "init_params",
        "misconception": "zeros need only a shape: the dtype matters for the drawn weights",
        "teaches": SHAPES,
        "visible_passes": (
            "only other inputs than the visible tests' show it: a bfloat16 struct with fewer than two axes, "
            "whose zeros must be bfloat16 too (the visible tests give float32 zeros only)"
        ),
        "source": """
def init_params(key, shapes):
    lecun = jax.nn.initializers.lecun_normal()

    def init(s, k):
        return lecun(k, s.shape, s.dtype) if len(s.shape) >= 2 else jnp.zeros(s.shape)

    return jax.tree.map(init, shapes, optax.tree_utils.tree_split_key_like(key, shapes))
""",
    },
    {
        "function": "init_stack",
        "misconception": "a Python loop and jnp.stack build the same stack as vmap",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, width):
    layers = [init_layer(k, width) for k in jax.random.split(key, n_layers)]
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *layers)
""",
    },
    {
        "function": "init_stack",
        "misconception": "lax.map over the keys is the same as vmap",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, width):
    return lax.map(lambda k: init_layer(k, width), jax.random.split(key, n_layers))
""",
    },
    {
        "function": "init_stack",
        "misconception": "the keys to map over can be the one key repeated",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, width):
    keys = jnp.stack([key] * n_layers)
    return jax.vmap(lambda k: init_layer(k, width))(keys)
""",
    },
    {
        "function": "init_stack",
        "misconception": "split off a fresh key first, then split the rest per layer",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, width):
    key, sub = jax.random.split(key)
    return jax.vmap(lambda k: init_layer(k, width))(jax.random.split(sub, n_layers))
""",
    },
    {
        "function": "run_stack",
        "misconception": "a Python loop over the stack's rows is the same as a scan",
        "teaches": SCAN,
        "source": """
def run_stack(stack, x):
    step = jax.checkpoint(lambda x, w, b: jnp.tanh(x @ w + b))
    for i in range(stack["w"].shape[0]):
        x = step(x, stack["w"][i], stack["b"][i])
    return x
""",
    },
    {
        "function": "run_stack",
        "misconception": "jax.checkpoint changes nothing, so the plain body will do",
        "teaches": REMAT,
        "source": """
def run_stack(stack, x):
    def layer(x, params):
        return jnp.tanh(x @ params["w"] + params["b"]), None

    return lax.scan(layer, x, stack)[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "checkpointing the whole scan is the same as checkpointing its body",
        "teaches": REMAT,
        "source": """
def run_stack(stack, x):
    def layer(x, params):
        return jnp.tanh(x @ params["w"] + params["b"]), None

    def run(stack, x):
        return lax.scan(layer, x, stack)[0]

    return jax.checkpoint(run)(stack, x)
""",
    },
    {
        "function": "run_stack",
        "misconception": "scan runs the stack from the top layer down",
        "teaches": SCAN,
        "source": """
def run_stack(stack, x):
    def layer(x, params):
        return jnp.tanh(x @ params["w"] + params["b"]), None

    return lax.scan(jax.checkpoint(layer), x, stack, reverse=True)[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "a fori_loop that indexes the stack is the same as a scan over it",
        "teaches": SCAN,
        "source": """
def run_stack(stack, x):
    w, b = jnp.asarray(stack["w"]), jnp.asarray(stack["b"])
    step = jax.checkpoint(lambda i, x: jnp.tanh(x @ w[i] + b[i]))
    return lax.fori_loop(0, w.shape[0], step, x)
""",
    },
]
