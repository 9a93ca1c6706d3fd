"""Wrong-but-plausible versions of the Trees across devices exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``. Most cases
fill a template below, the reference solution with its parts left open: a case writes
only the part that holds its mistake.
"""

CHAPTER = "Reread Trees across devices"
MESH = f"{CHAPTER} → A mesh names the devices' axes"
SPECS = f"{CHAPTER} → A PartitionSpec says which axis splits which dimension"
PREFIX = f"{CHAPTER} → A tree of specs is a prefix of the parameter tree"
CREATE = f"{CHAPTER} → Creating parameters in their layout"
SHARD_MAP = f"{CHAPTER} → shard_map with spec trees"
INSIDE_JIT = f"{CHAPTER} → shard_map inside jit"
RULES = f"{CHAPTER} → Spec trees from key-path rules"
NONE_SECTION = f"{CHAPTER} → None is not replicated"

# The spec of one leaf as specs_from_rules and sharded_init write it, with the leaf's
# name and the choice among the rules left to each case. A choice is written with
# {applies}, the test that a rule applies, and {rules}, what it goes through.
_SPEC_FOR = """
    def spec_for(path, leaf):
        name = {name}
{choose}
"""
_NAME = 'jax.tree_util.keystr(path, simple=True, separator="/")'
_APPLIES = "re.search(pattern, name) and len(spec) <= len(leaf.shape)"
_FIRST = """        for pattern, spec in {rules}:
            if {applies}:
                return spec
        return P()"""
_LAST = """        found = P()
        for pattern, spec in {rules}:
            if {applies}:
                found = spec
        return found"""
_FIRST_OR_NONE = _FIRST.replace("return P()", "return None")
# The first rule whose pattern matches ends the search, whether its spec fits or not.
_FIRST_MATCH = """        for pattern, spec in rules:
            if re.search(pattern, name):
                return spec if len(spec) <= len(leaf.shape) else P()
        return P()"""
_MATCH = "re.match(pattern, name) and len(spec) <= len(leaf.shape)"
# A spec's length counted in mesh axes: a tuple entry counts once per axis in it.
_AXES_LENGTH = "re.search(pattern, name) and sum(len(e) if isinstance(e, tuple) else 1 for e in spec) <= len(leaf.shape)"


def _spec_for(
    name: str = _NAME, applies: str = _APPLIES, choose: str = _FIRST, rules: str = "rules"
) -> str:
    return _SPEC_FOR.format(name=name, choose=choose.format(applies=applies, rules=rules))


# specs_from_rules as the reference writes it, with the leaf's spec (``_spec_for``'s
# fields) and the map's is_leaf left to each case.
_RULES_CELL = """
def specs_from_rules(abstract, rules):{spec_for}
    return jax.tree_util.tree_map_with_path(spec_for, abstract{is_leaf})
"""


def _rules(is_leaf: str = "", **spec_for: str) -> str:
    return _RULES_CELL.format(spec_for=_spec_for(**spec_for), is_leaf=is_leaf)


# check_specs_fit as the reference writes it, with the reasons' tests in an order each
# case gives (the mistake is in the test of one spec against one shape), or with what
# is a shape, what is a leaf of the specs or the key of a problem changed.
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
        for path, shape in jax.tree_util.tree_leaves_with_path(subtree, is_leaf=lambda x: {is_shape}):
            problem = misfit(spec, shape, mesh_shape)
            if problem is not None:
                problems[jax.tree_util.keystr({key})] = problem

    jax.tree_util.tree_map_with_path(visit, specs, shapes{spec_is_leaf})
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


def _fit(
    *reasons: str,
    is_shape: str = "isinstance(x, tuple)",
    spec_is_leaf: str = ", is_leaf=lambda x: x is None",
    key: str = "spec_path + path",
) -> str:
    return _FIT_CELL.format(
        reasons="\n".join(reasons), is_shape=is_shape, spec_is_leaf=spec_is_leaf, key=key
    )


# sharded_init as the reference writes it, with the mesh, the key, the leaf's spec
# (``_spec_for``'s fields), the tree whose shapes the specs follow and the making of the
# parameters from the shardings left to each case.
_INIT_CELL = """
def sharded_init(widths, rules, seed):
    mesh = {mesh}
    init = functools.partial(init_params, widths=tuple(widths))
    key = {key}
{spec_for}
    specs = jax.tree_util.tree_map_with_path(spec_for, {abstract})
    shardings = jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs)
    return {made}
"""
_MAKE_MESH = 'jax.make_mesh((4, 2), ("data", "model"))'
# The mesh older tutorials build, with Auto axes.
_OLD_MESH = 'jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))'


