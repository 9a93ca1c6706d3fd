"""Wrong-but-plausible versions of the Custom nodes exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

_LINEAR_CLASS = """
class LinearParams:
    def __init__(self, weights, bias):
        self.weights = weights
        self.bias = bias

"""

_LINEAR_TAIL = """

jax.tree_util.register_pytree_node(LinearParams, flatten_linear, unflatten_linear)


def make_linear(weights, bias):
    return LinearParams(weights, bias)
"""


def _polynomial(init, flatten, unflatten, make="    return Polynomial(coeffs, var)\n"):
    return (
        "@jax.tree_util.register_pytree_node_class\n"
        "class Polynomial:\n"
        "    def __init__(self, coeffs, var):\n"
        + init
        + "\n    def tree_flatten(self):\n"
        + flatten
        + "\n    @classmethod\n"
        "    def tree_unflatten(cls, aux_data, children):\n"
        + unflatten
        + "\n    def __call__(self, v):\n"
        "        return jnp.polyval(jnp.asarray(self.coeffs)[::-1], v)\n"
        "\n\ndef make_polynomial(coeffs, var):\n" + make
    )


_PLAIN_INIT = "        self.coeffs = coeffs\n        self.var = var\n"
_FLATTEN = "        return (self.coeffs,), self.var\n"
_UNFLATTEN = "        return cls(children[0], aux_data)\n"

_TRAIN_STATE_CLASS = """
@dataclasses.dataclass
class TrainState:
    params: object
    step: object
    name: str

"""


def _train_state(registration, make="    return TrainState(params, step, name)\n"):
    return (
        _TRAIN_STATE_CLASS
        + "\n@functools.cache\ndef register_train_state():\n"
        + registration
        + "\n\ndef make_train_state(params, step, name):\n    register_train_state()\n"
        + make
    )


_LINEAR_REGISTERED = """
class LinearParams:
    def __init__(self, weights, bias):
        self.weights = weights
        self.bias = bias


def flatten_linear(params):
    return (params.weights, params.bias), None


def unflatten_linear(aux_data, children):
    return LinearParams(*children)


jax.tree_util.register_pytree_node(LinearParams, flatten_linear, unflatten_linear)
"""

_POLYNOMIAL_CELL = """
@jax.tree_util.register_pytree_node_class
class Polynomial:
    def __init__(self, coeffs, var):
        {init}
        self.var = var

    def tree_flatten(self):
        return (self.coeffs,), self.var

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return {unflatten}

    def __call__(self, v):
        return jnp.polyval(jnp.asarray(self.coeffs)[::-1], v)


def make_polynomial(coeffs, var):
    return Polynomial(coeffs, var)
"""

_TRAIN_STATE_CELL = """
@dataclasses.dataclass
class TrainState:
    params: object
    step: object
    name: str


@functools.cache
def register_train_state():
{register}


def make_train_state(params, step, name):
    register_train_state()
    return TrainState(params, step, name)
"""

CASES = [
    {
        "function": "make_linear",
        "misconception": "a subclass of a registered class is registered too",
        "teaches": "Reread Custom nodes → Subclasses are not registered",
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
        "teaches": "Reread Custom nodes → Registering a class",
        "source": _LINEAR_CLASS
        + """
def flatten_linear(params):
    return (params.bias, params.weights), None


def unflatten_linear(aux_data, children):
    bias, weights = children
    return LinearParams(weights, bias)
"""
        + _LINEAR_TAIL,
    },
    {
        "function": "make_linear",
        "misconception": "unflatten only has to hand the children back",
        "teaches": "Reread Custom nodes → Registering a class",
        "source": _LINEAR_CLASS
        + """
def flatten_linear(params):
    return (params.weights, params.bias), None


def unflatten_linear(aux_data, children):
    return tuple(children)
