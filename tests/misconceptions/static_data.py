"""Wrong-but-plausible versions of the Static data and functions in trees exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

PARTIAL = "Reread Static data and functions in trees → Functions in trees: Partial"
REGISTERED = (
    "Reread Static data and functions in trees → register_static: a type that is always static"
)
COMPARED = "Reread Static data and functions in trees → How jit compares static values"
RETRACES = "Reread Static data and functions in trees → Which one, and when it retraces"

CLASS_HEAD = """
class LayerConfig:
    def __init__(self, act, width):
        self.act = act
        self.width = width
"""

REGISTERED_RUN = """

jax.tree_util.register_static(LayerConfig)


def run_layer(act, width, x):
    return _forward(LayerConfig(act, width), x)
"""

PLAIN_STEP = """
@jax.jit
def _sgd_step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)

"""

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
        "teaches": "Reread Static data and functions in trees → What a leaf may be under jit",
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
        "function": "run_layer",
        "misconception": "a class compares by its contents without an __eq__",
        "teaches": COMPARED,
        "source": CLASS_HEAD + REGISTERED_RUN,
    },
    {
        "function": "run_layer",
        "misconception": "the activation alone tells two configs apart",
        "teaches": REGISTERED,
        "source": CLASS_HEAD
        + """
    def __eq__(self, other):
        return isinstance(other, LayerConfig) and self.act == other.act

    def __hash__(self):
        return hash(self.act)
"""
        + REGISTERED_RUN,
    },
    {
        "function": "run_layer",
        "misconception": "a config can be a node whose fields are its children",
        "teaches": "Reread Static data and functions in trees → What a leaf may be under jit",
        "source": CLASS_HEAD
        + """
    def __eq__(self, other):
        return isinstance(other, LayerConfig) and (self.act, self.width) == (other.act, other.width)

    def __hash__(self):
        return hash((self.act, self.width))


jax.tree_util.register_pytree_node(
    LayerConfig,
    lambda config: ((config.act, config.width), None),
    lambda _, children: LayerConfig(*children),
)


def run_layer(act, width, x):
    return _forward(LayerConfig(act, width), x)
""",
    },
    {
        "function": "run_layer",
        "misconception": "a static config needs no jitted helper",
        "teaches": REGISTERED,
        "source": CLASS_HEAD
        + """
    def __eq__(self, other):
        return isinstance(other, LayerConfig) and (self.act, self.width) == (other.act, other.width)

    def __hash__(self):
        return hash((self.act, self.width))


jax.tree_util.register_static(LayerConfig)


def run_layer(act, width, x):
    return ACTIVATIONS[act](1.0, x[:width])
""",
    },
    {
        "function": "run_schedule",
        "misconception": "a learning rate belongs in a static argument",
        "teaches": RETRACES,
        "source": """
@functools.partial(jax.jit, static_argnames="lr")
def _sgd_step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def run_schedule(params, grads, lrs):
    for lr in lrs:
        params = _sgd_step(params, grads, lr=lr)
    return params
""",
    },
    {
        "function": "run_schedule",
        "misconception": "a jitted step can close over the learning rate",
        "teaches": RETRACES,
        "source": PLAIN_STEP
        + """
def run_schedule(params, grads, lrs):
    for lr in lrs:
        step = jax.jit(lambda p, g: jax.tree.map(lambda a, b: a - lr * b, p, g))
        params = step(params, grads)
    return params
""",
    },
    {
        "function": "run_schedule",
        "misconception": "the learning rate can be read with float() inside the jitted step",
        "teaches": "Reread aux_data → Children and aux_data",
        "source": """
@jax.jit
def _sgd_step(params, grads, lr):
    rate = float(lr)
    return jax.tree.map(lambda p, g: p - rate * g, params, grads)


def run_schedule(params, grads, lrs):
    for lr in lrs:
        params = _sgd_step(params, grads, lr)
    return params
""",
    },
    {
        "function": "run_schedule",
        "misconception": "the sum of the rates in one step is the same schedule",
        "teaches": RETRACES,
        "source": PLAIN_STEP
        + """
def run_schedule(params, grads, lrs):
    return _sgd_step(params, grads, sum(lrs) / len(lrs))
""",
    },
    {
        "function": "freeze_config",
        "misconception": "a dict's items in a tuple are hashable and canonical",
        "teaches": COMPARED,
        "source": """
def freeze_config(config):
    if isinstance(config, dict):
        return tuple((key, freeze_config(value)) for key, value in config.items())
    if isinstance(config, list | tuple):
        return tuple(freeze_config(item) for item in config)
    return config
""",
    },
    {
        "function": "freeze_config",
        "misconception": "freezing the top level is enough",
        "teaches": COMPARED,
        "source": """
def freeze_config(config):
    if isinstance(config, dict):
        return tuple(sorted(config.items()))
    if isinstance(config, list):
        return tuple(config)
    return config
""",
    },
    {
        "function": "freeze_config",
        "misconception": "sorting a list too makes configs comparable",
        "teaches": COMPARED,
        "source": """
def freeze_config(config):
    if isinstance(config, dict):
        return tuple(sorted((key, freeze_config(value)) for key, value in config.items()))
    if isinstance(config, list | tuple):
        return tuple(sorted((freeze_config(item) for item in config), key=repr))
    return config
""",
    },
]
