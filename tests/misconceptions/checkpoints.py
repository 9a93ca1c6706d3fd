"""Wrong-but-plausible versions of the Checkpoints exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

TEMPLATE = "Reread Checkpoints → Restoring into a template"
LEAF_ORDER = "Reread Checkpoints → Why not a list of leaves"
RENAMES = "Reread Checkpoints → Renamed and added fields"
DTYPES = "Reread Checkpoints → Dtypes on disk"
MIGRATION = "Reread Checkpoints → Migrating an old checkpoint"
KEYS = "Reread Checkpoints → PRNG keys in a checkpoint"

CASES = [
    {
        "function": "wrap_keys",
        "misconception": "uint32 data shaped like a key's is a key",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    out = {}
    for name, array in flat.items():
        array = np.asarray(array)
        if array.dtype == np.uint32 and array.shape[-1:] in ((2,), (4,)):
            impl = "threefry2x32" if array.shape[-1] == 2 else "rbg"
            out[name] = jax.random.wrap_key_data(array, impl=impl)
        else:
            out[name] = array
    return out
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "the data is the whole key; JAX's default implementation rebuilds it",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    out = dict(flat)
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name in flat and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            data = np.asarray(flat[name])
            if data.dtype != np.uint32 or data.shape[:-1] != leaf.shape:
                raise ValueError(f"bad key data at {name}")
            out[name] = jax.random.wrap_key_data(data)
    return out
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "a key's dtype is the dtype of jax.random.key(0)",
        "teaches": KEYS,
        "source": """
KEY_DTYPE = jax.random.key(0).dtype


def wrap_keys(flat, template):
    out = dict(flat)
    wrong = []
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name in flat and leaf.dtype == KEY_DTYPE:
            data = np.asarray(flat[name])
            if data.shape != jax.random.key_data(leaf).shape or data.dtype != np.uint32:
                wrong.append(name)
            else:
                out[name] = jax.random.wrap_key_data(data, impl=jax.random.key_impl(leaf))
    if wrong:
        raise ValueError(f"bad key data at {wrong}")
    return out
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "wrap_key_data checks the data against the template's key",
        "visible_passes": "only other inputs than the visible tests' show it: The ValueError must name every path whose key data does not fit, as keystr writes it",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    out = dict(flat)
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name in flat and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            try:
                out[name] = jax.random.wrap_key_data(flat[name], impl=jax.random.key_impl(leaf))
            except TypeError as error:
                raise ValueError(f"{name}: {error}") from None
    return out
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "the first bad key is enough to report",
        "visible_passes": "only other inputs than the visible tests' show it: The ValueError must name every path whose key data does not fit, as keystr writes it",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    out = dict(flat)
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name in flat and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            data, want = np.asarray(flat[name]), jax.random.key_data(leaf)
            if data.shape != want.shape or data.dtype != want.dtype:
                raise ValueError(f"key data that does not fit at {name}")
            out[name] = jax.random.wrap_key_data(data, impl=jax.random.key_impl(leaf))
    return out
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "every key of the template must be in the file, or it is an error here",
        "visible_passes": "only other inputs than the visible tests' show it: A key path the flat dict lacks is left out, without an error: restore is the one to report missing paths",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    out = dict(flat)
    wrong = []
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if not jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            continue
        data, want = np.asarray(flat[name]), jax.random.key_data(leaf)
        if data.shape != want.shape or data.dtype != want.dtype:
            wrong.append(name)
        else:
            out[name] = jax.random.wrap_key_data(data, impl=jax.random.key_impl(leaf))
    if wrong:
        raise ValueError(f"bad key data at {wrong}")
    return out
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "only the keys need returning; the rest is in the file anyway",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    out, wrong = {}, []
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name in flat and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            data, want = np.asarray(flat[name]), jax.random.key_data(leaf)
            if data.shape != want.shape or data.dtype != want.dtype:
                wrong.append(name)
            else:
                out[name] = jax.random.wrap_key_data(data, impl=jax.random.key_impl(leaf))
    if wrong:
        raise ValueError(f"bad key data at {wrong}")
    return out
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "everything read from a file goes to the device as a JAX array",
        "visible_passes": "only other inputs than the visible tests' show it: An entry whose template leaf is no key (or that the template lacks) must come back as it is, with its dtype, even when it is uint32 data shaped like a key's: the file cannot tell, only the template can",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    out = {name: jnp.asarray(array) for name, array in flat.items()}
    wrong = []
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name in flat and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            data, want = np.asarray(flat[name]), jax.random.key_data(leaf)
            if data.shape != want.shape or data.dtype != want.dtype:
                wrong.append(name)
            else:
                out[name] = jax.random.wrap_key_data(data, impl=jax.random.key_impl(leaf))
    if wrong:
        raise ValueError(f"bad key data at {wrong}")
    return out