"""
        + _LINEAR_TAIL,
    },
    {
        "function": "make_linear",
        "misconception": "unflatten takes its arguments in flatten's order, children first",
        "teaches": "Reread Custom nodes → Registering a class",
        "source": _LINEAR_CLASS
        + """
def flatten_linear(params):
    return (params.weights, params.bias), None


def unflatten_linear(children, aux_data):
    return LinearParams(*children)
"""
        + _LINEAR_TAIL,
    },
    {
        "function": "make_linear",
        "misconception": "the shapes of the arrays are static, so they make good aux_data",
        "teaches": "Reread Custom nodes → Registering a class",
        "source": _LINEAR_CLASS
        + """
def flatten_linear(params):
    shapes = (tuple(jnp.shape(params.weights)), tuple(jnp.shape(params.bias)))
    return (params.weights, params.bias), shapes


def unflatten_linear(aux_data, children):
    return LinearParams(*children)
"""
        + _LINEAR_TAIL,
    },
    {
        "function": "make_linear",
        "misconception": "__init__ may convert its arguments to float32 arrays",
        "visible_passes": "only other inputs than the visible tests' show it: weights and bias are kept as they are given, containers included (their leaves become the node's leaves): neither make_linear nor __init__ converts or checks them",
        "teaches": "Reread Custom nodes → Keep the constructor plain",
        "source": """
class LinearParams:
    def __init__(self, weights, bias):
        self.weights = jnp.asarray(weights, dtype=jnp.float32)
        self.bias = jnp.asarray(bias, dtype=jnp.float32)


def flatten_linear(params):
    return (params.weights, params.bias), None


def unflatten_linear(aux_data, children):
    return LinearParams(*children)
"""
        + _LINEAR_TAIL,
    },
    {
        "function": "make_polynomial",
        "misconception": "__init__ may convert its arguments with jnp.asarray",
        "visible_passes": "only other inputs than the visible tests' show it: A list of coefficients must be kept as given (three numbers, three leaves): __init__ must not convert or check its arguments, since JAX also calls it with tracers and None",
        "teaches": "Reread Custom nodes → Keep the constructor plain",
        "source": _polynomial(
            "        self.coeffs = jnp.asarray(coeffs)\n        self.var = var\n",
            _FLATTEN,
            _UNFLATTEN,
        ),
    },
    {
        "function": "make_polynomial",
        "misconception": "__init__ should reject missing coefficients with a clear error",
        "visible_passes": "only other inputs than the visible tests' show it: Polynomial's __init__ must accept anything as coefficients and only store it: jax.jacobian rebuilds your node around None, and any code may rebuild it around placeholder objects",
        "teaches": "Reread Custom nodes → Keep the constructor plain",
        "source": _polynomial(
            "        if coeffs is None:\n"
            '            raise ValueError("a Polynomial needs coefficients")\n' + _PLAIN_INIT,
            _FLATTEN,
            _UNFLATTEN,
        ),
    },
    {
        "function": "make_polynomial",
        "misconception": "aux_data must be a tuple, so var is wrapped in one",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": _polynomial(
            _PLAIN_INIT,
            "        return (self.coeffs,), (self.var,)\n",
            "        return cls(children[0], aux_data[0])\n",
        ),
    },
    {
        "function": "make_polynomial",
        "misconception": "each coefficient is a child of its own",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": _polynomial(
            _PLAIN_INIT,
            "        return tuple(self.coeffs), self.var\n",
            "        return cls(list(children), aux_data)\n",
        ),
    },
    {
        "function": "make_polynomial",
        "misconception": "make_polynomial should hand Polynomial a JAX array",
        "visible_passes": "only other inputs than the visible tests' show it: A list of coefficients must be kept as given (three numbers, three leaves): __init__ must not convert or check its arguments, since JAX also calls it with tracers and None",
        "teaches": "Reread Custom nodes → Keep the constructor plain",
        "source": _polynomial(
            _PLAIN_INIT,
            _FLATTEN,
            _UNFLATTEN,
            make="    return Polynomial(jnp.asarray(coeffs), var)\n",
        ),
    },
    {
        "function": "eval_polynomial",
        "misconception": "one compiled function per var, closing over the coefficients",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
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
        "function": "eval_polynomial",
        "misconception": "the Polynomial, jit and vmap are ceremony: jnp.polyval gives the values",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": """
