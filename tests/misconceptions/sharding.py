"""Wrong-but-plausible versions of the Trees across devices exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CHAPTER = "Reread Trees across devices"
MESH = f"{CHAPTER} → A mesh names the devices' axes"
SPECS = f"{CHAPTER} → A PartitionSpec says which axis splits which dimension"
PREFIX = f"{CHAPTER} → A tree of specs is a prefix of the parameter tree"
CREATE = f"{CHAPTER} → Creating parameters in their layout"
SHARD_MAP = f"{CHAPTER} → shard_map with spec trees"
INSIDE_JIT = f"{CHAPTER} → shard_map inside jit"
RULES = f"{CHAPTER} → Spec trees from key-path rules"

# specs_from_rules as the reference writes it, with the leaf's name, the test that a rule
# applies and the map's is_leaf left to each case.
_RULES_CELL = """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = {name}
        for pattern, spec in rules:
            if {applies}:
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract{is_leaf})
"""
_NAME = 'jax.tree_util.keystr(path, simple=True, separator="/")'
_APPLIES = "re.search(pattern, name) and len(spec) <= len(leaf.shape)"


def _rules(name: str = _NAME, applies: str = _APPLIES, is_leaf: str = "") -> str:
    return _RULES_CELL.format(name=name, applies=applies, is_leaf=is_leaf)


# check_specs_fit as the reference writes it, with the reasons' tests in an order each
# case gives: the mistake is in the test of one spec against one shape.
_FIT_CELL = """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
{reasons}
    return None


def check_specs_fit(specs, shapes, mesh_shape):
    problems = {{}}

    def visit(spec_path, spec, subtree):
        if spec is None:
            return
        for path, shape in jax.tree_util.tree_leaves_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple)):
            problem = misfit(spec, shape, mesh_shape)
            if problem is not None:
                problems[jax.tree_util.keystr(spec_path + path)] = problem

    jax.tree_util.tree_map_with_path(visit, specs, shapes, is_leaf=lambda x: x is None)
    return problems
"""
_DUPLICATE = """    if len(names) != len(set(names)):
        return "duplicate\""""
_AXIS = """    if any(name not in mesh_shape for name in names):
        return "axis\""""
_RANK = """    if len(spec) > len(shape):
        return "rank\""""
_DIVIDE = """    if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide\""""


def _fit(*reasons: str) -> str:
    return _FIT_CELL.format(reasons="\n".join(reasons))


# sharded_init as the reference writes it, with the mesh, the key and the layout's
# application left to each case.
_INIT_CELL = """
def sharded_init(widths, rules, seed):
    mesh = {mesh}
    init = functools.partial(init_params, widths=tuple(widths))
    key = {key}

    def spec_for(path, leaf):
        name = {name}
        return next((s for p, s in rules if {applies}), P())

    specs = jax.tree_util.tree_map_with_path(spec_for, jax.eval_shape(init, key))
    return jax.jit(init, out_shardings=jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))(key)
"""
_MAKE_MESH = 'jax.make_mesh((4, 2), ("data", "model"))'
_INIT_APPLIES = "re.search(p, name) and len(s) <= leaf.ndim"


def _init(**changed: str) -> str:
    fields = {
        "mesh": _MAKE_MESH,
        "key": "jax.random.key(seed)",
        "name": _NAME,
        "applies": _INIT_APPLIES,
    }
    return _INIT_CELL.format(**(fields | changed))


# masked_data_parallel_grad as the reference writes it, with the loss each device
# differentiates, the gradient's combination and the axis left to each case.
_MASKED_CELL = """
@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = jax.sharding.reshard(params, NamedSharding(mesh, P()))
    batch = jax.sharding.reshard(batch, NamedSharding(mesh, P("{axis}")))

    def block_grad(params, batch):
        def block_loss(p):
            error = jnp.sum((batch["x"] @ p["w"] + p["b"] - batch["y"]) ** 2, axis=-1)
            return {loss}

        return {grad}

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("{axis}")), out_specs=P(){extra})(params, batch)
"""


def _masked(
    loss: str, grad: str = "jax.grad(block_loss)(params)", axis: str = "data", extra: str = ""
) -> str:
    return _MASKED_CELL.format(loss=loss, grad=grad, axis=axis, extra=extra)


# The reference's data-parallel block, for the cases of masked_data_parallel_grad whose
# mistake is where the jit or the mesh is.
_BLOCK = """
def _block_grad(params, batch):
    def whole_batch_loss(p):
        error = jnp.sum((batch["x"] @ p["w"] + p["b"] - batch["y"]) ** 2, axis=-1)
        total = jax.lax.psum(jnp.sum(batch["mask"] * error), "data")
        return total / jax.lax.psum(jnp.sum(batch["mask"]), "data")

    return jax.grad(whole_batch_loss)(params)
"""

# Places the blocks' eager shard_map cases lay out the arguments before calling it.
_PLACED = """
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("data"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))"""

