"""Wrong-but-plausible versions of the Checkpoints exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

SAVE = "Reread Checkpoints → Saving by path"
TEMPLATE = "Reread Checkpoints → Restoring into a template"
LEAF_ORDER = "Reread Checkpoints → Why not a list of leaves"
RENAMES = "Reread Checkpoints → Renamed and added fields"
DTYPES = "Reread Checkpoints → Dtypes on disk"
MIGRATION = "Reread Checkpoints → Migrating an old checkpoint"

CASES = [
    {
        "function": "to_flat",
        "misconception": "the path's own repr is as good a name as keystr's",
        "teaches": SAVE,
        "source": """
def to_flat(tree):
    return {str(path): np.asarray(leaf) for path, leaf in jax.tree.leaves_with_path(tree)}
""",
    },
    {
        "function": "to_flat",
        "misconception": "a walk over dicts, lists and tuples finds every leaf and its name",
        "teaches": SAVE,
        "source": """
def to_flat(tree, prefix=""):
    if tree is None:
        return {}
    if isinstance(tree, dict):
        items = [(f"[{key!r}]", child) for key, child in tree.items()]
    elif isinstance(tree, (list, tuple)):
        items = [(f"[{i}]", child) for i, child in enumerate(tree)]
    else:
        return {prefix: np.asarray(tree)}
    flat = {}
    for name, child in items:
        flat.update(to_flat(child, prefix + name))
    return flat
""",
    },
    {
        "function": "to_flat",
        "misconception": "the position of a leaf names it well enough, as np.savez(*leaves) does",
        "teaches": SAVE,
        "source": """
def to_flat(tree):
    return {f"arr_{i}": np.asarray(leaf) for i, leaf in enumerate(jax.tree.leaves(tree))}
""",
    },
    {
        "function": "to_flat",
        "misconception": "jnp.asarray keeps the leaf's dtype like np.asarray",
        "teaches": DTYPES,
        "source": """
def to_flat(tree):
    return {keystr(path): jnp.asarray(leaf) for path, leaf in jax.tree.leaves_with_path(tree)}
""",
    },
    {
        "function": "to_flat",
        "misconception": "any readable spelling of the path will do, such as a/b/0",
        "teaches": SAVE,
        "source": """
def to_flat(tree):
    return {
        keystr(path, simple=True, separator="/"): np.asarray(leaf)
        for path, leaf in jax.tree.leaves_with_path(tree)
    }
""",
    },
    {
        "function": "check_compatible",
        "misconception": "the flat dict's entries come in the order of the template's leaves",
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
        "teaches": RENAMES,
        "source": """
def migrate(flat, renames, template):
    moved = {renames.get(name, name): array for name, array in flat.items()}
    return jax.tree.map_with_path(lambda path, leaf: moved.get(keystr(path), leaf), template)
""",
    },
]