@jax.jit
def _eval_at_points(poly, points):
    return jax.vmap(lambda p, v: p(v), in_axes=(None, 0))(poly, points)


def eval_polynomial(coeffs, var, x):
    return jnp.polyval(jnp.asarray(coeffs)[::-1], jnp.asarray(x))
""",
    },
    {
        "function": "eval_polynomial",
        "misconception": "a fresh jit of a closure over the polynomial is as good as passing it",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": """
@jax.jit
def _eval_at_points(poly, points):
    return jax.vmap(lambda p, v: p(v), in_axes=(None, 0))(poly, points)


def eval_polynomial(coeffs, var, x):
    poly = Polynomial(coeffs, var)
    return jax.jit(jax.vmap(lambda v: poly(v)))(jnp.asarray(x))
""",
    },
    {
        "function": "eval_polynomial",
        "misconception": "a Python loop over the points inside jit does what vmap does",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": """
@jax.jit
def _eval_at_points(poly, points):
    return jnp.stack([poly(v) for v in points])


def eval_polynomial(coeffs, var, x):
    return _eval_at_points(Polynomial(coeffs, var), jnp.asarray(x))
""",
    },
    {
        "function": "eval_polynomial",
        "misconception": "polyval broadcasts, so vmap is not needed",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": """
@jax.jit
def _eval_at_points(poly, points):
    return poly(points)


def eval_polynomial(coeffs, var, x):
    return _eval_at_points(Polynomial(coeffs, var), jnp.asarray(x))
""",
    },
    {
        "function": "make_train_state",
        "misconception": "a NamedTuple keeps its string fields static",
        "teaches": "Reread Custom nodes → NamedTuple: a node for free",
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
        "teaches": "Reread Custom nodes → register_dataclass",
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
        "teaches": "Reread Custom nodes → register_dataclass",
        "source": _train_state(
            "    jax.tree_util.register_dataclass(\n"
            '        TrainState, data_fields=["params"], meta_fields=["step", "name"]\n'
            "    )\n"
        ),
    },
    {
        "function": "make_train_state",
        "misconception": "the order of data_fields does not matter",
        "teaches": "Reread Custom nodes → register_dataclass",
        "source": _train_state(
            "    jax.tree_util.register_dataclass(\n"
            '        TrainState, data_fields=["step", "params"], meta_fields=["name"]\n'
            "    )\n"
        ),
    },
    {
        "function": "make_train_state",
        "misconception": "the step should be made a JAX array so that jit can trace it",
        "visible_passes": "only other inputs than the visible tests' show it: step must be kept as it is given (a Python int stays an int): make_train_state only builds the TrainState",
        "teaches": "Reread Custom nodes → register_dataclass",
        "source": _train_state(
            "    jax.tree_util.register_dataclass(\n"
            '        TrainState, data_fields=["params", "step"], meta_fields=["name"]\n'
            "    )\n",
            make="    return TrainState(params, jnp.asarray(step), name)\n",
        ),
    },
    {
        "function": "make_polynomial",
        "misconception": "tree_unflatten may ignore the aux_data: the variable is always 'x' in the examples",
        "visible_passes": "only other inputs than the visible tests' show it: A Polynomial rebuilt by JAX, as jit, grad and jax.tree.map rebuild it, lost its var or its coefficients, or wrapped them: tree_unflatten must build the node back from the aux_data and the one child it is given, the first item of the children",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": """
