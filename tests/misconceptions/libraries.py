"""Wrong-but-plausible versions of the The libraries' own trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CHAPTER = "Reread The libraries' own trees"
STATE = f"{CHAPTER} → An optimiser state is a tree"
MAPPING = f"{CHAPTER} → Mapping over an optimiser state"
LABELS = f"{CHAPTER} → Labels for optax.multi_transform"
EQX = f"{CHAPTER} → An Equinox module is a tree"
EQX_OPTAX = f"{CHAPTER} → Optax on an Equinox model"
TREE_AT = f"{CHAPTER} → Frozen modules and eqx.tree_at"
NNX = f"{CHAPTER} → NNX: a GraphDef and a State"
FILTERS = f"{CHAPTER} → Filters and counting by path"

CASES = [
    {
        "function": "frozen_sgd_step",
        "misconception": "Optax can be initialised on the whole Equinox model",
        "teaches": EQX_OPTAX,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    labels = jax.tree_util.tree_map_with_path(
        lambda path, _: "frozen" if len(path) > 1 and path[1].idx in frozen else "train", model
    )
    optimiser = optax.multi_transform(
        {"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, lambda _: labels
    )
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(model), model)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "a labels tree that is a module can be handed to multi_transform as it is",
        "teaches": EQX_OPTAX,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    labels = jax.tree_util.tree_map_with_path(lambda path, _: "frozen" if path[1].idx in frozen else "train", arrays)
    optimiser = optax.multi_transform({"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, labels)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "optax.masked freezes the leaves outside its mask",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    train = jax.tree_util.tree_map_with_path(lambda path, _: path[1].idx not in frozen, arrays)
    optimiser = optax.masked(optax.sgd(0.1, momentum=0.9), lambda _: train)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "a layer's index is its leaves' position in the flat list",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    leaves, treedef = jax.tree.flatten(arrays)
    labels = jax.tree.unflatten(treedef, ["frozen" if i in frozen else "train" for i in range(len(leaves))])
    optimiser = optax.multi_transform({"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, lambda _: labels)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "freezing a layer means freezing its weight",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    labels = jax.tree_util.tree_map_with_path(
        lambda path, _: "frozen" if path[1].idx in frozen and path[2].name == "weight" else "train", arrays
    )
    optimiser = optax.multi_transform({"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, lambda _: labels)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "zeroing the frozen gradients by hand is the same as labelling them",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    grads = jax.tree_util.tree_map_with_path(
        lambda path, g: jnp.zeros_like(g) if path[1].idx in frozen else g, mlp_grads(model)
    )
    optimiser = optax.sgd(0.1, momentum=0.9)
    updates, _ = optimiser.update(grads, optimiser.init(arrays), arrays)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "the trained model is what to return, functions and all",
        "teaches": EQX_OPTAX,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    labels = jax.tree_util.tree_map_with_path(lambda path, _: "frozen" if path[1].idx in frozen else "train", arrays)
    optimiser = optax.multi_transform({"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, lambda _: labels)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.apply_updates(model, updates)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "optax.apply_updates adds updates to an Equinox model",
        "teaches": EQX_OPTAX,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    labels = jax.tree_util.tree_map_with_path(lambda path, _: "frozen" if path[1].idx in frozen else "train", arrays)
    optimiser = optax.multi_transform(
        {"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, lambda _: labels
    )
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.filter(optax.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "casting the whole state to bfloat16 is the same as a bfloat16 mu",
        "teaches": MAPPING,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2, mu_dtype=jnp.bfloat16)
    state = optimiser.init(params)
    for _ in range(2):
        _, state = optimiser.update(grads, state, params)
    return jax.tree.map(lambda leaf: leaf.astype(jnp.bfloat16) if leaf.dtype == jnp.float32 else leaf, state)
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "a cast of mu after the last update is what mu_dtype does",
        "teaches": MAPPING,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2)
    state = optimiser.init(params)
    for _ in range(2):
        _, state = optimiser.update(grads, state, params)
    mu = jax.tree.map(lambda leaf: leaf.astype(jnp.bfloat16), state[0].mu)
    return (state[0]._replace(mu=mu), state[1])
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "a state cast once keeps its dtypes through update",
        "teaches": MAPPING,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2)
    state = optimiser.init(params)
    state = optax.tree_utils.tree_map_params(optimiser, lambda leaf: leaf.astype(jnp.bfloat16), state)
    state = (state[0]._replace(nu=jax.tree.map(lambda leaf: leaf.astype(jnp.float32), state[0].nu)), state[1])
    for _ in range(2):
        _, state = optimiser.update(grads, state, params)
    return state
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "both moments belong in bfloat16",
        "teaches": MAPPING,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2, mu_dtype=jnp.bfloat16)
    state = optimiser.init(params)
    for _ in range(2):
        _, state = optimiser.update(grads, state, params)
    return optax.tree_utils.tree_map_params(optimiser, lambda leaf: leaf.astype(jnp.bfloat16), state)
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "each update may start from a fresh state",
        "teaches": STATE,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2, mu_dtype=jnp.bfloat16)
    for _ in range(2):
        _, state = optimiser.update(grads, optimiser.init(params), params)
    return state
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "float16 and bfloat16 are the same half precision",
        "teaches": MAPPING,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2, mu_dtype=jnp.float16)
    state = optimiser.init(params)
    for _ in range(2):
        _, state = optimiser.update(grads, state, params)
    return state
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "the moments are the state",
        "teaches": STATE,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2, mu_dtype=jnp.bfloat16)
    state = optimiser.init(params)
    for _ in range(2):
        _, state = optimiser.update(grads, state, params)
    return state[0]
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "the updates are the new parameters",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    labels = jax.tree_util.tree_map_with_path(lambda path, _: "frozen" if path[1].idx in frozen else "train", arrays)
    optimiser = optax.multi_transform(
        {"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, lambda _: labels
    )
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return updates
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "a state initialised on bfloat16 parameters keeps mu small",
        "teaches": MAPPING,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2, mu_dtype=jnp.bfloat16)
    state = optimiser.init(jax.tree.map(lambda leaf: leaf.astype(jnp.bfloat16), params))
    for _ in range(2):
        _, state = optimiser.update(grads, state, params)
    return state
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
    {
        "function": "frozen_sgd_step",
        "misconception": "the momentum starts at zero, so plain SGD is the same optimiser",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    labels = jax.tree_util.tree_map_with_path(lambda path, _: "frozen" if path[1].idx in frozen else "train", arrays)
    optimiser = optax.multi_transform({"train": optax.sgd(0.1), "frozen": optax.set_to_zero()}, lambda _: labels)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "indices in any order must be sorted first, in the caller's list",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    frozen.sort()
    model = make_mlp(depth)
    arrays = eqx.filter(model, eqx.is_array)
    labels = jax.tree_util.tree_map_with_path(lambda path, _: "frozen" if path[1].idx in frozen else "train", arrays)
    optimiser = optax.multi_transform({"train": optax.sgd(0.1, momentum=0.9), "frozen": optax.set_to_zero()}, lambda _: labels)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(arrays), arrays)
    return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array)
""",
    },
    {
        "function": "adam_state_bf16_mu",
        "misconception": "the gradients should be bfloat16 too, to match mu",
        "visible_passes": "only other inputs than the visible tests' show it: nu must be the float32 average of the squared gradients as given: mu_dtype decides the dtype Optax keeps mu in, and casting the gradients to bfloat16 first rounds them, which shows in nu",
        "teaches": MAPPING,
        "source": """
def adam_state_bf16_mu(params, grads):
    optimiser = optax.adam(1e-2, mu_dtype=jnp.bfloat16)
    state = optimiser.init(params)
    low = jax.tree.map(lambda g: g.astype(jnp.bfloat16), grads)
    for _ in range(2):
        _, state = optimiser.update(low, state, params)
    return state
""",
    },
    {
        "function": "replace_weight",
        "misconception": "the caller's layer dicts may be edited before building the model",
        "teaches": TREE_AT,
        "source": """
def replace_weight(layers, index, weight):
    layers[index]["weight"] = weight
    model = build_stack(layers)
    return eqx.tree_at(lambda m: m.layers[index].weight, model, jnp.asarray(weight))
""",
    },
    {
        "function": "count_params_by_path",
        "misconception": "np.prod of the shape is as good a count as an int",
        "teaches": FILTERS,
        "source": """
def count_params_by_path(features):
    _, params, _ = nnx.split(Net(features, nnx.Rngs(0)), nnx.Param, ...)
    return {"/".join(map(str, path)): np.prod(v.shape) for path, v in nnx.to_flat_state(params)}
""",
    },
    {
        "function": "replace_weight",
        "misconception": "eqx.tree_at on the list of dicts, then building, is the same as on the model",
        "teaches": "Reread The libraries' own trees → Frozen modules and eqx.tree_at",
        "source": """
def replace_weight(layers, index, weight):
    \"\"\"Return ``build_stack(layers)`` with layer ``index``'s weight replaced by ``weight``.\"\"\"
    # the list of dicts is a pytree too: replace the weight there, then build
    new_layers = eqx.tree_at(lambda ls: ls[index]["weight"], layers, weight)
    return build_stack(new_layers)
""",
    },
    {
        "function": "frozen_sgd_step",
        "misconception": "a frozen label is an optimiser with a learning rate of zero",
        "teaches": LABELS,
        "source": """
def frozen_sgd_step(depth, frozen):
    model = make_mlp(depth)
    params = eqx.filter(model, eqx.is_array)

    def labels(tree):
        return jax.tree_util.tree_map_with_path(lambda path, _: "still" if path[1].idx in frozen else "moving", tree)

    rates = {"still": optax.sgd(0.0, momentum=0.9), "moving": optax.sgd(0.1, momentum=0.9)}
    optimiser = optax.multi_transform(rates, labels)
    updates, _ = optimiser.update(mlp_grads(model), optimiser.init(params), params)
    return eqx.apply_updates(params, updates)
""",
    },
]
