"""Wrong-but-plausible versions of the Trees across devices exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CHAPTER = "Reread Trees across devices"
SPECS = f"{CHAPTER} → A PartitionSpec says which axis splits which dimension"
PREFIX = f"{CHAPTER} → A tree of specs is a prefix of the parameter tree"
NONE = f"{CHAPTER} → None is not replicated"
SHARD_MAP = f"{CHAPTER} → shard_map with spec trees"
RULES = f"{CHAPTER} → Spec trees from key-path rules"
MESH = f"{CHAPTER} → A mesh names the devices' axes"

CASES = [
    {
        "function": "specs_from_rules",
        "misconception": "the last rule that matches wins",
        "teaches": RULES,
        "source": """
def specs_from_rules(shapes, rules):
    def spec_for(path, shape):
        found = P()
        for pattern, spec in rules:
            if re.search(pattern, jax.tree_util.keystr(path)):
                found = spec
        return found

    return jax.tree_util.tree_map_with_path(spec_for, shapes, is_leaf=lambda x: isinstance(x, tuple))
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "a weight's name is its last key",
        "teaches": RULES,
        "source": """
def specs_from_rules(shapes, rules):
    def spec_for(path, shape):
        name = str(getattr(path[-1], "key", getattr(path[-1], "idx", "")))
        for pattern, spec in rules:
            if re.search(pattern, name):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, shapes, is_leaf=lambda x: isinstance(x, tuple))
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "a shape tuple is a leaf of the shapes tree",
        "teaches": RULES,
        "source": """
def specs_from_rules(shapes, rules):
    def spec_for(path, size):
        name = jax.tree_util.keystr(path)
        for pattern, spec in rules:
            if re.search(pattern, name):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, shapes)
""",
    },
    {
        "function": "specs_from_rules",
        "misconception": "re.match finds a pattern anywhere in the path",
        "teaches": RULES,
        "source": """
def specs_from_rules(shapes, rules):
    def spec_for(path, shape):
        name = jax.tree_util.keystr(path)
        for pattern, spec in rules:
            if re.match(pattern, name):
                return spec
        return P()

    return jax.tree_util.tree_map_with_path(spec_for, shapes, is_leaf=lambda x: isinstance(x, tuple))
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "a dimension must divide by the number of devices",
        "teaches": PREFIX,
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    devices = math.prod(mesh_shape.values())

    def misfit(spec, shape):
        if len(spec) > len(shape):
            return "rank"
        for entry, size in zip(spec, shape):
            names = () if entry is None else (entry,) if isinstance(entry, str) else entry
            if any(name not in mesh_shape for name in names):
                return "axis"
            if names and size % devices:
                return "divide"
        return None

    problems = {}

    def check(spec_path, spec, subtree):
        for path, shape in jax.tree_util.tree_flatten_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple))[0]:
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path + path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(check, specs, shapes)
    return problems
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "a tuple of axes splits a dimension by its first axis",
        "teaches": SPECS,
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    def misfit(spec, shape):
        if len(spec) > len(shape):
            return "rank"
        for entry, size in zip(spec, shape):
            if entry is None:
                continue
            name = entry if isinstance(entry, str) else entry[0]
            if name not in mesh_shape:
                return "axis"
            if size % mesh_shape[name]:
                return "divide"
        return None

    problems = {}

    def check(spec_path, spec, subtree):
        for path, shape in jax.tree_util.tree_flatten_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple))[0]:
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path + path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(check, specs, shapes)
    return problems
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "a spec longer than the shape is cut to its rank",
        "teaches": PREFIX,
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    def misfit(spec, shape):
        for entry, size in zip(spec, shape):
            names = () if entry is None else (entry,) if isinstance(entry, str) else entry
            if any(name not in mesh_shape for name in names):
                return "axis"
            if size % math.prod(mesh_shape[name] for name in names):
                return "divide"
        return None

    problems = {}

    def check(spec_path, spec, subtree):
        for path, shape in jax.tree_util.tree_flatten_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple))[0]:
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path + path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(check, specs, shapes)
    return problems
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "a spec's path names the shapes under it",
        "teaches": PREFIX,
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    def misfit(spec, shape):
        if len(spec) > len(shape):
            return "rank"
        for entry, size in zip(spec, shape):
            names = () if entry is None else (entry,) if isinstance(entry, str) else entry
            if any(name not in mesh_shape for name in names):
                return "axis"
            if size % math.prod(mesh_shape[name] for name in names):
                return "divide"
        return None

    problems = {}

    def check(spec_path, spec, subtree):
        for shape in jax.tree.leaves(subtree, is_leaf=lambda x: isinstance(x, tuple)):
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(check, specs, shapes)
    return problems
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "only the first dimension has to divide",
        "visible_passes": "only other inputs than the visible tests' show it: a dimension after the first that its entry's size does not divide",
        "teaches": SPECS,
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    def misfit(spec, shape):
        if len(spec) > len(shape):
            return "rank"
        entries = [() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in spec]
        if any(name not in mesh_shape for names in entries for name in names):
            return "axis"
        if entries and shape[0] % math.prod(mesh_shape[name] for name in entries[0]):
            return "divide"
        return None

    problems = {}

    def check(spec_path, spec, subtree):
        for path, shape in jax.tree_util.tree_flatten_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple))[0]:
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path + path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(check, specs, shapes)
    return problems
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "an unknown axis in a tuple of axes splits by 1",
        "visible_passes": "only other inputs than the visible tests' show it: a tuple entry that names an axis the mesh does not have",
        "teaches": MESH,
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    def misfit(spec, shape):
        if len(spec) > len(shape):
            return "rank"
        for entry, size in zip(spec, shape):
            if entry is None:
                continue
            if isinstance(entry, str):
                if entry not in mesh_shape:
                    return "axis"
                split = mesh_shape[entry]
            else:
                split = math.prod(mesh_shape.get(name, 1) for name in entry)
            if size % split:
                return "divide"
        return None

    problems = {}

    def check(spec_path, spec, subtree):
        for path, shape in jax.tree_util.tree_flatten_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple))[0]:
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path + path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(check, specs, shapes)
    return problems
