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

# The reference's rule lookup, which several cases of sharded_init share unchanged.
_SPEC_FOR = """
def _spec_for(rules, path, leaf):
    name = jax.tree_util.keystr(path, simple=True, separator="/")
    for pattern, spec in rules:
        if re.search(pattern, name) and len(spec) <= len(leaf.shape):
            return spec
    return P()
"""

# The reference's walk over a prefix tree of specs, for the cases of check_specs_fit
# whose mistake is in the test of one spec against one shape (``misfit``).
_WALK = """

def check_specs_fit(specs, shapes, mesh_shape):
    problems = {}

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

CASES = [
    # specs_from_rules
    {
        "function": "specs_from_rules",
        "misconception": "a leaf's name is its keystr with brackets and quotes",
        "teaches": RULES,
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path)
        for pattern, spec in rules:
            if re.search(pattern, name) and len(spec) <= len(leaf.shape):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
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
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        for pattern, spec in rules:
            if re.search(pattern, name):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
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
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        for pattern, spec in rules:
            if re.search(pattern, name) and len(spec) <= len(getattr(leaf, "shape", leaf)):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract, is_leaf=lambda x: isinstance(x, tuple))
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "re.match finds a pattern anywhere in the name",
        "teaches": RULES,
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        for pattern, spec in rules:
            if re.match(pattern, name) and len(spec) <= len(leaf.shape):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "a leaf's name is its last key",
        "teaches": RULES,
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path[-1:], simple=True, separator="/")
        for pattern, spec in rules:
            if re.search(pattern, name) and len(spec) <= len(leaf.shape):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "a spec must be shorter than the leaf's rank",
        "teaches": SPECS,
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        for pattern, spec in rules:
            if re.search(pattern, name) and len(spec) < len(leaf.shape):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "keys are joined with dots, as attribute access reads",
        "teaches": RULES,
        "source": """
def specs_from_rules(abstract, rules):
    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator=".")
        for pattern, spec in rules:
            if re.search(pattern, name) and len(spec) <= len(leaf.shape):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, abstract)
""",
    },
    # check_specs_fit
    {
        "function": "check_specs_fit",
        "misconception": "the rank comes first, as the array is what the spec must fit",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
    if len(spec) > len(shape):
        return "rank"
    if len(names) != len(set(names)):
        return "duplicate"
    if any(name not in mesh_shape for name in names):
        return "axis"
    if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "an unknown axis is worse than a repeated one",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
    if any(name not in mesh_shape for name in names):
        return "axis"
    if len(names) != len(set(names)):
        return "duplicate"
    if len(spec) > len(shape):
        return "rank"
    if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "a spec that JAX refuses for a repeated axis fits when its dimensions divide",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    if any(name not in mesh_shape for group in groups for name in group):
        return "axis"
    if len(spec) > len(shape):
        return "rank"
    if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "an axis is repeated only when two entries are equal",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
    entries = [e for e in spec if e is not None]
    single = [e for e in entries if isinstance(e, str)]
    in_tuples = {name for e in entries if not isinstance(e, str) for name in e}
    if len(single) != len(set(single)) or any(name in in_tuples for name in single):
        return "duplicate"
    if any(name not in mesh_shape for name in names):
        return "axis"
    if len(spec) > len(shape):
        return "rank"
    if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "two None entries repeat an axis",
        "visible_passes": "only other inputs than the visible tests' show it: a spec with two None entries",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
    entries = [e for e in spec if not isinstance(e, tuple)]
    if len(names) != len(set(names)) or len(entries) != len(set(entries)):
        return "duplicate"
    if any(name not in mesh_shape for name in names):
        return "axis"
    if len(spec) > len(shape):
        return "rank"
    if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "None in a spec tree is an empty node to every API",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    def misfit(spec, shape):
        groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
        names = [name for group in groups for name in group]
        if len(names) != len(set(names)):
            return "duplicate"
        if any(name not in mesh_shape for name in names):
            return "axis"
        if len(spec) > len(shape):
            return "rank"
        if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
            return "divide"
        return None

    problems = {}

    def visit(spec_path, spec, subtree):
        for path, shape in jax.tree_util.tree_leaves_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple)):
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path + path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(visit, specs, shapes)
    return problems
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "a dimension must divide by the number of devices",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
    if len(names) != len(set(names)):
        return "duplicate"
    if any(name not in mesh_shape for name in names):
        return "axis"
    if len(spec) > len(shape):
        return "rank"
    devices = math.prod(mesh_shape.values())
    if any(group and size % devices for group, size in zip(groups, shape)):
        return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "only the first dimension has to divide",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
    if len(names) != len(set(names)):
        return "duplicate"
    if any(name not in mesh_shape for name in names):
        return "axis"
    if len(spec) > len(shape):
        return "rank"
    if groups and shape and shape[0] % math.prod(mesh_shape[n] for n in groups[0]):
        return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "the reason is the first problem met entry by entry",
        "teaches": SPECS,
        "source": """