@jax.tree_util.register_pytree_node_class
class Polynomial:
    def __init__(self, coeffs, var):
        self.coeffs = coeffs
        self.var = var

    def tree_flatten(self):
        return (self.coeffs,), self.var

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(children[0], "x")

    def __call__(self, v):
        return jnp.polyval(jnp.asarray(self.coeffs)[::-1], v)


def make_polynomial(coeffs, var):
    return Polynomial(coeffs, var)
""",
    },
    {
        "function": "make_linear",
        "misconception": "make_linear should turn every leaf of the weights into an array",
        "visible_passes": "only other inputs than the visible tests' show it: On inputs drawn at random (weights holding dicts, lists, tuples, OrderedDicts, namedtuples, a registered node, None, and subclasses of list, tuple and dict, which are leaves) the leaves were not those of weights followed by those of bias, kept as given",
        "teaches": "Reread Custom nodes → Registering a class",
        "source": _LINEAR_REGISTERED
        + """

def make_linear(weights, bias):
    return LinearParams(jax.tree.map(jnp.asarray, weights), bias)
""",
    },
    {
        "function": "make_polynomial",
        "misconception": "store coeffs as a tuple, an immutable copy is safer",
        "visible_passes": "only other inputs than the visible tests' show it: A list of coefficients must stay a list, the very container given: __init__ only stores its arguments, without converting them (to a tuple, an array...)",
        "teaches": "Reread Custom nodes → Keep the constructor plain",
        "source": _POLYNOMIAL_CELL.format(
            init="self.coeffs = tuple(coeffs) if isinstance(coeffs, list) else coeffs",
            unflatten="cls(children[0], aux_data)",
        ),
    },
    {
        "function": "make_polynomial",
        "misconception": "what JAX hands tree_unflatten should be made an array again",
        "visible_passes": "only other inputs than the visible tests' show it: A Polynomial rebuilt by JAX, as jit, grad and jax.tree.map rebuild it, lost its var or its coefficients, or wrapped them: tree_unflatten must build the node back from the aux_data and the one child it is given, the first item of the children",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": _POLYNOMIAL_CELL.format(
            init="self.coeffs = coeffs", unflatten="cls(jnp.asarray(children[0]), aux_data)"
        ),
    },
    {
        "function": "eval_polynomial",
        "misconception": "the polynomial holds a static var, so the whole argument must be static",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": """
import functools


@functools.partial(jax.jit, static_argnames=("poly",))
def _eval_at_points(poly, points):
    return jax.vmap(poly)(points)


def eval_polynomial(coeffs, var, x):
    return _eval_at_points(Polynomial(coeffs, var), x)
""",
    },
    {
        "function": "eval_polynomial",
        "misconception": "jit should see the coefficients and the points, and build the polynomial inside",
        "teaches": "Reread Custom nodes → A Polynomial with a static var",
        "source": """
@jax.jit
def _eval_at_points(coeffs, points):
    return jax.vmap(lambda v: Polynomial(coeffs, "x")(v))(points)


def eval_polynomial(coeffs, var, x):
    return _eval_at_points(jnp.asarray(coeffs), jnp.asarray(x))
""",
    },
    {
        "function": "make_train_state",
        "misconception": "register_pytree_node with my own flatten is as good as register_dataclass",
        "teaches": "Reread Custom nodes → register_dataclass",
        "source": _TRAIN_STATE_CELL.format(
            register="""    jax.tree_util.register_pytree_node(
        TrainState,
        lambda state: ((state.params, state.step), (state.name,)),
        lambda aux_data, children: TrainState(*children, *aux_data),
    )"""
        ),
    },
    {
        "function": "make_train_state",
        "misconception": "a label is no part of the tree, so drop it",
        "teaches": "Reread Custom nodes → register_dataclass",
        "source": _TRAIN_STATE_CELL.format(
            register="""    jax.tree_util.register_dataclass(
        TrainState, data_fields=["params", "step"], meta_fields=[], drop_fields=["name"]
    )"""
        ),
    },
]