""",
    },
    {
        "function": "check_specs_fit",
        "misconception": "the reason is the first problem met entry by entry",
        "visible_passes": "only other inputs than the visible tests' show it: a spec whose entry that does not divide comes before an unknown axis",
        "teaches": SPECS,
        "source": """
def check_specs_fit(specs, shapes, mesh_shape):
    def misfit(spec, shape):
        if len(spec) > len(shape):
            return "rank"
        for entry, size in zip(spec, shape):
            names = () if entry is None else (entry,) if isinstance(entry, str) else entry
            if any(name not in mesh_shape for name in names):
                return "axis"
            if size % math.prod(mesh_shape[name] for name in names):
                return "divide"
        return None

    problems = {}

    def check(spec_path, spec, subtree):
        for path, shape in jax.tree_util.tree_flatten_with_path(subtree, is_leaf=lambda x: isinstance(x, tuple))[0]:
            if misfit(spec, shape):
                problems[jax.tree_util.keystr(spec_path + path)] = misfit(spec, shape)

    jax.tree_util.tree_map_with_path(check, specs, shapes)
    return problems
""",
    },
    {
        "function": "shard_params",
        "misconception": "None in a shardings tree means replicated to device_put",
        "teaches": NONE,
        "source": """
def shard_params(params, specs):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    return jax.device_put(params, jax.tree.map(lambda spec: NamedSharding(mesh, spec or P()), specs))
""",
    },
    {
        "function": "shard_params",
        "misconception": "the mesh's shape can be given in either order",
        "teaches": SPECS,
        "source": """
def shard_params(params, specs):
    mesh = jax.make_mesh((2, 4), ("data", "model"))
    shardings = jax.tree.map(lambda spec: NamedSharding(mesh, P() if spec is None else spec), specs, is_leaf=lambda s: s is None)
    return jax.device_put(params, shardings)
""",
    },
    {
        "function": "shard_params",
        "misconception": "the parameters come first when mapping them with their specs",
        "teaches": "Reread Mapping → The first tree is a prefix",
        "source": """
def shard_params(params, specs):
    mesh = jax.make_mesh((4, 2), ("data", "model"))

    def place(leaf, spec):
        return jax.device_put(leaf, NamedSharding(mesh, P() if spec is None else spec))

    return jax.tree.map(place, params, specs)
""",
    },
    {
        "function": "shard_params",
        "misconception": "replicating every leaf is a safe layout for any specs",
        "teaches": PREFIX,
        "source": """
def shard_params(params, specs):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    return jax.device_put(params, NamedSharding(mesh, P()))
""",
    },
    {
        "function": "data_parallel_grad",
        "misconception": "the blocks' gradients are averaged with pmean",
        "teaches": SHARD_MAP,
        "source": """
def data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("data"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))

    def block_grad(params, batch):
        return jax.lax.pmean(jax.grad(loss)(params, batch), "data")

    return jax.shard_map(block_grad, mesh=mesh, in_specs=specs, out_specs=P())(params, batch)
""",
    },
    {
        "function": "data_parallel_grad",
        "misconception": "the blocks' losses are added with psum",
        "teaches": SHARD_MAP,
        "source": """
def data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("data"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))

    def block_grad(params, batch):
        return jax.grad(lambda p: jax.lax.psum(loss(p, batch), "data"))(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=specs, out_specs=P())(params, batch)
""",
    },
    {
        "function": "data_parallel_grad",
        "misconception": "the whole batch's gradient, replicated afterwards, is data-parallel",
        "teaches": SHARD_MAP,
        "source": """
def data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    return jax.device_put(jax.grad(loss)(params, batch), NamedSharding(mesh, P()))
""",
    },
    {
        "function": "data_parallel_grad",
        "misconception": "any axis of the mesh may split the batch",
        "teaches": SHARD_MAP,
        "source": """
def data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("model"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))

    def block_grad(params, batch):
        return jax.grad(lambda p: jax.lax.pmean(loss(p, batch), "model"))(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=specs, out_specs=P())(params, batch)
""",
    },
    {
        "function": "data_parallel_grad",
        "misconception": "shard_map splits the arguments as in_specs says",
        "teaches": SHARD_MAP,
        "source": """
def data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))

    def block_grad(params, batch):
        return jax.grad(lambda p: jax.lax.pmean(loss(p, batch), "data"))(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())(params, batch)
""",
    },
    {
        "function": "data_parallel_grad",
        "misconception": "shard_map compiles its function as jit does",
        "teaches": SHARD_MAP,
        "source": """
def data_parallel_grad(params, batch):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = (P(), P("data"))
    params, batch = jax.device_put((params, batch), jax.tree.map(lambda spec: NamedSharding(mesh, spec), specs))

    def block_grad(params, batch):
        return jax.grad(lambda p: jax.lax.pmean(loss(p, batch), "data"))(params)

    return jax.shard_map(block_grad, mesh=mesh, in_specs=specs, out_specs=P())(params, batch)
""",
    },
]
