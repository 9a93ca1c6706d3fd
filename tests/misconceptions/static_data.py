"""Wrong-but-plausible versions of the Static data and functions in trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

PARTIAL = "Reread Static data and functions in trees → Functions in trees: Partial"
LEAF = "Reread Static data and functions in trees → What a leaf may be under jit"
FILTER = (
    "Reread Static data and functions in trees → eqx.filter_jit: arrays traced, the rest static"
)
RETRACES = "Reread Static data and functions in trees → Why did it retrace?"
COMPARED = "Reread Static data and functions in trees → How jit compares static values"

PLAIN_STEP = """
@jax.jit
def _sgd_step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)

"""


def _schedule(convert: str) -> str:
    """A train_schedule that hands each rate to the plain step as ``convert`` makes it."""
    return (
        PLAIN_STEP
        + f"""
def train_schedule(params, grads, lrs):
    for lr in lrs:
        params = _sgd_step(params, grads, {convert})
    return params
"""
    )


def _freeze(dict_form: str, list_form: str, tuple_form: str) -> str:
    return f"""
def freeze_config(config):
    if isinstance(config, dict):
        return {dict_form}
    if isinstance(config, list):
        return {list_form}
    if isinstance(config, tuple):
        return {tuple_form}
    return config
"""


SORTED_PAIRS = "tuple(sorted((key, freeze_config(value)) for key, value in config.items()))"
ITEMS = "tuple(freeze_config(item) for item in config)"

CASES = [
    {
        "function": "activate",
        "misconception": "a lambda in a Partial is as good as the function itself",
        "teaches": PARTIAL,
        "source": """
def activate(name, scale, x):
    return _apply(Partial(lambda x: ACTIVATIONS[name](scale, x)), x)
""",
    },
    {
        "function": "activate",
        "misconception": "a functools.partial goes through jit like a Partial",
        "teaches": LEAF,
        "source": """
def activate(name, scale, x):
    return _apply(functools.partial(ACTIVATIONS[name], scale), x)
""",
    },
    {
        "function": "activate",
        "misconception": "wrapping a functools.partial in a Partial keeps one trace",
        "teaches": PARTIAL,
        "source": """
def activate(name, scale, x):
    return _apply(Partial(functools.partial(ACTIVATIONS[name], scale)), x)
""",
    },
    {
        "function": "activate",
        "misconception": "the jitted helper can be skipped when the values come out right",
        "teaches": PARTIAL,
        "source": """
def activate(name, scale, x):
    return ACTIVATIONS[name](scale, x)
""",
    },
    {
        "function": "activate",
        "misconception": "the scale can multiply the result of a unit activation",
        "teaches": PARTIAL,
        "source": """
def activate(name, scale, x):
    return scale * _apply(Partial(ACTIVATIONS[name], 1.0), x)
""",
    },
    {
        "function": "activate",
        "misconception": "binding the name makes the activation static",
        "teaches": PARTIAL,
        "source": """
def _by_name(name, scale, x):
    return ACTIVATIONS[name](scale, x)


def activate(name, scale, x):
    return _apply(Partial(functools.partial(_by_name, name), scale), x)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "the whole tree can go through the jitted helper",
        "teaches": LEAF,
        "source": """
def scale_arrays(tree, factor):
    return _scale(tree, factor)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "a Python number is an array to scale",
        "teaches": FILTER,
        "source": """
def scale_arrays(tree, factor):
    arrays, rest = eqx.partition(tree, eqx.is_array_like)
    return eqx.combine(_scale(arrays, factor), rest)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "only jax.Array and np.ndarray are arrays, not NumPy scalars",
        "teaches": FILTER,
        "source": """
def scale_arrays(tree, factor):
    is_array = lambda leaf: isinstance(leaf, jax.Array | np.ndarray)
    arrays, rest = eqx.partition(tree, is_array)
    return eqx.combine(_scale(arrays, factor), rest)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "every leaf that is not a string can be scaled",
        "teaches": FILTER,
        "source": """
def scale_arrays(tree, factor):
    arrays, rest = eqx.partition(tree, lambda leaf: not isinstance(leaf, str))
    return eqx.combine(_scale(arrays, factor), rest)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "one call of the jitted helper per array is the same",
        "teaches": FILTER,
        "source": """
def scale_arrays(tree, factor):
    return jax.tree.map(lambda leaf: _scale(leaf, factor) if eqx.is_array(leaf) else leaf, tree)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "scaling with NumPy outside jit is the same",
        "teaches": FILTER,
        "source": """