def _init(
    mesh: str = _MAKE_MESH,
    key: str = "jax.random.key(seed)",
    abstract: str = "jax.eval_shape(init, key)",
    made: str = "jax.jit(init, out_shardings=shardings)(key)",
    **spec_for: str,
) -> str:
    return _INIT_CELL.format(
        mesh=mesh, key=key, spec_for=_spec_for(**spec_for), abstract=abstract, made=made
    )


# masked_data_parallel_grad as the reference writes it, with the jit, the arguments'
# layout, the loss each device differentiates, the gradient's combination and the axis
# left to each case.
_MASKED_CELL = """
{jit}
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
{lay_out}
    def block_grad(params, batch):
        def block_loss(p):
            error = jnp.sum((batch["x"] @ p["w"] + p["b"] - batch["y"]) ** 2, axis=-1)
            return {loss}

        return {grad}

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("{axis}")), out_specs=P(){extra})(params, batch)
"""
_WHOLE_MEAN = 'jax.lax.psum(jnp.sum(batch["mask"] * error), "data") / jax.lax.psum(jnp.sum(batch["mask"]), "data")'
# The arguments laid out inside the jit, with {axis} splitting the batch.
_RESHARD = """    params = jax.sharding.reshard(params, NamedSharding(mesh, P()))
    batch = jax.sharding.reshard(batch, NamedSharding(mesh, P("{axis}")))
"""


def _masked(
    loss: str = _WHOLE_MEAN,
    grad: str = "jax.grad(block_loss)(params)",
    axis: str = "data",
    extra: str = "",
    jit: str = "@jax.jit",
    lay_out: str = _RESHARD,
) -> str:
    return _MASKED_CELL.format(
        jit=jit,
        lay_out=lay_out.format(axis=axis),
        loss=loss,
        grad=grad,
        axis=axis,
        extra=extra,
    )


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

# An eager masked_data_parallel_grad around that block, which lays the arguments out
# before calling it, with the call (of the block, the mesh and the specs) left to each case.
_EAGER_CELL = """

def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("data"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))
    return {call}(params, batch)
"""


def _eager(call: str) -> str:
    return _BLOCK + _EAGER_CELL.format(call=call)


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
        "source": _rules(choose=_LAST),
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
        "source": _rules(choose=_FIRST_MATCH),
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
        "source": _rules(applies=_MATCH),
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
        "source": _fit(_DUPLICATE, _AXIS, _RANK, _DIVIDE, spec_is_leaf=""),
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
        "source": _fit(_DUPLICATE, _AXIS, _RANK, _DIVIDE, key="spec_path"),
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
"""
        + _spec_for()
        + """
    specs = jax.tree_util.tree_map_with_path(spec_for, params)
    return jax.device_put(params, jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))
""",
    },
    {
        "function": "sharded_init",
        "misconception": "a mesh built with Mesh(...) is the mesh make_mesh makes",
        "teaches": MESH,
        "source": _init(mesh=_OLD_MESH),
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
        "source": _init(applies="re.search(pattern, name)"),
    },
    {
        "function": "sharded_init",
        "misconception": "a layout given inside the initialiser is the same as out_shardings",
        "teaches": CREATE,
        "source": """
