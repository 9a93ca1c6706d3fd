"""Wrong-but-plausible versions of the Key paths exercise, each drawn from a misconception.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

CASES = [
    {
        "function": "leaf_paths",
        "misconception": "paths follow the dict's insertion order",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def leaf_paths(tree):
    def walk(node, prefix):
        if node is None:
            return []
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            items = [(f".{name}", getattr(node, name)) for name in node._fields]
        elif type(node) in (list, tuple):
            items = [(f"[{i}]", child) for i, child in enumerate(node)]
        elif isinstance(node, dict):
            items = [(f"[{key!r}]", child) for key, child in node.items()]
        else:
            return [prefix]
        return [path for step, child in items for path in walk(child, prefix + step)]

    return walk(tree, "")
""",
    },
    {
        "function": "leaf_paths",
        "misconception": "a namedtuple's children are numbered like a tuple's",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def leaf_paths(tree):
    def walk(node, prefix):
        if node is None:
            return []
        if isinstance(node, (list, tuple)):
            items = [(f"[{i}]", child) for i, child in enumerate(node)]
        elif type(node) is OrderedDict:
            items = [(f"[{key!r}]", child) for key, child in node.items()]
        elif isinstance(node, dict):
            items = [(f"[{key!r}]", node[key]) for key in sorted(node)]
        else:
            return [prefix]
        return [path for step, child in items for path in walk(child, prefix + step)]

    return walk(tree, "")
""",
    },
    {
        "function": "leaf_paths",
        "misconception": "None has a path like any leaf",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def leaf_paths(tree):
    pairs = jax.tree.leaves_with_path(tree, is_leaf=lambda node: node is None)
    return [keystr(path) for path, _ in pairs]
""",
    },
    {
        "function": "leaf_paths",
        "misconception": "keystr(simple=True) is the way to print a path",
        "teaches": "Reread Key paths → Paths as strings: keystr",
        "source": """
def leaf_paths(tree):
    pairs = jax.tree.leaves_with_path(tree)
    return [keystr(path, simple=True, separator="/") for path, _ in pairs]
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "a key in a path compares equal to its name",
        "teaches": "Reread Key paths → The key types",
        "source": """
def weight_decay_mask(params):
    def decays(path, leaf):
        if path and path[-1] in ("b", "bias"):
            return False
        return not any("norm" in str(key).lower() for key in path)

    return jax.tree.map_with_path(decays, params)
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "every named key is a dict key",
        "visible_passes": "only other inputs than the visible tests' show it: A namedtuple field named b is a bias too: its key is a GetAttrKey, whose name is in .name, and keystr writes it .b, not ['b']",
        "teaches": "Reread Key paths → The key types",
        "source": """
def weight_decay_mask(params):
    def decays(path, leaf):
        names = [key.key for key in path if isinstance(key, DictKey)]
        if path and isinstance(path[-1], DictKey) and path[-1].key in ("b", "bias"):
            return False
        return not any("norm" in str(name).lower() for name in names)

    return jax.tree.map_with_path(decays, params)
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "the path's text can be searched like a name",
        "visible_passes": "only other inputs than the visible tests' show it: A leaf whose path text merely contains or ends with the letter b is not a bias: compare the whole name of the last key, not the text of the path",
        "teaches": "Reread Key paths → Mapping with paths",
        "source": """
def weight_decay_mask(params):
    def decays(path, leaf):
        text = keystr(path, simple=True, separator="/")
        if text.endswith("b") or text.endswith("bias"):
            return False
        return "norm" not in text.lower()

    return jax.tree.map_with_path(decays, params)
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "only the last key of the path matters",
        "visible_passes": "only other inputs than the visible tests' show it: A leaf inside a normalisation layer is not decayed even when its own key does not mention norm: look at every key on the path, not only the last one, and ignore case",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def weight_decay_mask(params):
    def name(key):
        if isinstance(key, DictKey):
            return str(key.key)
        if isinstance(key, GetAttrKey):
            return key.name
        return ""

    def decays(path, leaf):
        if not path:
            return True
        last = name(path[-1])
        return last not in ("b", "bias") and "norm" not in last.lower()

    return jax.tree.map_with_path(decays, params)
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "the separator is always a slash",
        "teaches": "Reread Key paths → Paths as strings: keystr",
        "source": """
def flatten_to_dict(tree, sep="/"):
    return {
        keystr(path, simple=True, separator="/"): leaf
        for path, leaf in jax.tree.leaves_with_path(tree)
    }
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "keystr(simple=True) separates the keys by itself",
        "teaches": "Reread Key paths → Paths as strings: keystr",
        "source": """
def flatten_to_dict(tree, sep="/"):
    return {keystr(path, simple=True): leaf for path, leaf in jax.tree.leaves_with_path(tree)}
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "a flattened dict keeps the insertion order",
        "teaches": "Reread Key paths → Paths as strings: keystr",
        "source": """
def flatten_to_dict(tree, sep="/"):
    out = {}

    def walk(node, parts):
        if node is None:
            return
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            items = list(zip(node._fields, node))
        elif type(node) in (list, tuple):
            items = [(str(i), child) for i, child in enumerate(node)]
        elif isinstance(node, dict):
            items = [(str(key), child) for key, child in node.items()]
        else:
            out[sep.join(parts)] = node
            return
        for name, child in items:
            walk(child, parts + [name])

    walk(tree, [])
    return out
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "None is a leaf with a path",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def flatten_to_dict(tree, sep="/"):
    pairs = jax.tree.leaves_with_path(tree, is_leaf=lambda node: node is None)
    return {keystr(path, simple=True, separator=sep): leaf for path, leaf in pairs}
""",
    },
    {
        "function": "unflatten_from_dict",
        "misconception": "each key builds its own nested dict",
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def unflatten_from_dict(flat, sep="/"):
    out = {}
    for key, value in flat.items():
        parts = key.split(sep)
        nested = value
        for part in reversed(parts[1:]):
            nested = {part: nested}
        out[parts[0]] = nested
    return out
""",
    },
    {
        "function": "unflatten_from_dict",
        "misconception": "the separator is always a slash",
        "visible_passes": "only other inputs than the visible tests' show it: Split the keys on the sep you are given, not always on a slash",
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def unflatten_from_dict(flat, sep="/"):
    out = {}
    for key, value in flat.items():
        *parents, last = key.split("/")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out
""",
    },
    {
        "function": "unflatten_from_dict",
        "misconception": "a key splits into a parent and a child only",
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def unflatten_from_dict(flat, sep="/"):
    out = {}
    for key, value in flat.items():
        if sep in key:
            head, rest = key.split(sep, 1)
            out.setdefault(head, {})[rest] = value
        else:
            out[key] = value
    return out
""",
    },
    {
        "function": "unflatten_from_dict",
        "misconception": "a numeric part was a list index",
        "visible_passes": "only other inputs than the visible tests' show it: Every container in the result is a dict and every part stays a string: the text cannot tell whether a part like 0 was a list position or a dict key",
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def unflatten_from_dict(flat, sep="/"):
    out = {}
    for key, value in flat.items():
        *parents, last = [int(p) if p.isdigit() else p for p in key.split(sep)]
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out
""",
    },
]


