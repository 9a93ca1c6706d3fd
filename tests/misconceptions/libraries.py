"""Wrong-but-plausible versions of the The libraries' own trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CHAPTER = "Reread The libraries' own trees"
STATE = f"{CHAPTER} → An optimiser state is a tree"
MAPPING = f"{CHAPTER} → Mapping over an optimiser state"
MASKS = f"{CHAPTER} → Masks for optax.masked"
EQX = f"{CHAPTER} → An Equinox module is a tree"
TREE_AT = f"{CHAPTER} → Frozen modules and eqx.tree_at"
NNX = f"{CHAPTER} → NNX: a GraphDef and a State"
FILTERS = f"{CHAPTER} → Filters and counting by path"

CASES = [
    {
        "function": "decay_mask",
        "misconception": "weights are the leaves with more than one axis",
        "teaches": MASKS,
        "source": """
def decay_mask(params):
    return jax.tree.map(lambda leaf: leaf.ndim > 1, params)
""",
    },
    {
        "function": "decay_mask",
        "misconception": "the first key of a path names the leaf",
        "teaches": MASKS,
        "source": """
def decay_mask(params):
    return jax.tree_util.tree_map_with_path(lambda path, leaf: path[0].key == "w", params)
""",
    },
    {
        "function": "decay_mask",
        "misconception": "a mask is a flat list with one bool per leaf",
        "teaches": MASKS,
        "source": """
def decay_mask(params):
    return [path[-1].key == "w" for path, _ in jax.tree_util.tree_leaves_with_path(params)]
""",
    },
    {
        "function": "decay_mask",
        "misconception": "a w anywhere in the path string marks a weight",
        "teaches": MASKS,
        "source": """
def decay_mask(params):
    return jax.tree_util.tree_map_with_path(
        lambda path, leaf: "w" in jax.tree_util.keystr(path), params
    )
""",
    },
    {
        "function": "decay_mask",
        "misconception": "a mask only needs the leaves to decay",
        "teaches": MASKS,
        "source": """
def decay_mask(params):
    return {
        jax.tree_util.keystr(path): True
        for path, _ in jax.tree_util.tree_leaves_with_path(params)
        if path[-1].key == "w"
    }
""",
    },
    {
        "function": "adam_state_in_float16",
        "misconception": "every leaf of an optimiser state is a moment",
        "teaches": MAPPING,
        "source": """
def adam_state_in_float16(params, grads):
    optimiser = optax.adam(1e-2)
    _, state = optimiser.update(grads, optimiser.init(params), params)
    return jax.tree.map(lambda leaf: leaf.astype(jnp.float16), state)
""",
    },
    {
        "function": "adam_state_in_float16",
        "misconception": "optax.tree_utils.tree_cast casts the moments only",
        "teaches": MAPPING,
        "source": """
def adam_state_in_float16(params, grads):
    optimiser = optax.adam(1e-2)
    _, state = optimiser.update(grads, optimiser.init(params), params)
    return optax.tree_utils.tree_cast(state, jnp.float16)
""",
    },
    {
        "function": "adam_state_in_float16",
        "misconception": "init already holds the moments of the first step",
        "teaches": MAPPING,
        "source": """
def adam_state_in_float16(params, grads):
    optimiser = optax.adam(1e-2)
    state = optimiser.init(params)
    return optax.tree_utils.tree_map_params(optimiser, lambda leaf: leaf.astype(jnp.float16), state)
""",
    },
    {
        "function": "adam_state_in_float16",
        "misconception": "the moments are the state",
        "teaches": STATE,
        "source": """
def adam_state_in_float16(params, grads):
    optimiser = optax.adam(1e-2)
    _, state = optimiser.update(grads, optimiser.init(params), params)
    half = lambda tree: jax.tree.map(lambda leaf: leaf.astype(jnp.float16), tree)
    return half(state[0].mu), half(state[0].nu)
""",
    },
    {
        "function": "adam_state_in_float16",
        "misconception": "nu is a statistic, not a moment to cast",
        "teaches": MAPPING,
        "source": """