""",
    },
    {
        "function": "check_compatible",
        "misconception": "the flat dict's entries come in the order of the template's leaves",
        "visible_passes": "only other inputs than the visible tests' show it: A flat dict with every path of the template, in another order and with other values, fits: match paths by name, not by position, whatever the containers, and whether the template's leaves are arrays or the ShapeDtypeStructs of jax.eval_shape (which have a shape and a dtype, and no values to convert)",
        "teaches": TEMPLATE,
        "source": """
def check_compatible(template, flat):
    pairs = [(keystr(path), leaf) for path, leaf in jax.tree.leaves_with_path(template)]
    wanted = {name for name, _ in pairs}
    problems = {name: "missing" for name in wanted if name not in flat}
    problems.update({name: "unexpected" for name in flat if name not in wanted})
    saved = [array for name, array in flat.items() if name in wanted]
    leaves = [(name, leaf) for name, leaf in pairs if name in flat]
    for (name, leaf), array in zip(leaves, saved):
        if np.shape(array) != np.shape(leaf):
            problems[name] = "shape"
        elif np.asarray(array).dtype != leaf.dtype:
            problems[name] = "dtype"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "only the template's paths need checking; extra entries are harmless",
        "teaches": RENAMES,
        "source": """
def check_compatible(template, flat):
    problems = {}
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name not in flat:
            problems[name] = "missing"
        elif np.shape(flat[name]) != np.shape(leaf):
            problems[name] = "shape"
        elif np.asarray(flat[name]).dtype != leaf.dtype:
            problems[name] = "dtype"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "a JAX array shows the dtype the file holds",
        "visible_passes": "only other inputs than the visible tests' show it: A flat dict whose arrays have the template's dtypes, int64 and float64 included, fits: compare the NumPy array's own dtype, before any conversion to a JAX array, which would narrow 64 bits to 32",
        "teaches": DTYPES,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {name: "unexpected" for name in flat if name not in wanted}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
            continue
        array = jnp.asarray(flat[name])
        if array.shape != np.shape(leaf):
            problems[name] = "shape"
        elif array.dtype != leaf.dtype:
            problems[name] = "dtype"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "matching shapes are enough; the dtype follows",
        "visible_passes": "only other inputs than the visible tests' show it: A path whose array has the right shape and another dtype must be reported as 'dtype', even when the two dtypes take as many bytes (int32 and float32): compare the NumPy array's dtype itself, before any conversion to a JAX array, which would make a float64 float32",
        "teaches": DTYPES,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {name: "unexpected" for name in flat if name not in wanted}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif np.shape(flat[name]) != np.shape(leaf):
            problems[name] = "shape"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "templates are nested dicts and lists, so a walk of my own names the paths",
        "visible_passes": "only other inputs than the visible tests' show it: A flat dict with every path of the template, in another order and with other values, fits: match paths by name, not by position, whatever the containers, and whether the template's leaves are arrays or the ShapeDtypeStructs of jax.eval_shape (which have a shape and a dtype, and no values to convert)",
        "teaches": TEMPLATE,
        "source": """
def _paths(tree, prefix=""):
    if tree is None:
        return {}
    if isinstance(tree, dict):
        items = [(f"[{key!r}]", child) for key, child in tree.items()]
    elif isinstance(tree, (list, tuple)):
        items = [(f"[{i}]", child) for i, child in enumerate(tree)]
    else:
        return {prefix: tree}
    out = {}
    for name, child in items:
        out.update(_paths(child, prefix + name))
    return out


