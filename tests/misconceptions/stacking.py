"""Wrong-but-plausible versions of the Randomness and stacking over trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CHAPTER = "Reread Randomness and stacking over trees"
KEYS = f"{CHAPTER} → One key per leaf"
PATHS = f"{CHAPTER} → Keys from paths"
REUSE = f"{CHAPTER} → A key is used once"
SHAPES = f"{CHAPTER} → Parameters from a tree of shapes"
VMAP = f"{CHAPTER} → A stack of layers by vmap"
SCAN = f"{CHAPTER} → Running the stack with scan"
REMAT = f"{CHAPTER} → jax.checkpoint on the body"

# The lines many cases share: a block that names its hidden activation, and a key made
# from a leaf's path (each case's source stays one whole solution cell).
NAMED_BLOCK = """    from jax.ad_checkpoint import checkpoint_name

    def block(x, layer):
        hidden = checkpoint_name(jnp.tanh(x @ layer["up"] + layer["bias"]), "hidden")
        return x + hidden @ layer["down"], None
"""
# The start and end of a run_stack whose block names some value "hidden": the cases that
# differ only in which value they name fill in the block's body.
NAMING_BLOCK = """
def run_stack(stack, x):
    from jax.ad_checkpoint import checkpoint_name

    def block(x, layer):"""
POLICY_SCAN = """
    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    return lax.scan(jax.checkpoint(block, policy=policy), x, stack)[0]
"""
PATH_KEY = """        leaf_key = jax.random.fold_in(key, zlib.crc32(jax.tree_util.keystr(path).encode()))
"""

CASES = [
    {
        "function": "leaf_noise",
        "misconception": "noise is the leaf with the noise added",
        "teaches": PATHS,
        "source": """
def leaf_noise(key, tree, scale):
    def draw(path, leaf):
"""
        + PATH_KEY
        + """        return leaf + scale * jax.random.normal(leaf_key, jnp.shape(leaf), leaf.dtype)

    return jax.tree_util.tree_map_with_path(draw, tree)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "keys split in flatten order are as stable as keys from paths",
        "teaches": PATHS,
        "source": """
import optax


def leaf_noise(key, tree, scale):
    keys = optax.tree_utils.tree_split_key_like(key, tree)
    return jax.tree.map(lambda leaf, k: scale * jax.random.normal(jax.random.fold_in(k, 0), leaf.shape, leaf.dtype), tree, keys)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "a leaf's index in the flatten order is its path",
        "teaches": PATHS,
        "source": """
def leaf_noise(key, tree, scale):
    leaves, treedef = jax.tree.flatten(tree)
    noise = [
        scale * jax.random.normal(jax.random.fold_in(key, i), jnp.shape(leaf), leaf.dtype)
        for i, leaf in enumerate(leaves)
    ]
    return jax.tree.unflatten(treedef, noise)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "any number made from the path will do, Python's hash included",
        "teaches": PATHS,
        "source": """
def leaf_noise(key, tree, scale):
    def draw(path, leaf):
        leaf_key = jax.random.fold_in(key, hash(jax.tree_util.keystr(path)) % 2**31)
        return scale * jax.random.normal(leaf_key, jnp.shape(leaf), leaf.dtype)

    return jax.tree_util.tree_map_with_path(draw, tree)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "a leaf's shape tells it apart from the others",
        "teaches": PATHS,
        "source": """