def adam_state_in_float16(params, grads):
    optimiser = optax.adam(1e-2)
    _, state = optimiser.update(grads, optimiser.init(params), params)
    mu = jax.tree.map(lambda leaf: leaf.astype(jnp.float16), state[0].mu)
    return (state[0]._replace(mu=mu), state[1])
""",
    },
    {
        "function": "replace_weight",
        "misconception": "building the module again from edited dicts is the same as editing it",
        "teaches": TREE_AT,
        "source": """
def replace_weight(layers, index, weight):
    layers = [dict(layer) for layer in layers]
    layers[index]["weight"] = weight
    return build_stack(layers)
""",
    },
    {
        "function": "replace_weight",
        "misconception": "object.__setattr__ is a fine way round a frozen module",
        "teaches": TREE_AT,
        "source": """
def replace_weight(layers, index, weight):
    stack = build_stack(layers)
    object.__setattr__(stack.layers[index], "weight", jnp.asarray(weight))
    return stack
""",
    },
    {
        "function": "replace_weight",
        "misconception": "a layer is its weight and bias, so a new Affine replaces it",
        "teaches": EQX,
        "source": """
def replace_weight(layers, index, weight):
    stack = build_stack(layers)
    return eqx.tree_at(
        lambda s: s.layers[index], stack, replace_fn=lambda layer: Affine(jnp.asarray(weight), layer.bias)
    )
""",
    },
    {
        "function": "replace_weight",
        "misconception": "the leaf to replace is the one with the new weight's shape",
        "teaches": TREE_AT,
        "source": """
def replace_weight(layers, index, weight):
    stack = build_stack(layers)
    weight = jnp.asarray(weight)
    return jax.tree.map(lambda leaf: weight if leaf.shape == weight.shape else leaf, stack)
""",
    },
    {
        "function": "count_params_by_path",
        "misconception": "every variable in the State is a parameter",
        "teaches": FILTERS,
        "source": """
def count_params_by_path(features):
    _, state = nnx.split(Net(features, nnx.Rngs(0)))
    return {"/".join(str(key) for key in path): int(v.size) for path, v in nnx.to_flat_state(state)}
""",
    },
    {
        "function": "count_params_by_path",
        "misconception": "keystr of a leaf's path is the parameter's path",
        "teaches": FILTERS,
        "source": """
def count_params_by_path(features):
    params = nnx.state(Net(features, nnx.Rngs(0)), nnx.Param)
    return {
        jax.tree_util.keystr(path): int(leaf.size)
        for path, leaf in jax.tree_util.tree_leaves_with_path(params)
    }
""",
    },
    {
        "function": "count_params_by_path",
        "misconception": "len counts an array's elements",
        "teaches": FILTERS,
        "source": """
def count_params_by_path(features):
    params = nnx.state(Net(features, nnx.Rngs(0)), nnx.Param)
    return {"/".join(str(key) for key in path): len(v) for path, v in nnx.to_flat_state(params)}
""",
    },
    {
        "function": "count_params_by_path",
        "misconception": "a variable's name is enough of a path",
        "teaches": FILTERS,
        "source": """
def count_params_by_path(features):
    params = nnx.state(Net(features, nnx.Rngs(0)), nnx.Param)
    return {str(path[-1]): int(v.size) for path, v in nnx.to_flat_state(params)}
""",
    },
    {
        "function": "count_params_by_path",
        "misconception": "reading the layers' attributes by hand is the same as reading the State",
        "teaches": FILTERS,
        "source": """
def count_params_by_path(features):
    model = Net(features, nnx.Rngs(0))
    counts = {"norm/bias": model.norm.bias.size, "norm/scale": model.norm.scale.size}
    for i, layer in enumerate(model.layers):
        counts[f"layers/{i}/kernel"] = layer.kernel.size
        counts[f"layers/{i}/bias"] = layer.bias.size
    return counts
""",
    },
]