def check_compatible(template, flat):
    wanted = _paths(template)
    problems = {name: "unexpected" for name in flat if name not in wanted}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif np.shape(flat[name]) != np.shape(leaf):
            problems[name] = "shape"
        elif np.asarray(flat[name]).dtype != np.asarray(leaf).dtype:
            problems[name] = "dtype"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "a wrong dtype is the first thing to report",
        "visible_passes": "only other inputs than the visible tests' show it: A path whose array has another shape than the template's leaf must be reported as 'shape', even when its dtype differs too: the shape is checked first, and the dtype only when the shapes agree",
        "teaches": TEMPLATE,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif np.asarray(flat[name]).dtype != leaf.dtype:
            problems[name] = "dtype"
        elif np.shape(flat[name]) != np.shape(leaf):
            problems[name] = "shape"
    for name in flat:
        if name not in wanted:
            problems[name] = "unexpected"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "an array with as many values fits, a reshape away",
        "visible_passes": "only other inputs than the visible tests' show it: An array with as many values as the template's leaf but another shape does not fit: compare the shapes themselves, not the sizes (a restore does not reshape)",
        "teaches": TEMPLATE,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif np.size(flat[name]) != int(np.prod(leaf.shape)):
            problems[name] = "shape"
        elif np.asarray(flat[name]).dtype != leaf.dtype:
            problems[name] = "dtype"
    for name in flat:
        if name not in wanted:
            problems[name] = "unexpected"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "dtypes of the same byte width read the same bits",
        "visible_passes": "only other inputs than the visible tests' show it: A path whose array has the right shape and another dtype must be reported as 'dtype', even when the two dtypes take as many bytes (int32 and float32): compare the NumPy array's dtype itself, before any conversion to a JAX array, which would make a float64 float32",
        "teaches": DTYPES,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif np.shape(flat[name]) != np.shape(leaf):
            problems[name] = "shape"
        elif np.asarray(flat[name]).dtype.itemsize != np.dtype(leaf.dtype).itemsize:
            problems[name] = "dtype"
    for name in flat:
        if name not in wanted:
            problems[name] = "unexpected"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "entries already matched can be taken off the flat dict",
        "teaches": TEMPLATE,
        "source": """
def check_compatible(template, flat):
    problems = {}
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        array = flat.pop(name, None)
        if array is None:
            problems[name] = "missing"
        elif np.shape(array) != np.shape(leaf):
            problems[name] = "shape"
        elif np.asarray(array).dtype != leaf.dtype:
            problems[name] = "dtype"
    problems.update({name: "unexpected" for name in flat})
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "the flat dict may be tidied while it is checked",
        "teaches": TEMPLATE,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {}
    for name in list(flat):
        if name not in wanted:
            problems[name] = "unexpected"
            del flat[name]
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif np.shape(flat[name]) != np.shape(leaf):
            problems[name] = "shape"
        elif np.asarray(flat[name]).dtype != leaf.dtype:
            problems[name] = "dtype"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "the template flattens to arrays as the checkpoint does",
        "visible_passes": "only other inputs than the visible tests' show it: A flat dict with every path of the template, in another order and with other values, fits: match paths by name, not by position, whatever the containers, and whether the template's leaves are arrays or the ShapeDtypeStructs of jax.eval_shape (which have a shape and a dtype, and no values to convert)",
        "teaches": TEMPLATE,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): np.asarray(leaf) for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif np.shape(flat[name]) != leaf.shape:
            problems[name] = "shape"
        elif np.asarray(flat[name]).dtype != leaf.dtype:
            problems[name] = "dtype"
    for name in flat:
        if name not in wanted:
            problems[name] = "unexpected"
    return problems
""",
    },
    {
        "function": "check_compatible",
        "misconception": "a transposed matrix has the same shape, in another order",
        "visible_passes": "only other inputs than the visible tests' show it: An array with as many values as the template's leaf but another shape does not fit: compare the shapes themselves, not the sizes (a restore does not reshape)",
        "teaches": TEMPLATE,
        "source": """
def check_compatible(template, flat):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    problems = {}
    for name, leaf in wanted.items():
        if name not in flat:
            problems[name] = "missing"
        elif sorted(np.shape(flat[name])) != sorted(leaf.shape):
            problems[name] = "shape"
        elif np.asarray(flat[name]).dtype != leaf.dtype:
            problems[name] = "dtype"
    for name in flat:
        if name not in wanted:
            problems[name] = "unexpected"
    return problems
""",
    },
    {
        "function": "restore",
        "misconception": "sorted paths come in the order of the leaves",
        "teaches": LEAF_ORDER,
        "source": """
def restore(flat, template):
    problems = check_compatible(template, flat)
    if problems:
        raise ValueError(f"the checkpoint does not fit the template: {problems}")
    treedef = jax.tree.structure(template)
    return jax.tree.unflatten(treedef, [flat[name] for name in sorted(flat)])
""",
    },
    {
        "function": "restore",
        "misconception": "the flat dict keeps the order the leaves were saved in",
        "teaches": LEAF_ORDER,
        "source": """
def restore(flat, template):
    problems = check_compatible(template, flat)
    if problems:
        raise ValueError(f"the checkpoint does not fit the template: {problems}")
    return jax.tree.unflatten(jax.tree.structure(template), list(flat.values()))
""",
    },
    {
        "function": "restore",
        "misconception": "looking each path up is check enough: a missing one raises anyway",
        "teaches": TEMPLATE,
        "source": """
def restore(flat, template):
    return jax.tree.map_with_path(lambda path, _: flat[keystr(path)], template)
""",
    },
    {
        "function": "restore",
        "misconception": "saying that the checkpoint does not fit is enough of an error",
        "visible_passes": "only other inputs than the visible tests' show it: restore's error must name the missing path and the unexpected one, as keystr writes them, so that a rename shows as both names at once",
        "teaches": RENAMES,
        "source": """
def restore(flat, template):
    if check_compatible(template, flat):
        raise ValueError("the checkpoint does not fit the template")
    return jax.tree.map_with_path(lambda path, _: flat[keystr(path)], template)
""",
    },
    {
        "function": "restore",
        "misconception": "arrays can be put on the device first and checked after",
        "teaches": DTYPES,
        "source": """
def restore(flat, template):
    flat = {name: jnp.asarray(array) for name, array in flat.items()}
    problems = check_compatible(template, flat)
    if problems:
        raise ValueError(f"the checkpoint does not fit the template: {problems}")
    return jax.tree.map_with_path(lambda path, _: flat[keystr(path)], template)
""",
    },
    {
        "function": "restore",
        "misconception": "only missing paths matter; entries the template lacks are harmless",
        "visible_passes": "only other inputs than the visible tests' show it: restore's error must name the missing path and the unexpected one, as keystr writes them, so that a rename shows as both names at once",
        "teaches": RENAMES,
        "source": """
def restore(flat, template):
    names = [keystr(path) for path, _ in jax.tree.leaves_with_path(template)]
    missing = [name for name in names if name not in flat]
    if missing:
        raise ValueError(f"the checkpoint lacks {missing}")
    return jax.tree.map_with_path(lambda path, _: flat[keystr(path)], template)
""",
    },
    {
        "function": "migrate",
        "misconception": "a new field starts from zeros",
        "teaches": MIGRATION,
        "source": """
def migrate(flat, renames, template):
    moved = {renames.get(name, name): array for name, array in flat.items()}
    for path, leaf in jax.tree.leaves_with_path(template):
        moved.setdefault(keystr(path), np.zeros_like(leaf))
    return restore(moved, template)
""",
    },
    {
        "function": "migrate",
        "misconception": "old paths the new model does not know can be dropped",
        "visible_passes": "only other inputs than the visible tests' show it: An old path that no rename covers and the template lacks must make migrate raise a ValueError that names it: dropping it would lose a parameter without a word",
        "teaches": RENAMES,
        "source": """
def migrate(flat, renames, template):
    moved = {renames.get(name, name): array for name, array in flat.items()}
    kept = {}
    for path, leaf in jax.tree.leaves_with_path(template):
        kept[keystr(path)] = moved.get(keystr(path), leaf)
    return restore(kept, template)
""",
    },
    {
        "function": "migrate",
        "misconception": "only the renamed fields need copying; the template has the rest",
        "visible_passes": "only other inputs than the visible tests' show it: Each old array must arrive at its new path (renamed) or at its old one (not renamed), looked up by name",
        "teaches": MIGRATION,
        "source": """
def migrate(flat, renames, template):
    moved = {renames[name]: array for name, array in flat.items() if name in renames}
    for path, leaf in jax.tree.leaves_with_path(template):
        moved.setdefault(keystr(path), leaf)
    return restore(moved, template)
""",
    },
    {
        "function": "migrate",
        "misconception": "a migration can fill the template directly, without restore's checks",
        "teaches": "Reread Checkpoints → Migrating an old checkpoint",
        "source": """
def migrate(flat, renames, template):
    moved = {renames.get(name, name): array for name, array in flat.items()}
    return jax.tree.map_with_path(lambda path, leaf: moved.get(keystr(path), leaf), template)
""",
    },
    {
        "function": "restore",
        "misconception": "jnp.asarray puts each restored array on the device with its dtype",
        "teaches": DTYPES,
        "source": """
def restore(flat, template):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    wrong = [
        name
        for name in wanted.keys() & flat.keys()
        if np.shape(flat[name]) != np.shape(wanted[name]) or np.asarray(flat[name]).dtype != wanted[name].dtype
    ]
    if wrong or wanted.keys() != flat.keys():
        raise ValueError(
            f"missing {sorted(wanted.keys() - flat.keys())}, unexpected {sorted(flat.keys() - wanted.keys())}, "
            f"wrong {sorted(wrong)}"
        )
    return jax.tree.map_with_path(lambda path, _: jnp.asarray(flat[keystr(path)]), template)
""",
    },
    {
        "function": "migrate",
        "misconception": "a rename that lands on a taken path simply replaces it",
        "visible_passes": "only other inputs than the visible tests' show it: Two old paths renamed to one new path must make migrate raise a ValueError that names the new path: keeping either array would lose the other without a word",
        "teaches": MIGRATION,
        "source": """
def migrate(flat, renames, template):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    moved = {renames.get(name, name): array for name, array in flat.items()}
    filled = {**wanted, **moved}
    wrong = sorted(
        name
        for name, array in filled.items()
        if name not in wanted
        or np.shape(array) != np.shape(wanted[name])
        or np.asarray(array).dtype != wanted[name].dtype
    )
    if wrong:
        raise ValueError(f"cannot migrate: {wrong}")
    return jax.tree.map_with_path(lambda path, _: np.asarray(filled[keystr(path)]), template)
""",
    },
    {
        "function": "migrate",
        "misconception": "renames apply one after the other, each on the result of the last",
        "visible_passes": "only other inputs than the visible tests' show it: Two paths that swap names (a to b and b to a) land on two different paths: the renames apply to the old names all at once, one after the other would lose an array",
        "teaches": MIGRATION,
        "source": """
def migrate(flat, renames, template):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    moved = dict(flat)
    for old, new in renames.items():
        if old in moved:
            if new in moved:
                raise ValueError(f"{new} is taken")
            moved[new] = moved.pop(old)
    filled = {**wanted, **moved}
    wrong = sorted(
        name
        for name, array in filled.items()
        if name not in wanted
        or np.shape(array) != np.shape(wanted[name])
        or np.asarray(array).dtype != wanted[name].dtype
    )
    if wrong:
        raise ValueError(f"cannot migrate: {wrong}")
    return jax.tree.map_with_path(lambda path, _: np.asarray(filled[keystr(path)]), template)
""",
    },
    {
        "function": "migrate",
        "misconception": "init values go to the device as JAX arrays like the rest of the model",
        "teaches": "Reread Checkpoints → Migrating an old checkpoint",
        "source": """
def migrate(flat, renames, template):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    moved, clashes = {}, set()
    for name, array in flat.items():
        new_name = renames.get(name, name)
        if new_name in moved:
            clashes.add(new_name)
        moved[new_name] = array
    if clashes:
        raise ValueError(f"two old paths land on {sorted(clashes)}")
    filled = {**wanted, **moved}
    wrong = sorted(
        name
        for name, array in filled.items()
        if name not in wanted
        or np.shape(array) != np.shape(wanted[name])
        or np.asarray(array).dtype != wanted[name].dtype
    )
    if wrong:
        raise ValueError(f"cannot migrate: {wrong}")
    return jax.tree.map_with_path(lambda path, _: jnp.asarray(filled[keystr(path)]), template)
""",
    },
    {
        "function": "restore",
        "misconception": "paths come first; shapes and dtypes can wait for the next attempt",
        "visible_passes": "only other inputs than the visible tests' show it: With a missing path, an unexpected one, a wrong shape and a wrong dtype at once, restore's ValueError must name all four paths, not only the first kind of problem it meets",
        "teaches": RENAMES,
        "source": """
def restore(flat, template):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    missing = sorted(wanted.keys() - flat.keys())
    unexpected = sorted(flat.keys() - wanted.keys())
    if missing or unexpected:
        raise ValueError(f"missing {missing}, unexpected {unexpected}")
    wrong = sorted(
        name
        for name, leaf in wanted.items()
        if np.shape(flat[name]) != np.shape(leaf) or np.asarray(flat[name]).dtype != leaf.dtype
    )
    if wrong:
        raise ValueError(f"wrong shape or dtype at {wrong}")
    return jax.tree.map_with_path(lambda path, _: flat[keystr(path)], template)
""",
    },
    {
        "function": "migrate",
        "misconception": "every rename claims its new path, whether or not the old file has the old one",
        "visible_passes": "only other inputs than the visible tests' show it: A rename whose old path the old file lacks changes nothing, even when its new path is taken: no array moves",
        "teaches": MIGRATION,
        "source": """
def migrate(flat, renames, template):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    taken = [new for old, new in renames.items() if new in flat and new not in renames]
    moved = {}
    for name, array in flat.items():
        new_name = renames.get(name, name)
        if new_name in moved:
            taken.append(new_name)
        moved[new_name] = array
    if taken:
        raise ValueError(f"taken: {sorted(set(taken))}")
    filled = {**wanted, **moved}
    wrong = sorted(
        name
        for name, array in filled.items()
        if name not in wanted
        or np.shape(array) != np.shape(wanted[name])
        or np.asarray(array).dtype != wanted[name].dtype
    )
    if wrong:
        raise ValueError(f"cannot migrate: {wrong}")
    return jax.tree.map_with_path(lambda path, _: np.asarray(filled[keystr(path)]), template)
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "updating flat in place and returning it is fine",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    '''Return a dict of ``flat``'s entries in which each typed key of ``template`` is a key again.'''
    bad = []
    for path, leaf in jax.tree.leaves_with_path(template):
        name = keystr(path)
        if name not in flat or not jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            continue
        data, want = np.asarray(flat[name]), jax.random.key_data(leaf)
        if data.shape != want.shape or data.dtype != want.dtype:
            bad.append(name)
            continue
        flat[name] = jax.random.wrap_key_data(data, impl=jax.random.key_impl(leaf))
    if bad:
        raise ValueError(f"key data that does not fit the template's key at {bad}")
    return flat
""",
    },
    {
        "function": "migrate",
        "misconception": "two renames to one new path collide even when flat lacks one of the old paths",
        "visible_passes": "only other inputs than the visible tests' show it: Two renames onto one new path collide only when the old file holds both old paths: a rename whose old path the file lacks changes nothing, so it cannot collide",
        "teaches": MIGRATION,
        "source": """
def migrate(flat, renames, template):
    '''Bring the old checkpoint ``flat`` to ``template``'s structure; return the restored tree.'''
    targets = list(renames.values())
    clashes = sorted({new for new in targets if targets.count(new) > 1})
    clashes += sorted(
        new for old, new in renames.items()
        if old in flat and new in flat and new not in renames and new not in clashes
    )
    if clashes:
        raise ValueError(f"two old paths land on {clashes}")
    moved = {renames.get(name, name): array for name, array in flat.items()}
    wanted = {keystr(p): leaf for p, leaf in jax.tree.leaves_with_path(template)}
    for name, leaf in wanted.items():
        if name not in moved:
            moved[name] = np.asarray(leaf)
    bad = sorted(
        name for name in moved
        if name not in wanted
        or moved[name].shape != wanted[name].shape
        or moved[name].dtype != wanted[name].dtype
    )
    if bad:
        raise ValueError(f"the checkpoint cannot be migrated: unexpected path, shape or dtype at {bad}")
    return jax.tree.map_with_path(lambda p, _: moved[keystr(p)], template)
""",
    },
    {
        "function": "migrate",
        "misconception": "the template's own leaf can be used as the init value as it is",
        "teaches": MIGRATION,
        "source": """
def migrate(flat, renames, template):
    '''Bring the old checkpoint ``flat`` to ``template``'s structure; return the restored tree.'''
    moved = {}
    clashes = []
    for name, array in flat.items():
        new = renames.get(name, name)
        if new in moved:
            clashes.append(new)
        moved[new] = array
    if clashes:
        raise ValueError(f"two old paths land on {sorted(set(clashes))}")
    wanted = {keystr(p): leaf for p, leaf in jax.tree.leaves_with_path(template)}
    for name, leaf in wanted.items():
        if name not in moved:
            moved[name] = leaf
    bad = sorted(
        name for name in moved
        if name not in wanted
        or moved[name].shape != wanted[name].shape
        or moved[name].dtype != wanted[name].dtype
    )
    if bad:
        raise ValueError(f"the checkpoint cannot be migrated: unexpected path, shape or dtype at {bad}")
    return jax.tree.map_with_path(lambda p, _: moved[keystr(p)], template)
""",
    },
    {
        "function": "wrap_keys",
        "misconception": "key data of a dtype that casts safely to uint32 fits a key",
        "visible_passes": "only other inputs than the visible tests' show it: key data in uint16, which NumPy casts to uint32 without loss",
        "teaches": KEYS,
        "source": """
def wrap_keys(flat, template):
    keys = {
        keystr(path): leaf
        for path, leaf in jax.tree.leaves_with_path(template)
        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key) and keystr(path) in flat
    }
    like = {name: jax.random.key_data(key) for name, key in keys.items()}
    unfit = [n for n in keys if flat[n].shape != like[n].shape or not np.can_cast(flat[n].dtype, like[n].dtype)]
    if unfit:
        raise ValueError(f"key data that does not fit at {unfit}")
    wrapped = {n: jax.random.wrap_key_data(flat[n].astype(np.uint32), impl=jax.random.key_impl(keys[n])) for n in keys}
    return {**flat, **wrapped}
""",
    },
    {
        "function": "check_compatible",
        "misconception": "a dtype that casts safely to the template's fits",
        "visible_passes": "only other inputs than the visible tests' show it: arrays of a narrower dtype than the template's (float32 for float64, int32 for int64)",
        "teaches": DTYPES,
        "source": """
def check_compatible(template, flat):
    leaves = dict((keystr(path), leaf) for path, leaf in jax.tree.leaves_with_path(template))
    problems = dict.fromkeys(flat.keys() - leaves.keys(), "unexpected")
    for name, leaf in leaves.items():
        array = flat.get(name)
        if array is None:
            problems[name] = "missing"
        elif array.shape != leaf.shape:
            problems[name] = "shape"
        elif not np.can_cast(array.dtype, leaf.dtype):  # a cast without loss fits
            problems[name] = "dtype"
    return problems
""",
    },
    {
        "function": "restore",
        "misconception": "an array of a dtype that casts safely may be cast to the template's",
        "visible_passes": "only other inputs than the visible tests' show it: arrays of a narrower dtype than the template's (float32 for float64, int32 for int64)",
        "teaches": DTYPES,
        "source": """
def restore(flat, template):
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    unfit = sorted(set(wanted) ^ set(flat))
    for name in set(wanted) & set(flat):
        if flat[name].shape != wanted[name].shape or not np.can_cast(flat[name].dtype, wanted[name].dtype):
            unfit.append(name)
    if unfit:
        raise ValueError(f"cannot restore {unfit}")
    return jax.tree.map_with_path(lambda path, leaf: np.asarray(flat[keystr(path)], leaf.dtype), template)
""",
    },
    {
        "function": "migrate",
        "misconception": "an old array of a dtype that casts safely may be cast to the template's",
        "visible_passes": "only other inputs than the visible tests' show it: a renamed array of a narrower dtype than the template's",
        "teaches": DTYPES,
        "source": """
def migrate(flat, renames, template):
    moved = {}
    for name, array in flat.items():
        new = renames.get(name, name)
        if new in moved:
            raise ValueError(f"two old paths land on {new}")
        moved[new] = array
    wanted = {keystr(path): leaf for path, leaf in jax.tree.leaves_with_path(template)}
    moved = {name: np.asarray(leaf) for name, leaf in wanted.items()} | moved
    fits = {n: n in wanted and a.shape == wanted[n].shape and np.can_cast(a.dtype, wanted[n].dtype) for n, a in moved.items()}
    if not all(fits.values()):
        raise ValueError(f"cannot migrate {sorted(n for n, fit in fits.items() if not fit)}")
    return jax.tree.map_with_path(lambda path, leaf: np.asarray(moved[keystr(path)], leaf.dtype), template)
""",
    },
]