def leaf_noise(key, tree, scale):
    def draw(leaf):
        leaf_key = jax.random.fold_in(key, zlib.crc32(str(jnp.shape(leaf)).encode()))
        return scale * jax.random.normal(leaf_key, jnp.shape(leaf), leaf.dtype)

    return jax.tree.map(draw, tree)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "noise can be drawn in float32 and cast to the leaf's dtype",
        "teaches": KEYS,
        "source": """
def leaf_noise(key, tree, scale):
    def draw(path, leaf):
"""
        + PATH_KEY
        + """        return (scale * jax.random.normal(leaf_key, jnp.shape(leaf))).astype(leaf.dtype)

    return jax.tree_util.tree_map_with_path(draw, tree)
""",
    },
    {
        "function": "leaf_noise",
        "misconception": "the last key of a path tells a leaf apart",
        "teaches": KEYS,
        "visible_passes": (
            "only nested trees show it: the visible tests' leaves sit right under the top dict or list, "
            "where the last key is the whole path"
        ),
        "source": """
def leaf_noise(key, tree, scale):
    def draw(path, leaf):
        leaf_key = jax.random.fold_in(key, zlib.crc32(jax.tree_util.keystr(path[-1:]).encode()))
        return scale * jax.random.normal(leaf_key, jnp.shape(leaf), leaf.dtype)

    return jax.tree_util.tree_map_with_path(draw, tree)
""",
    },
    {
        "function": "init_params",
        "misconception": "keys split in flatten order are as stable as keys from paths",
        "teaches": PATHS,
        "source": """
import optax


def init_params(key, shapes):
    lecun = jax.nn.initializers.lecun_normal()

    def init(s, k):
        return lecun(k, s.shape, s.dtype) if len(s.shape) >= 2 else jnp.zeros(s.shape, s.dtype)

    return jax.tree.map(init, shapes, optax.tree_utils.tree_split_key_like(key, shapes))
""",
    },
    {
        "function": "init_params",
        "misconception": "only matrices are weights: a kernel of more axes starts at zeros",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    lecun = jax.nn.initializers.lecun_normal()

    def init(path, s):
"""
        + PATH_KEY.replace("leaf_key", "k")
        + """        return lecun(k, s.shape, s.dtype) if len(s.shape) == 2 else jnp.zeros(s.shape, s.dtype)

    return jax.tree_util.tree_map_with_path(init, shapes)
""",
    },
    {
        "function": "init_params",
        "misconception": "LeCun normal is a normal divided by the square root of the first axis",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    def init(path, s):
"""
        + PATH_KEY.replace("leaf_key", "k")
        + """        if len(s.shape) < 2:
            return jnp.zeros(s.shape, s.dtype)
        return jax.random.normal(k, s.shape, s.dtype) / jnp.sqrt(s.shape[0]).astype(s.dtype)

    return jax.tree_util.tree_map_with_path(init, shapes)
""",
    },
    {
        "function": "init_params",
        "misconception": "the fan-in of a kernel is its second-to-last axis alone",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    def init(path, s):
"""
        + PATH_KEY.replace("leaf_key", "k")
        + """        if len(s.shape) < 2:
            return jnp.zeros(s.shape, s.dtype)
        matrix = jax.nn.initializers.lecun_normal()(k, s.shape[-2:], s.dtype)
        return jnp.broadcast_to(matrix, s.shape)

    return jax.tree_util.tree_map_with_path(init, shapes)
""",
    },
    {
        "function": "init_params",
        "misconception": "parameters are float32 whatever the struct's dtype",
        "teaches": SHAPES,
        "source": """
def init_params(key, shapes):
    lecun = jax.nn.initializers.lecun_normal()

    def init(path, s):
"""
        + PATH_KEY.replace("leaf_key", "k")
        + """        return lecun(k, s.shape) if len(s.shape) >= 2 else jnp.zeros(s.shape)

    return jax.tree_util.tree_map_with_path(init, shapes)
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

    def init(path, s):
"""
        + PATH_KEY.replace("leaf_key", "k")
        + """        return lecun(k, s.shape, s.dtype) if len(s.shape) >= 2 else jnp.zeros(s.shape)

    return jax.tree_util.tree_map_with_path(init, shapes)
""",
    },
    {
        "function": "init_stack",
        "misconception": "a Python loop and jnp.stack build the same stack as vmap",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, layer_shapes):
    layers = [init_params(k, layer_shapes) for k in jax.random.split(key, n_layers)]
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *layers)
""",
    },
    {
        "function": "init_stack",
        "misconception": "lax.map over the keys is the same as vmap",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, layer_shapes):
    return lax.map(lambda k: init_params(k, layer_shapes), jax.random.split(key, n_layers))