def misfit(spec, shape, mesh_shape):
    seen = set()
    for i, entry in enumerate(spec):
        names = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
        for name in names:
            if name in seen:
                return "duplicate"
            seen.add(name)
            if name not in mesh_shape:
                return "axis"
        if i >= len(shape):
            return "rank"
        if shape[i] % math.prod(mesh_shape[n] for n in names):
            return "divide"
    return None
"""
        + _WALK,
    },
    {
        "function": "check_specs_fit",
        "misconception": "a spec's path names the shapes under it",
        "teaches": PREFIX,
        "source": """
def misfit(spec, shape, mesh_shape):
    groups = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
    names = [name for group in groups for name in group]
    if len(names) != len(set(names)):
        return "duplicate"
    if any(name not in mesh_shape for name in names):
        return "axis"
    if len(spec) > len(shape):
        return "rank"
    if any(size % math.prod(mesh_shape[n] for n in group) for group, size in zip(groups, shape)):
        return "divide"
    return None


def check_specs_fit(specs, shapes, mesh_shape):
    problems = {}

    def visit(spec_path, spec, subtree):
        if spec is None:
            return
        for shape in jax.tree.leaves(subtree, is_leaf=lambda x: isinstance(x, tuple)):
            if misfit(spec, shape, mesh_shape):
                problems[jax.tree_util.keystr(spec_path)] = misfit(spec, shape, mesh_shape)

    jax.tree_util.tree_map_with_path(visit, specs, shapes, is_leaf=lambda x: x is None)
    return problems
""",
    },
    # sharded_init
    {
        "function": "sharded_init",
        "misconception": "parameters are made first and laid out afterwards",
        "teaches": CREATE,
        "source": _SPEC_FOR
        + """

def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = init_params(jax.random.key(seed), tuple(widths))
    specs = jax.tree_util.tree_map_with_path(functools.partial(_spec_for, rules), params)
    return jax.device_put(params, jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))
""",
    },
    {
        "function": "sharded_init",
        "misconception": "a mesh built with Mesh(...) is the mesh make_mesh makes",
        "teaches": MESH,
        "source": _SPEC_FOR
        + """

def sharded_init(widths, rules, seed):
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
    init = functools.partial(init_params, widths=tuple(widths))
    key = jax.random.key(seed)
    specs = jax.tree_util.tree_map_with_path(functools.partial(_spec_for, rules), jax.eval_shape(init, key))
    return jax.jit(init, out_shardings=jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))(key)
""",
    },
    {
        "function": "sharded_init",
        "misconception": "make_mesh's axis types do not matter to a layout",
        "teaches": MESH,
        "source": _SPEC_FOR
        + """

def sharded_init(widths, rules, seed):
    auto = jax.sharding.AxisType.Auto
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(auto, auto))
    init = functools.partial(init_params, widths=tuple(widths))
    key = jax.random.key(seed)
    specs = jax.tree_util.tree_map_with_path(functools.partial(_spec_for, rules), jax.eval_shape(init, key))
    return jax.jit(init, out_shardings=jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))(key)
""",
    },
    {
        "function": "sharded_init",
        "misconception": "the first rule whose pattern matches lays a leaf out, whatever its rank",
        "teaches": PREFIX,
        "source": """
def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    init = functools.partial(init_params, widths=tuple(widths))
    key = jax.random.key(seed)

    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path, simple=True, separator="/")
        return next((spec for pattern, spec in rules if re.search(pattern, name)), P())

    specs = jax.tree_util.tree_map_with_path(spec_for, jax.eval_shape(init, key))
    return jax.jit(init, out_shardings=jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))(key)
""",
    },
    {
        "function": "sharded_init",
        "misconception": "a layout given inside the initialiser is the same as out_shardings",
        "teaches": CREATE,
        "source": _SPEC_FOR
        + """