CASES = [
    # specs_from_rules
    {
        "function": "specs_from_rules",
        "misconception": "a leaf's name is its keystr with brackets and quotes",
        "teaches": RULES,
        "source": _rules(name="jax.tree_util.keystr(path)"),
    },
    {
        "function": "specs_from_rules",
        "misconception": "the last rule that applies wins",
        "teaches": RULES,
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        found = P()
        for pattern, spec in rules:
            if re.search(pattern, jax.tree_util.keystr(path, simple=True, separator="/")) and len(spec) <= leaf.ndim:
                found = spec
        return found

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "the first rule whose pattern matches gives the spec, whatever its length",
        "teaches": SPECS,
        "source": _rules(applies="re.search(pattern, name)"),
    },
    {
        "function": "specs_from_rules",
        "misconception": "a matching rule whose spec is too long ends the search with P()",
        "teaches": SPECS,
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        for pattern, spec in rules:
            if re.search(pattern, name):
                return spec if len(spec) <= len(leaf.shape) else P()
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "a tree of shapes needs is_leaf for tuples, a tree of ShapeDtypeStructs too",
        "teaches": RULES,
        "source": _rules(
            applies='re.search(pattern, name) and len(spec) <= len(getattr(leaf, "shape", leaf))',
            is_leaf=", is_leaf=lambda x: isinstance(x, tuple)",
        ),
    },
    {
        "function": "specs_from_rules",
        "misconception": "re.match finds a pattern anywhere in the name",
        "teaches": RULES,
        "source": _rules(applies="re.match(pattern, name) and len(spec) <= len(leaf.shape)"),
    },
    {
        "function": "specs_from_rules",
        "misconception": "a leaf's name is its last key",
        "teaches": RULES,
        "source": _rules(name='jax.tree_util.keystr(path[-1:], simple=True, separator="/")'),
    },
    {
        "function": "specs_from_rules",
        "misconception": "a spec must be shorter than the leaf's rank",
        "teaches": SPECS,
        "source": _rules(applies="re.search(pattern, name) and len(spec) < len(leaf.shape)"),
    },
    {
        "function": "specs_from_rules",
        "misconception": "keys are joined with dots, as attribute access reads",
        "teaches": RULES,
        "source": _rules(name='jax.tree_util.keystr(path, simple=True, separator=".")'),
    },
    # check_specs_fit
    {
        "function": "check_specs_fit",
        "misconception": "the rank comes first, as the array is what the spec must fit",
        "teaches": SPECS,
        "source": _fit(_RANK, _DUPLICATE, _AXIS, _DIVIDE),
    },
    {
        "function": "check_specs_fit",
        "misconception": "an unknown axis is worse than a repeated one",
        "teaches": SPECS,
        "source": _fit(_AXIS, _DUPLICATE, _RANK, _DIVIDE),
    },
    {
        "function": "check_specs_fit",
        "misconception": "a spec that JAX refuses for a repeated axis fits when its dimensions divide",
        "teaches": SPECS,
        "source": _fit(_AXIS, _RANK, _DIVIDE),
    },
    {
        "function": "check_specs_fit",
        "misconception": "an axis is repeated only when two entries are equal",
        "teaches": SPECS,
        "source": _fit(
            """    single = [e for e in spec if isinstance(e, str)]
    in_tuples = {name for e in spec if isinstance(e, tuple) for name in e}
    if len(single) != len(set(single)) or any(name in in_tuples for name in single):
        return "duplicate\"""",
            _AXIS,
            _RANK,
            _DIVIDE,
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "two None entries repeat an axis",
        "visible_passes": "only other inputs than the visible tests' show it: a spec with two None entries",
        "teaches": SPECS,
        "source": _fit(
            """    entries = [e for e in spec if not isinstance(e, tuple)]
    if len(names) != len(set(names)) or len(entries) != len(set(entries)):
        return "duplicate\"""",
            _AXIS,
            _RANK,
            _DIVIDE,
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "None in a spec tree is an empty node to every API",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": _fit(_DUPLICATE, _AXIS, _RANK, _DIVIDE).replace(
            ", is_leaf=lambda x: x is None)", ")"
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "a dimension must divide by the number of devices",
        "teaches": SPECS,
        "source": _fit(
            _DUPLICATE,
            _AXIS,
            _RANK,
            """    if any(group and size % math.prod(mesh_shape.values()) for group, size in zip(groups, shape)):
        return "divide\"""",
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "only the first dimension has to divide",
        "teaches": SPECS,
        "source": _fit(
            _DUPLICATE,
            _AXIS,
            _RANK,
            """    if groups and shape and shape[0] % math.prod(mesh_shape[n] for n in groups[0]):
        return "divide\"""",
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "the reason is the first problem met entry by entry",
        "teaches": SPECS,
        "source": _fit(
            """    seen = set()
    for i, group in enumerate(groups):
        for name in group:
            if name in seen:
                return "duplicate"
            seen.add(name)
            if name not in mesh_shape:
                return "axis"
        if i >= len(shape):
            return "rank"
        if shape[i] % math.prod(mesh_shape[n] for n in group):
            return "divide\""""
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "a spec's path names the shapes under it",
        "teaches": PREFIX,
        "source": _fit(_DUPLICATE, _AXIS, _RANK, _DIVIDE).replace(
            "problems[jax.tree_util.keystr(spec_path + path)]",
            "problems[jax.tree_util.keystr(spec_path)]",
        ),
    },
    # sharded_init
    {
        "function": "sharded_init",
        "misconception": "parameters are made first and laid out afterwards",
        "teaches": CREATE,
        "source": """
def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = init_params(jax.random.key(seed), tuple(widths))

    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        return next((s for p, s in rules if re.search(p, name) and len(s) <= leaf.ndim), P())

    specs = jax.tree_util.tree_map_with_path(spec_for, params)
    return jax.device_put(params, jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))
""",
    },
    {
        "function": "sharded_init",
        "misconception": "a mesh built with Mesh(...) is the mesh make_mesh makes",
        "teaches": MESH,
        "source": _init(
            mesh='jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))'
        ),
    },
    {
        "function": "sharded_init",
        "misconception": "make_mesh's axis types do not matter to a layout",
        "teaches": MESH,
        "source": _init(
            mesh='jax.make_mesh((4, 2), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2)'
        ),
    },
    {
        "function": "sharded_init",
        "misconception": "the first rule whose pattern matches lays a leaf out, whatever its rank",
        "teaches": PREFIX,
        "source": _init(applies="re.search(p, name)"),
    },
    {
        "function": "sharded_init",
        "misconception": "a layout given inside the initialiser is the same as out_shardings",
        "teaches": CREATE,
        "source": """
def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))

    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        return next((s for p, s in rules if re.search(p, name) and len(s) <= leaf.ndim), P())

    @jax.jit
    def init(key):
        params = init_params(key, tuple(widths))
        specs = jax.tree_util.tree_map_with_path(spec_for, params)
        return jax.tree.map(lambda leaf, spec: jax.sharding.reshard(leaf, NamedSharding(mesh, spec)), params, specs)

    with jax.set_mesh(mesh):
        return init(jax.random.key(seed))
""",
    },
    {
        "function": "sharded_init",
        "misconception": "one replicated layout is a safe layout for any rules",
        "teaches": RULES,
        "source": """
def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    init = functools.partial(init_params, widths=tuple(widths))
    return jax.jit(init, out_shardings=NamedSharding(mesh, P()))(jax.random.key(seed))
""",
    },
    {
        "function": "sharded_init",
        "misconception": "the key of an initialiser can be any fixed key",
        "teaches": CREATE,
        "source": _init(key="jax.random.key(0)"),
    },
    {
        "function": "sharded_init",
        "misconception": "rules are matched against the bracketed keystr",
        "teaches": RULES,
        "source": _init(name="jax.tree_util.keystr(path)"),
    },
    # masked_data_parallel_grad
    {
        "function": "masked_data_parallel_grad",
        "misconception": "the whole batch's masked mean is the mean of the blocks' masked means",
        "teaches": SHARD_MAP,
        "source": _masked(
            'jax.lax.pmean(jnp.sum(batch["mask"] * error) / jnp.sum(batch["mask"]), "data")'
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "check_vma=False only turns off a check",
        "teaches": SHARD_MAP,
        "source": _masked(
            'jnp.sum(batch["mask"] * error) / jax.lax.psum(jnp.sum(batch["mask"]), "data")',
            extra=", check_vma=False",
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "each block divides by the examples it counts itself",
        "teaches": SHARD_MAP,
        "source": _masked(
            'jax.lax.psum(jnp.sum(batch["mask"] * error) / jnp.maximum(jnp.sum(batch["mask"]), 1.0), "data") / 4'
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "the padding examples count in the mean",
        "teaches": SHARD_MAP,
        "source": _masked('jax.lax.pmean(jnp.mean(batch["mask"] * error), "data")'),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "jit belongs on the block function, and shard_map may run eagerly around it",
        "teaches": INSIDE_JIT,
        "source": _BLOCK
        + """

def masked_data_parallel_grad(params, batch):"""
        + _PLACED
        + """
    return jax.shard_map(jax.jit(_block_grad), mesh=mesh, in_specs=specs, out_specs=P())(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "a jit around the shard_map inside an eager function is one program",
        "teaches": INSIDE_JIT,
        "source": _BLOCK
        + """

def masked_data_parallel_grad(params, batch):"""
        + _PLACED
        + """
    return jax.jit(jax.shard_map(_block_grad, mesh=mesh, in_specs=specs, out_specs=P()))(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "a mesh built with Mesh(...) is the mesh make_mesh makes",
        "teaches": SHARD_MAP,
        "source": _BLOCK
        + """

@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
    return jax.shard_map(_block_grad, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "any axis of the mesh may split the batch",
        "teaches": SHARD_MAP,
        "source": _masked(
            'jax.lax.psum(jnp.sum(batch["mask"] * error), "model") / jax.lax.psum(jnp.sum(batch["mask"]), "model")',
            axis="model",
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "the compiler's data parallelism is shard_map's",
        "teaches": SHARD_MAP,
        "source": """
@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    batch = jax.device_put(batch, NamedSharding(mesh, P("data")))
    params = jax.device_put(params, NamedSharding(mesh, P()))
    return jax.grad(masked_loss)(params, batch)
""",
    },
]