def scale_arrays(tree, factor):
    return jax.tree.map(lambda leaf: jnp.asarray(leaf) * factor if eqx.is_array(leaf) else leaf, tree)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "a Python float is an array, an int is not",
        "teaches": FILTER,
        "source": """
def scale_arrays(tree, factor):
    is_array = lambda leaf: isinstance(leaf, float) or eqx.is_array(leaf)
    arrays, rest = eqx.partition(tree, is_array)
    return eqx.combine(_scale(arrays, factor), rest)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "a jitted function can hand back the leaves that are not arrays",
        "teaches": LEAF,
        "source": """
def scale_arrays(tree, factor):
    arrays, rest = eqx.partition(tree, eqx.is_array)
    return jax.jit(lambda arrays: eqx.combine(_scale(arrays, factor), rest))(arrays)
""",
    },
    {
        "function": "scale_arrays",
        "misconception": "the leaves that are not arrays can go to _scale as zero placeholders",
        "teaches": FILTER,
        "source": """
def scale_arrays(tree, factor):
    leaves, treedef = jax.tree.flatten(tree)
    inputs = [leaf if eqx.is_array(leaf) else 0.0 for leaf in leaves]
    outputs = _scale(inputs, factor)
    result = [out if eqx.is_array(leaf) else leaf for leaf, out in zip(leaves, outputs)]
    return jax.tree.unflatten(treedef, result)
""",
    },
    {
        "function": "train_schedule",
        "misconception": "a learning rate can reach jit as it comes",
        "teaches": RETRACES,
        "source": _schedule("lr"),
    },
    {
        "function": "train_schedule",
        "misconception": "jnp.asarray gives every rate one type",
        "teaches": RETRACES,
        "source": _schedule("jnp.asarray(lr)"),
    },
    {
        "function": "train_schedule",
        "misconception": "converting only the ints is enough",
        "teaches": RETRACES,
        "source": _schedule("float(lr) if isinstance(lr, int) else lr"),
    },
    {
        "function": "train_schedule",
        "misconception": "a NumPy float64 is a different type from a float32 and needs no care",
        "teaches": RETRACES,
        "source": _schedule("lr if isinstance(lr, float | np.floating | jax.Array) else float(lr)"),
    },
    {
        "function": "train_schedule",
        "misconception": "a learning rate belongs in a static argument",
        "teaches": RETRACES,
        "source": """
@functools.partial(jax.jit, static_argnames="lr")
def _sgd_step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def train_schedule(params, grads, lrs):
    for lr in lrs:
        params = _sgd_step(params, grads, lr=float(lr))
    return params
""",
    },
    {
        "function": "train_schedule",
        "misconception": "a jitted step can close over the learning rate",
        "teaches": RETRACES,
        "source": PLAIN_STEP
        + """
def train_schedule(params, grads, lrs):
    for lr in lrs:
        step = jax.jit(lambda p, g: jax.tree.map(lambda a, b: a - float(lr) * b, p, g))
        params = step(params, grads)
    return params
""",
    },
    {
        "function": "train_schedule",
        "misconception": "the learning rate can be read with float() inside the jitted step",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": """
@jax.jit
def _sgd_step(params, grads, lr):
    rate = float(lr)
    return jax.tree.map(lambda p, g: p - rate * g, params, grads)


def train_schedule(params, grads, lrs):
    for lr in lrs:
        params = _sgd_step(params, grads, lr)
    return params
""",
    },
    {
        "function": "train_schedule",
        "misconception": "the mean rate in one step is the same schedule",
        "teaches": RETRACES,
        "source": PLAIN_STEP
        + """
def train_schedule(params, grads, lrs):
    return _sgd_step(params, grads, float(sum(float(lr) for lr in lrs)) / len(lrs))
""",
    },
    {
        "function": "train_schedule",
        "misconception": "the update goes through the rate in float64",
        "teaches": RETRACES,
        "source": PLAIN_STEP
        + """
def train_schedule(params, grads, lrs):
    for lr in lrs:
        params = _sgd_step(params, grads, float(lr))
    return jax.tree.map(lambda p: np.asarray(p, np.float64), params)