""",
    },
    {
        "function": "init_stack",
        "misconception": "a stack is one init of the shapes with a layer axis in front",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, layer_shapes):
    stacked = jax.tree.map(lambda s: jax.ShapeDtypeStruct((n_layers, *s.shape), s.dtype), layer_shapes)
    return init_params(key, stacked)
""",
    },
    {
        "function": "init_stack",
        "misconception": "split off a fresh key first, then split the rest per layer",
        "teaches": VMAP,
        "source": """
def init_stack(key, n_layers, layer_shapes):
    key, sub = jax.random.split(key)
    return jax.vmap(init_params, in_axes=(0, None))(jax.random.split(sub, n_layers), layer_shapes)
""",
    },
    {
        "function": "init_stack",
        "misconception": "one layer needs no split: the key itself makes it",
        "teaches": VMAP,
        "visible_passes": "only a stack of one layer shows it, and the visible tests stack three",
        "source": """
def init_stack(key, n_layers, layer_shapes):
    keys = key[None] if n_layers == 1 else jax.random.split(key, n_layers)
    return jax.vmap(init_params, in_axes=(0, None))(keys, layer_shapes)
""",
    },
    {
        "function": "init_stack",
        "misconception": "a stack of one layer is the layer itself",
        "teaches": VMAP,
        "visible_passes": "only a stack of one layer shows it, and the visible tests stack three",
        "source": """
def init_stack(key, n_layers, layer_shapes):
    stack = jax.vmap(init_params, in_axes=(0, None))(jax.random.split(key, n_layers), layer_shapes)
    return jax.tree.map(lambda leaf: leaf[0], stack) if n_layers == 1 else stack
""",
    },
    {
        "function": "run_stack",
        "misconception": "a tuple of the stack's arrays is the same xs as the stack",
        "teaches": SCAN,
        "source": """
def run_stack(stack, x):
    from jax.ad_checkpoint import checkpoint_name

    def block(x, layer):
        up, bias, down = layer
        hidden = checkpoint_name(jnp.tanh(x @ up + bias), "hidden")
        return x + hidden @ down, None

    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    return lax.scan(jax.checkpoint(block, policy=policy), x, (stack["up"], stack["bias"], stack["down"]))[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "jax.checkpoint without a policy keeps the named value",
        "teaches": REMAT,
        "source": """
def run_stack(stack, x):
"""
        + NAMED_BLOCK
        + """
    return lax.scan(jax.checkpoint(block), x, stack)[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "a names policy finds the hidden activation without a name on it",
        "teaches": REMAT,
        "source": """
def run_stack(stack, x):
    def block(x, layer):
        hidden = jnp.tanh(x @ layer["up"] + layer["bias"])
        return x + hidden @ layer["down"], None

    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    return lax.scan(jax.checkpoint(block, policy=policy), x, stack)[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "any policy between the extremes will do",
        "teaches": REMAT,
        "source": """
def run_stack(stack, x):
"""
        + NAMED_BLOCK
        + """
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return lax.scan(jax.checkpoint(block, policy=policy), x, stack)[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "checkpointing the whole scan is the same as checkpointing its body",
        "teaches": REMAT,
        "source": """
def run_stack(stack, x):
"""
        + NAMED_BLOCK
        + """
    def run(stack, x):
        return lax.scan(block, x, stack)[0]

    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    return jax.checkpoint(run, policy=policy)(stack, x)
""",
    },
    {
        "function": "run_stack",
        "misconception": "a Python loop over the blocks is the same as a scan",
        "teaches": SCAN,
        "source": """
def run_stack(stack, x):
    from jax.ad_checkpoint import checkpoint_name

    def block(x, up, bias, down):
        hidden = checkpoint_name(jnp.tanh(x @ up + bias), "hidden")
        return x + hidden @ down

    step = jax.checkpoint(block, policy=jax.checkpoint_policies.save_only_these_names("hidden"))
    for i in range(stack["up"].shape[0]):
        x = step(x, stack["up"][i], stack["bias"][i], stack["down"][i])
    return x
""",
    },
    {
        "function": "run_stack",
        "misconception": "a block replaces the activation: the residual is optional",
        "teaches": SCAN,
        "source": """
def run_stack(stack, x):
    from jax.ad_checkpoint import checkpoint_name

    def block(x, layer):
        hidden = checkpoint_name(jnp.tanh(x @ layer["up"] + layer["bias"]), "hidden")
        return hidden @ layer["down"], None

    policy = jax.checkpoint_policies.save_only_these_names("hidden")
    return lax.scan(jax.checkpoint(block, policy=policy), x, stack)[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "a list of the blocks, one dict each, is the stack",
        "teaches": SCAN,
        "source": """
def run_stack(stack, x):
"""
        + NAMED_BLOCK
        + """
    step = jax.checkpoint(block, policy=jax.checkpoint_policies.save_only_these_names("hidden"))
    blocks = [jax.tree.map(lambda leaf: leaf[i], stack) for i in range(stack["up"].shape[0])]
    for layer in blocks:
        x, _ = lax.scan(lambda c, l: step(c, l), x, jax.tree.map(lambda leaf: leaf[None], layer))
    return x
""",
    },
    {
        "function": "init_stack",
        "misconception": "a stack holds one dtype: every leaf is cast to float32",
        "teaches": SHAPES,
        "visible_passes": "only a layer of bfloat16 or float16 structs shows it, and the visible tests' are float32",
        "source": """
def init_stack(key, n_layers, layer_shapes):
    stack = jax.vmap(init_params, in_axes=(0, None))(jax.random.split(key, n_layers), layer_shapes)
    return jax.tree.map(lambda leaf: leaf.astype(jnp.float32), stack)
""",
    },
    {
        "function": "run_stack",
        "misconception": "a stack of one block needs no scan",
        "teaches": SCAN,
        "visible_passes": "the visible tests watch the scan on a stack of three",
        "source": """
def run_stack(stack, x):
"""
        + NAMED_BLOCK
        + """
    step = jax.checkpoint(block, policy=jax.checkpoint_policies.save_only_these_names("hidden"))
    if stack["up"].shape[0] == 1:
        return step(x, jax.tree.map(lambda leaf: leaf[0], stack))[0]
    return lax.scan(step, x, stack)[0]
""",
    },
    {
        "function": "run_stack",
        "misconception": "the name may go on the pre-activation, which tanh then reads",
        "teaches": REMAT,
        "source": NAMING_BLOCK
        + """
        pre = checkpoint_name(x @ layer["up"] + layer["bias"], "hidden")
        return x + jnp.tanh(pre) @ layer["down"], None
"""
        + POLICY_SCAN,
    },
    {
        "function": "run_stack",
        "misconception": "checkpoint_name tags its argument in place, so its result may be dropped",
        "teaches": REMAT,
        "source": NAMING_BLOCK
        + """
        hidden = jnp.tanh(x @ layer["up"] + layer["bias"])
        checkpoint_name(hidden, "hidden")
        return x + hidden @ layer["down"], None
"""
        + POLICY_SCAN,
    },
    {
        "function": "run_stack",
        "misconception": "the hidden value to keep is the block's output, the carry",
        "teaches": REMAT,
        "source": NAMING_BLOCK
        + """
        hidden = jnp.tanh(x @ layer["up"] + layer["bias"])
        return checkpoint_name(x + hidden @ layer["down"], "hidden"), None
"""
        + POLICY_SCAN,
    },
    {
        "function": "run_stack",
        "misconception": "a plain jax.checkpoint around the whole scan only saves more memory",
        "teaches": REMAT,
        "source": """
def run_stack(stack, x):
"""
        + NAMED_BLOCK
        + """
    body = jax.checkpoint(block, policy=jax.checkpoint_policies.save_only_these_names("hidden"))
    return jax.checkpoint(lambda stack, x: lax.scan(body, x, stack)[0])(stack, x)
""",
    },
]