def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
"""
        + _spec_for()
        + """
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
        "source": _eager(
            "jax.shard_map(jax.jit(_block_grad), mesh=mesh, in_specs=specs, out_specs=P())"
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "a jit around the shard_map inside an eager function is one program",
        "teaches": INSIDE_JIT,
        "source": _eager(
            "jax.jit(jax.shard_map(_block_grad, mesh=mesh, in_specs=specs, out_specs=P()))"
        ),
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


# Written from the chapter and the exercise notebook alone, without the tests.
CASES += [
    {
        "function": "specs_from_rules",
        "misconception": "Tries every rule and keeps the last one that applies, so later (more general) rules overwrite earlier ones.",
        "teaches": RULES,
        "source": _rules(choose=_LAST),
    },
    {
        "function": "specs_from_rules",
        "misconception": "A None entry splits nothing, so only the named entries of a spec are counted against the leaf's rank.",
        "visible_passes": "only other inputs than the visible tests show it: the spec has no more entries than the leaf has dimensions: a matrix's spec is passed over for a bias or a scalar",
        "teaches": RULES,
        "source": _rules(
            applies="re.search(pattern, name) and len([e for e in spec if e is not None]) <= len(leaf.shape)"
        ),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Counts a spec's length in mesh axes, so a tuple entry ('data', 'model') counts as two entries.",
        "visible_passes": "only other inputs than the visible tests show it: the spec has no more entries than the leaf has dimensions",
        "teaches": RULES,
        "source": _rules(applies=_AXES_LENGTH),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Carries over the chapter's scalar trap: makes an empty tuple a leaf so that it 'gets a spec', which turns empty tuples into P().",
        "visible_passes": "only other inputs than the visible tests show it: it may hold `None`s and empty containers, which stay as they are in the result.",
        "teaches": RULES,
        "source": _rules(
            applies='re.search(pattern, name) and len(spec) <= len(getattr(leaf, "shape", ()))',
            is_leaf=", is_leaf=lambda x: x == ()",
        ),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Builds the '/' name by hand from the path's keys, with str() for anything that is not a dict key or an index, so a namedtuple field becomes '.attn'.",
        "teaches": RULES,
        "source": _rules(
            name='"/".join(str(k.key) if isinstance(k, jax.tree_util.DictKey) else str(k.idx) if isinstance(k, jax.tree_util.SequenceKey) else str(k) for k in path)'
        ),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Names a leaf by its dict keys and attribute names only, like a framework's parameter name, leaving out list and tuple indices.",
        "teaches": RULES,
        "source": _rules(
            name='"/".join(str(k.key) if isinstance(k, jax.tree_util.DictKey) else k.name for k in path if isinstance(k, (jax.tree_util.DictKey, jax.tree_util.GetAttrKey)))'
        ),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Turns the rules into a dict pattern -> spec; a pattern given twice keeps only its last spec, so the first rule with that pattern is lost.",
        "visible_passes": "only other inputs than the visible tests show it: `rules` is a list of `(pattern, spec)` pairs. ... the spec of the first rule that applies to it",
        "teaches": RULES,
        "source": _rules(rules="dict(rules).items()"),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Stops at the first rule whose pattern matches; if its spec is too long for the leaf, gives P() instead of trying the next rules.",
        "teaches": SPECS,
        "source": _rules(choose=_FIRST_MATCH),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Follows the chapter's None lesson ('say replicated with P()') and hands the Nones to the function with is_leaf, so they become P().",
        "teaches": RULES,
        "source": _rules(
            choose="        if leaf is None:\n            return P()\n" + _FIRST,
            is_leaf=", is_leaf=lambda x: x is None",
        ),
    },
    {
        "function": "specs_from_rules",
        "misconception": "Uses re.match (anchored at the start of the name) instead of re.search.",
        "teaches": RULES,
        "source": _rules(applies=_MATCH),
    },
    {
        "function": "check_specs_fit",
        "misconception": "Looks for a repeated axis across entries only: each entry's names are compared with the names of the entries before it, never with each other inside one tuple.",
        "teaches": SPECS,
        "source": _fit(
            """    seen = set()
    for group in groups:
        if any(name in seen for name in group):
            return "duplicate"
        seen.update(group)""",
            _AXIS,
            _RANK,
            _DIVIDE,
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "A split dimension is spread over all the devices, so it must be a multiple of the mesh's number of devices.",
        "teaches": SPECS,
        "source": _fit(
            _DUPLICATE,
            _AXIS,
            _RANK,
            """    if any(e is not None and size % math.prod(mesh_shape.values()) for e, size in zip(spec, shape)):
        return "divide\"""",
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "Recognises a shape as a non-empty tuple of ints, so the scalar shape () is an empty node and is never checked.",
        "visible_passes": "only other inputs than the visible tests show it: `shapes` is a tree of dicts and lists whose leaves are shapes, tuples of ints (`()` included).",
        "teaches": PREFIX,
        "source": _fit(
            _DUPLICATE,
            _AXIS,
            _RANK,
            _DIVIDE,
            is_shape="isinstance(x, tuple) and len(x) > 0 and all(isinstance(d, int) for d in x)",
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "Collects every entry of the spec, None included, and calls any value seen twice a duplicate, so two unsplit dimensions look like a repeated axis.",
        "visible_passes": 'only other inputs than the visible tests show it: "duplicate": one mesh axis is named more than once in the spec, in two entries or twice in one tuple entry;',
        "teaches": SPECS,
        "source": _fit(
            """    entries = [name for e in spec for name in (e if isinstance(e, tuple) else [e])]
    if len(entries) != len(set(entries)):
        return "duplicate\"""",
            _AXIS,
            _RANK,
            _DIVIDE,
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "Checks for an unknown axis only on entries that are a single name; the names inside a tuple entry are only used to multiply sizes.",
        "visible_passes": 'only other inputs than the visible tests show it: "axis": an entry, or a name in a tuple entry, names an axis the mesh does not have;',
        "teaches": MESH,
        "source": _fit(
            _DUPLICATE,
            """    if any(isinstance(e, str) and e not in mesh_shape for e in spec):
        return "axis\"""",
            _RANK,
            _DIVIDE,
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "Trailing None entries split nothing, so they are dropped before the rank check: P('data', None) is taken to be P('data').",
        "visible_passes": 'only other inputs than the visible tests show it: "rank": the spec has more entries than the shape has dimensions (a `None` entry counts);',
        "teaches": SPECS,
        "source": _fit(
            _DUPLICATE,
            _AXIS,
            """    entries = list(spec)
    while entries and entries[-1] is None:
        entries.pop()
    if len(entries) > len(shape):
        return "rank\"""",
            _DIVIDE,
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "After the duplicate check, walks the entries once, checking each entry's axis and then whether it is past the last dimension, so a spec that is too long reports 'rank' before an unknown axis in a later entry.",
        "visible_passes": 'only other inputs than the visible tests show it: the first of these four reasons, in this order, that holds for the spec as a whole ... a spec that names an unknown axis is `"axis"` even on a shape of lower rank.',
        "teaches": MESH,
        "source": _fit(
            _DUPLICATE,
            """    for i, group in enumerate(groups):
        if any(name not in mesh_shape for name in group):
            return "axis"
        if i >= len(shape):
            return "rank\"""",
            _DIVIDE,
        ),
    },
    {
        "function": "check_specs_fit",
        "misconception": "Checks an unknown axis before a repeated one (an axis the mesh lacks seems the worse error).",
        "teaches": SPECS,
        "source": _fit(_AXIS, _DUPLICATE, _RANK, _DIVIDE),
    },
    {
        "function": "check_specs_fit",
        "misconception": "Splits a tuple entry's dimension by each of its axes in turn instead of by their product.",
        "teaches": SPECS,
        "source": _fit(
            _DUPLICATE,
            _AXIS,
            _RANK,
            """    if any(any(size % mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide\"""",
        ),
    },
    {
        "function": "sharded_init",
        "misconception": "A leaf that no rule applies to gets None in out_shardings ('no sharding given'), read as replicated, instead of P().",
        "visible_passes": 'only other inputs than the visible tests show it: each leaf\'s spec is the first rule that applies to its "/" name (as in ``specs_from_rules``), else ``P()``.',
        "teaches": NONE_SECTION,
        "source": _init(choose=_FIRST_OR_NONE),
    },
    {
        "function": "sharded_init",
        "misconception": "Gets the structure and shapes by running init_params once for real, then uses them for the out_shardings of the jitted initialiser.",
        "teaches": CREATE,
        "source": _init(abstract="init(key)"),
    },
    {
        "function": "sharded_init",
        "misconception": "Creates the parameters replicated on the mesh with jit (out_shardings=P() for all), then lays each leaf out with jax.sharding.reshard, which avoids device_put.",
        "teaches": CREATE,
        "source": """
def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    init = functools.partial(init_params, widths=widths)
    params = jax.jit(init, out_shardings=NamedSharding(mesh, P()))(jax.random.key(seed))
"""
        + _spec_for(choose=_FIRST_OR_NONE)
        + """
    specs = jax.tree_util.tree_map_with_path(spec_for, params)
    return jax.tree.map(lambda leaf, spec: leaf if spec is None else jax.sharding.reshard(leaf, NamedSharding(mesh, spec)), params, specs)
""",
    },
    {
        "function": "sharded_init",
        "misconception": "Counts a rule's spec length in mesh axes, so a tuple entry ('data', 'model') counts as two entries and is passed over for a vector.",
        "visible_passes": "only other inputs than the visible tests show it: the first rule whose pattern `re.search` finds in the leaf's `/` name and whose spec is no longer than the leaf's rank",
        "teaches": RULES,
        "source": _init(applies=_AXES_LENGTH),
    },
    {
        "function": "sharded_init",
        "misconception": "Gets the shapes from a first jitted call without out_shardings (on one device), then jits again with out_shardings.",
        "teaches": CREATE,
        "source": _init(abstract="jax.jit(init)(key)"),
    },
    {
        "function": "sharded_init",
        "misconception": "Makes the mesh with jax.sharding.Mesh over the devices, as older tutorials do (Auto axes).",
        "teaches": MESH,
        "source": _init(mesh=_OLD_MESH),
    },
    {
        "function": "sharded_init",
        "misconception": "Keeps the last rule that applies, so a general rule written after a specific one wins.",
        "teaches": RULES,
        "source": _init(choose=_LAST),
    },
    {
        "function": "sharded_init",
        "misconception": "Initialises with jit on one device, then lays the tree out with jax.device_put and the rules' shardings.",
        "teaches": CREATE,
        "source": _init(made="jax.device_put(jax.jit(init)(key), shardings)"),
    },
    {
        "function": "sharded_init",
        "misconception": "Lists the mesh axes 'model' first, make_mesh((2, 4), ('model', 'data')), thinking only each axis's name and size matter.",
        "teaches": MESH,
        "source": _init(mesh='jax.make_mesh((2, 4), ("model", "data"))'),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Averages the loss over the devices as the chapter does: pmean of each block's masked_loss, i.e. the mean of the blocks' means.",
        "teaches": SHARD_MAP,
        "source": _masked('jax.lax.pmean(masked_loss(p, batch), "data")'),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Old-tutorial style: each block's gradient of masked_loss, then pmean of the gradients over 'data' (forgetting that check_vma already sums it).",
        "teaches": SHARD_MAP,
        "source": _masked(grad='jax.lax.pmean(jax.grad(masked_loss)(params, batch), "data")'),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Sums the masked errors over 'data' but divides by the whole batch's number of examples, padding included.",
        "teaches": SHARD_MAP,
        "source": _masked(
            'jax.lax.psum(jnp.sum(batch["mask"] * error), "data") / jax.lax.psum(batch["mask"].shape[0], "data")'
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Weights each block's mean by its count, and guards a block that counts none with jnp.where (the untaken 0/0 branch still poisons the gradient).",
        "teaches": SHARD_MAP,
        "source": _masked(
            'jax.lax.psum(jnp.where(jnp.sum(batch["mask"]) > 0, masked_loss(p, batch), 0.0) * jnp.sum(batch["mask"]), "data") / jax.lax.psum(jnp.sum(batch["mask"]), "data")'
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Gives jax.jit in_shardings for the arguments instead of laying them out inside the function with reshard.",
        "teaches": SHARD_MAP,
        "source": _masked(
            jit='_MESH = jax.make_mesh((4, 2), ("data", "model"))\n\n\n@functools.partial(jax.jit, in_shardings=(NamedSharding(_MESH, P()), NamedSharding(_MESH, P("data"))))',
            lay_out="",
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Donates the batch to the jitted step to save memory (the chapter's donation), since the batch is not needed afterwards.",
        "teaches": INSIDE_JIT,
        "source": _masked(jit="@functools.partial(jax.jit, donate_argnums=1)"),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Lays the traced arguments out with jax.device_put inside jit instead of jax.sharding.reshard.",
        "teaches": INSIDE_JIT,
        "source": _masked(lay_out=_RESHARD.replace("jax.sharding.reshard", "jax.device_put")),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Counts the examples with pmean instead of psum (mean of the sums over mean of the counts, but only the count gets pmean).",
        "teaches": SHARD_MAP,
        "source": _masked(
            'jax.lax.psum(jnp.sum(batch["mask"] * error), "data") / jax.lax.pmean(jnp.sum(batch["mask"]), "data")'
        ),
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "Lays out only the batch with reshard; the parameters are to be replicated anyway, so they are left as they come.",
        "teaches": INSIDE_JIT,
        "source": _masked(lay_out=_RESHARD.splitlines(keepends=True)[1]),
    },
]