# A walk of one's own that gets JAX's paths right on every builtin container: the values
# match, the idea (paths come from JAX) is skipped.
_WALK = """
def _walk(node, prefix, out, text):
    if node is None:
        return
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        items = [(text("attr", name), getattr(node, name)) for name in node._fields]
    elif type(node) in (list, tuple):
        items = [(text("index", i), child) for i, child in enumerate(node)]
    elif type(node) is OrderedDict:
        items = [(text("key", key), child) for key, child in node.items()]
    elif type(node) is dict:
        items = [(text("key", key), node[key]) for key in sorted(node)]
    else:
        out.append((prefix, node))
        return
    for step, child in items:
        _walk(child, prefix + [step], out, text)
"""

CASES += [
    {
        "function": "leaf_paths",
        "misconception": "a walk of one's own gives the same paths as JAX",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": _WALK
        + """

def _text(kind, value):
    return {"attr": f".{value}", "index": f"[{value}]", "key": f"[{value!r}]"}[kind]


def leaf_paths(tree):
    out = []
    _walk(tree, [], out, _text)
    return ["".join(steps) for steps, _ in out]
""",
    },
    {
        "function": "leaf_paths",
        "misconception": "str(path) writes a path as text",
        "teaches": "Reread Key paths → Paths as strings: keystr",
        "source": """
def leaf_paths(tree):
    return [str(path) for path, _ in jax.tree.leaves_with_path(tree)]
""",
    },
    {
        "function": "leaf_paths",
        "misconception": "paths come out sorted as strings",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def leaf_paths(tree):
    return sorted(keystr(path) for path, _ in jax.tree.leaves_with_path(tree))
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "a walk of one's own decides each leaf as well as map_with_path",
        "teaches": "Reread Key paths → Mapping with paths",
        "source": """
def weight_decay_mask(params):
    def walk(node, names):
        if node is None:
            return None
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            return type(node)(*[walk(getattr(node, f), names + [f]) for f in node._fields])
        if type(node) in (list, tuple):
            return type(node)(walk(child, names + [None]) for child in node)
        if isinstance(node, dict):
            return type(node)((k, walk(v, names + [str(k)])) for k, v in node.items())
        if names and names[-1] in ("b", "bias"):
            return False
        return not any(n is not None and "norm" in n.lower() for n in names)

    return walk(params, [])
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "a bias is any key that starts with b",
        "visible_passes": "only other inputs than the visible tests' show it: Only a last key named exactly b or bias marks a bias: a key that merely contains bias, or a bias earlier on the path, names something else",
        "teaches": "Reread Key paths → Mapping with paths",
        "source": """
def weight_decay_mask(params):
    def name(key):
        if isinstance(key, DictKey):
            return str(key.key)
        if isinstance(key, GetAttrKey):
            return key.name
        return None

    def decays(path, leaf):
        names = [name(key) for key in path]
        if names and names[-1] is not None and names[-1].startswith("b"):
            return False
        return not any(n is not None and "norm" in n.lower() for n in names)

    return jax.tree.map_with_path(decays, params)
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "a walk of one's own names the leaves as well as keystr",
        "teaches": "Reread Key paths → Paths as strings: keystr",
        "source": _WALK
        + """

def flatten_to_dict(tree, sep="/"):
    out = []
    _walk(tree, [], out, lambda kind, value: str(value))
    return {sep.join(steps): leaf for steps, leaf in out}
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "leaves should be stored as NumPy arrays",
        "visible_passes": "only other inputs than the visible tests' show it: Leaves must be kept as they are: a string stays a string, a number a number, and an array keeps its dtype",
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def flatten_to_dict(tree, sep="/"):
    return {
        keystr(path, simple=True, separator=sep): np.asarray(leaf)
        for path, leaf in jax.tree.leaves_with_path(tree)
    }
""",
    },
    {
        "function": "unflatten_from_dict",
        "misconception": "empty parts of a key are noise and can be dropped",
        "visible_passes": 'only other inputs than the visible tests\' show it: Every part of a split key is kept, an empty one included: the empty string is a dict key like any other (flatten_to_dict writes a key "" as an empty part)',
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def unflatten_from_dict(flat, sep="/"):
    out = {}
    for key, value in flat.items():
        parts = [part for part in key.split(sep) if part]
        if not parts:
            continue
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out
""",
    },
    {
        "function": "unflatten_from_dict",
        "misconception": "a level whose parts are 0, 1, ... was a list",
        "visible_passes": "only other inputs than the visible tests' show it: Every container in the result is a dict and every part stays a string: the text cannot tell whether a part like 0 was a list position or a dict key",
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def unflatten_from_dict(flat, sep="/"):
    out = {}
    for key, value in flat.items():
        *parents, last = key.split(sep)
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value

    def to_lists(node):
        if not isinstance(node, dict):
            return node
        node = {k: to_lists(v) for k, v in node.items()}
        if node and sorted(node) == [str(i) for i in range(len(node))]:
            return [node[str(i)] for i in range(len(node))]
        return node

    return to_lists(out)
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "every leaf has a last key to look at",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def key_name(key):
    if isinstance(key, DictKey):
        return key.key
    if isinstance(key, GetAttrKey):
        return key.name
    return None


def weight_decay_mask(params):
    def decay(path, leaf):
        if key_name(path[-1]) in ("b", "bias"):
            return False
        if any(isinstance(key_name(key), str) and "norm" in key_name(key).lower() for key in path):
            return False
        return True

    return jax.tree.map_with_path(decay, params)
""",
    },
    {
        "function": "weight_decay_mask",
        "misconception": "dict keys are always strings",
        "visible_passes": "only other inputs than the visible tests' show it: Dict keys need not be strings: an int key's DictKey holds the int, which has no .lower()",
        "teaches": "Reread Key paths → The key types",
        "source": """
def key_name(key):
    if isinstance(key, DictKey):
        return key.key
    if isinstance(key, GetAttrKey):
        return key.name
    return ""


def weight_decay_mask(params):
    def decay(path, leaf):
        names = [key_name(key) for key in path]
        if names and names[-1] in ("b", "bias"):
            return False
        if any("norm" in name.lower() for name in names):
            return False
        return True

    return jax.tree.map_with_path(decay, params)
""",
    },
    {
        "function": "leaf_paths",
        "misconception": "every key is a DictKey, a GetAttrKey or a SequenceKey",
        "visible_passes": "only other inputs than the visible tests' show it: On a tree drawn at random (dicts with unsorted keys, lists, tuples, OrderedDicts, namedtuples, a registered node, None, empty containers, and subclasses of list, tuple and dict, which are leaves) your paths differ from JAX's: keystr of each path that jax.tree.leaves_with_path gives, in its order",
        "teaches": "Reread Key paths → Leaves with their paths",
        "source": """
def leaf_paths(tree):
    def text(key):
        if isinstance(key, DictKey):
            return f"[{key.key!r}]"
        if isinstance(key, GetAttrKey):
            return f".{key.name}"
        return f"[{key.idx}]"

    return ["".join(text(key) for key in path) for path, _ in jax.tree.leaves_with_path(tree)]
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "a key's name is in .key, .name or .idx",
        "visible_passes": "only other inputs than the visible tests' show it: On a tree drawn at random (dicts with unsorted keys, lists, tuples, OrderedDicts, namedtuples, a node registered without keys, None, empty containers, and subclasses of list, tuple and dict, which are leaves) your dict differs from JAX's paths: keystr(path, simple=True, separator=sep) for each pair of jax.tree.leaves_with_path, in its order, each leaf kept as it is",
        "teaches": "Reread Key paths → Paths as strings: keystr",
        "source": """
def flatten_to_dict(tree, sep="/"):
    def name(key):
        if isinstance(key, DictKey):
            return str(key.key)
        if isinstance(key, GetAttrKey):
            return key.name
        return str(key.idx)

    return {
        sep.join(name(key) for key in path): leaf
        for path, leaf in jax.tree.leaves_with_path(tree)
    }
""",
    },
    {
        "function": "flatten_to_dict",
        "misconception": "NumPy arrays should become JAX arrays in the flat dict",
        "visible_passes": "only other inputs than the visible tests' show it: Leaves must be kept as they are: a string stays a string, a number a number, and an array keeps its dtype",
        "teaches": "Reread Key paths → Flat dicts and back",
        "source": """
def flatten_to_dict(tree, sep="/"):
    return {
        keystr(path, simple=True, separator=sep): jnp.asarray(leaf) if isinstance(leaf, np.ndarray) else leaf
        for path, leaf in jax.tree.leaves_with_path(tree)
    }
""",
    },
]