""",
    },
    {
        "function": "train_schedule",
        "misconception": "with fixed gradients one step with the summed rate is the schedule",
        "teaches": RETRACES,
        "source": PLAIN_STEP
        + """
def train_schedule(params, grads, lrs):
    total = sum(float(lr) for lr in lrs)
    return _sgd_step(params, grads, total)
""",
    },
    {
        "function": "freeze_config",
        "misconception": "lists and tuples may freeze alike",
        "teaches": COMPARED,
        "source": _freeze(
            f'("dict", {SORTED_PAIRS})', f'("tuple", {ITEMS})', f'("tuple", {ITEMS})'
        ),
    },
    {
        "function": "freeze_config",
        "misconception": "plain tuples are enough, without the kinds",
        "teaches": COMPARED,
        "source": _freeze(SORTED_PAIRS, ITEMS, ITEMS),
    },
    {
        "function": "freeze_config",
        "misconception": "a dict's items in a tuple are canonical without sorting",
        "teaches": COMPARED,
        "source": _freeze(
            '("dict", tuple((key, freeze_config(value)) for key, value in config.items()))',
            f'("list", {ITEMS})',
            f'("tuple", {ITEMS})',
        ),
    },
    {
        "function": "freeze_config",
        "misconception": "freezing the top level is enough",
        "teaches": COMPARED,
        "source": _freeze(
            '("dict", tuple(sorted(config.items())))',
            '("list", tuple(config))',
            '("tuple", config)',
        ),
    },
    {
        "function": "freeze_config",
        "misconception": "sorting a list too makes configs comparable",
        "visible_passes": "only other inputs than the visible tests' show it: Two configs that differ (in a container's kind, or a list's order) must freeze to different values, or jit would run one of them with the program compiled for the other",
        "teaches": COMPARED,
        "source": _freeze(
            f'("dict", {SORTED_PAIRS})',
            '("list", tuple(sorted((freeze_config(item) for item in config), key=repr)))',
            f'("tuple", {ITEMS})',
        ),
    },
    {
        "function": "freeze_config",
        "misconception": "a tuple is hashable already and needs no freezing",
        "visible_passes": "only other inputs than the visible tests' show it: On a config drawn at random your result differs from each container as the name of its kind and a tuple of its frozen contents, a dict's pairs sorted by key",
        "teaches": COMPARED,
        "source": _freeze(f'("dict", {SORTED_PAIRS})', f'("list", {ITEMS})', '("tuple", config)'),
    },
    {
        "function": "freeze_config",
        "misconception": "a dict frozen as a frozenset of its items",
        "teaches": COMPARED,
        "source": _freeze(
            '("dict", frozenset((key, freeze_config(value)) for key, value in config.items()))',
            f'("list", {ITEMS})',
            f'("tuple", {ITEMS})',
        ),
    },
    {
        "function": "activate",
        "misconception": "the scale may be applied to x before the call, the Partial binding a unit gain",
        "teaches": PARTIAL,
        "source": """
def activate(name, scale, x):
    return _apply(Partial(ACTIVATIONS[name], 1.0), scale * x)
""",
    },
    {
        "function": "train_schedule",
        "misconception": "the list of rates converted at once gives every schedule one abstract value",
        "visible_passes": "only other inputs than the visible tests' show it: a schedule of ints alone, which jnp.asarray makes int32 where any float among the rates makes float32",
        "teaches": RETRACES,
        "source": PLAIN_STEP
        + """
def train_schedule(params, grads, lrs):
    for lr in jnp.asarray(lrs):
        params = _sgd_step(params, grads, lr)
    return params
""",
    },
    {
        "function": "freeze_config",
        "misconception": "a container frozen under its type's own name",
        "visible_passes": "only other inputs than the visible tests' show it: an OrderedDict or a namedtuple, equal to the plain dict or tuple of the same contents, frozen under another name",
        "teaches": COMPARED,
        "source": """
def freeze_config(config):
    if isinstance(config, dict):
        pairs = tuple(sorted((key, freeze_config(value)) for key, value in config.items()))
        return (type(config).__name__, pairs)
    if isinstance(config, list | tuple):
        return (type(config).__name__, tuple(freeze_config(item) for item in config))
    return config
""",
    },
]