def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    key = jax.random.key(seed)

    @jax.jit
    def init(key):
        params = init_params(key, tuple(widths))
        specs = jax.tree_util.tree_map_with_path(functools.partial(_spec_for, rules), params)
        return jax.tree.map(lambda leaf, spec: jax.sharding.reshard(leaf, NamedSharding(mesh, spec)), params, specs)

    with jax.set_mesh(mesh):
        return init(key)
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
        "source": _SPEC_FOR
        + """

def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    init = functools.partial(init_params, widths=tuple(widths))
    key = jax.random.key(0)
    specs = jax.tree_util.tree_map_with_path(functools.partial(_spec_for, rules), jax.eval_shape(init, key))
    return jax.jit(init, out_shardings=jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))(key)
""",
    },
    {
        "function": "sharded_init",
        "misconception": "rules are matched against the bracketed keystr",
        "teaches": RULES,
        "source": """
def sharded_init(widths, rules, seed):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    init = functools.partial(init_params, widths=tuple(widths))
    key = jax.random.key(seed)

    def spec_for(path, leaf):
        name = jax.tree_util.keystr(path)
        return next((s for p, s in rules if re.search(p, name) and len(s) <= leaf.ndim), P())

    specs = jax.tree_util.tree_map_with_path(spec_for, jax.eval_shape(init, key))
    return jax.jit(init, out_shardings=jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))(key)
""",
    },
    # masked_data_parallel_grad
    {
        "function": "masked_data_parallel_grad",
        "misconception": "the whole batch's masked mean is the mean of the blocks' masked means",
        "teaches": SHARD_MAP,
        "source": """
@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = jax.sharding.reshard(params, NamedSharding(mesh, P()))
    batch = jax.sharding.reshard(batch, NamedSharding(mesh, P("data")))

    def block_grad(params, batch):
        return jax.grad(lambda p: jax.lax.pmean(masked_loss(p, batch), "data"))(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "check_vma=False only turns off a check",
        "teaches": SHARD_MAP,
        "source": """
@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = jax.sharding.reshard(params, NamedSharding(mesh, P()))
    batch = jax.sharding.reshard(batch, NamedSharding(mesh, P("data")))

    def block_grad(params, batch):
        def share_of_the_loss(p):
            error = jnp.sum((batch["x"] @ p["w"] + p["b"] - batch["y"]) ** 2, axis=-1)
            return jnp.sum(batch["mask"] * error) / jax.lax.psum(jnp.sum(batch["mask"]), "data")

        return jax.grad(share_of_the_loss)(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("data")), out_specs=P(), check_vma=False)(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "each block divides by the examples it counts itself",
        "teaches": SHARD_MAP,
        "source": """
@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = jax.sharding.reshard(params, NamedSharding(mesh, P()))
    batch = jax.sharding.reshard(batch, NamedSharding(mesh, P("data")))

    def block_grad(params, batch):
        def whole(p):
            error = jnp.sum((batch["x"] @ p["w"] + p["b"] - batch["y"]) ** 2, axis=-1)
            count = jnp.maximum(jnp.sum(batch["mask"]), 1.0)
            return jax.lax.psum(jnp.sum(batch["mask"] * error) / count, "data") / 4

        return jax.grad(whole)(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "the padding examples count in the mean",
        "teaches": SHARD_MAP,
        "source": """
@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = jax.sharding.reshard(params, NamedSharding(mesh, P()))
    batch = jax.sharding.reshard(batch, NamedSharding(mesh, P("data")))

    def block_grad(params, batch):
        def whole(p):
            error = jnp.sum((batch["x"] @ p["w"] + p["b"] - batch["y"]) ** 2, axis=-1)
            return jax.lax.pmean(jnp.mean(batch["mask"] * error), "data")

        return jax.grad(whole)(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "jit belongs on the block function, and shard_map may run eagerly around it",
        "teaches": INSIDE_JIT,
        "source": _BLOCK
        + """

def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("data"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))
    return jax.shard_map(jax.jit(_block_grad), mesh=mesh, in_specs=specs, out_specs=P())(params, batch)
""",
    },
    {
        "function": "masked_data_parallel_grad",
        "misconception": "a jit around the shard_map inside an eager function is one program",
        "teaches": INSIDE_JIT,
        "source": _BLOCK
        + """

def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("data"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))
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
        "source": """
@jax.jit
def masked_data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = jax.sharding.reshard(params, NamedSharding(mesh, P()))
    batch = jax.sharding.reshard(batch, NamedSharding(mesh, P("model")))

    def block_grad(params, batch):
        def whole(p):
            error = jnp.sum((batch["x"] @ p["w"] + p["b"] - batch["y"]) ** 2, axis=-1)
            return jax.lax.psum(jnp.sum(batch["mask"] * error), "model") / jax.lax.psum(jnp.sum(batch["mask"]), "model")

        return jax.grad(whole)(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("model")), out_specs=P())(params, batch)
""",
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
