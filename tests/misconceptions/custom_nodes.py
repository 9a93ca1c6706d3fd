"""Wrong-but-plausible versions of the Custom nodes exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "make_linear",
        "misconception": "a subclass of a registered class is registered too",
        "teaches": "Custom nodes → Subclasses are not registered",
        "source": """
class Params:
    def __init__(self, weights, bias):
        self.weights = weights
        self.bias = bias


def flatten_linear(params):
    return (params.weights, params.bias), None


def unflatten_linear(aux_data, children):
    return Params(*children)


jax.tree_util.register_pytree_node(Params, flatten_linear, unflatten_linear)


class LinearParams(Params):
    pass


def make_linear(weights, bias):
    return LinearParams(weights, bias)
""",
    },
    {
        "function": "make_linear",
        "misconception": "the order of the children does not matter",
        "teaches": "Custom nodes → Registering a class",
        "source": """
class LinearParams:
    def __init__(self, weights, bias):
        self.weights = weights
        self.bias = bias


def flatten_linear(params):
    return (params.bias, params.weights), None


def unflatten_linear(aux_data, children):
    bias, weights = children
    return LinearParams(weights, bias)


jax.tree_util.register_pytree_node(LinearParams, flatten_linear, unflatten_linear)


def make_linear(weights, bias):
    return LinearParams(weights, bias)
""",
    },
    {
        "function": "make_polynomial",
        "misconception": "__init__ may convert its arguments with jnp.asarray",
        "teaches": "Custom nodes → Keep the constructor plain",
        "source": """
@jax.tree_util.register_pytree_node_class
class Polynomial:
    def __init__(self, coeffs, var):
        self.coeffs = jnp.asarray(coeffs)
        self.var = var

    def tree_flatten(self):
        return (self.coeffs,), self.var

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(children[0], aux_data)

    def __call__(self, v):
        return jnp.polyval(jnp.asarray(self.coeffs)[::-1], v)


def make_polynomial(coeffs, var):
    return Polynomial(coeffs, var)
""",
    },
    {
        "function": "make_polynomial",
        "misconception": "putting everything in aux_data keeps jit happy",
        "teaches": "Custom nodes → A Polynomial with a static var",
        "source": """
@jax.tree_util.register_pytree_node_class
class Polynomial:
    def __init__(self, coeffs, var):
        self.coeffs = coeffs
        self.var = var

    def tree_flatten(self):
        return (), (tuple(float(c) for c in self.coeffs), self.var)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        coeffs, var = aux_data
        return cls(list(coeffs), var)

    def __call__(self, v):
        return jnp.polyval(jnp.asarray(self.coeffs)[::-1], v)


def make_polynomial(coeffs, var):
    return Polynomial(coeffs, var)
""",
    },
    {
        "function": "eval_polynomial",
        "misconception": "one compiled function per var, closing over the coefficients",
        "teaches": "Custom nodes → A Polynomial with a static var",
        "source": """
_compiled = {}


def eval_polynomial(coeffs, var, x):
    if var not in _compiled:
        poly = Polynomial(coeffs, var)
        _compiled[var] = jax.jit(jax.vmap(lambda v: poly(v)))
    return _compiled[var](jnp.asarray(x))
""",
    },
    {
        "function": "make_train_state",
        "misconception": "a NamedTuple keeps its string fields static",
        "teaches": "Custom nodes → NamedTuple: a node for free",
        "source": """
class TrainState(NamedTuple):
    params: object
    step: object
    name: str


def make_train_state(params, step, name):
    return TrainState(params, step, name)
""",
    },
    {
        "function": "make_train_state",
        "misconception": "register_dataclass without field lists knows which fields are static",
        "teaches": "Custom nodes → register_dataclass",
        "source": """
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class TrainState:
    params: object
    step: object
    name: str


def make_train_state(params, step, name):
    return TrainState(params, step, name)
""",
    },
    {
        "function": "make_train_state",
        "misconception": "the step count is static, like the name",
        "teaches": "Custom nodes → register_dataclass",
        "source": """
@dataclasses.dataclass
class TrainState:
    params: object
    step: object
    name: str


jax.tree_util.register_dataclass(TrainState, data_fields=["params"], meta_fields=["step", "name"])


def make_train_state(params, step, name):
    return TrainState(params, step, name)
""",
    },
]
