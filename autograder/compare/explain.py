"""What an error raised by a learner's code points to, in the course's own terms.

JAX's messages say what went wrong in JAX's words. For the errors this course's
topics produce, :func:`explain` names the idea behind it and the section of the
book to reread; the learner still sees JAX's message under it. Used by the
grader's reports and by ``check``; it imports nothing of the grading machinery.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Pointer:
    """An error's idea, and where the book teaches it (``Chapter → Section``).

    ``id`` names the idea for good: reports record it, so a class's errors can be
    counted by idea; rewording ``idea`` keeps it."""

    id: str
    idea: str
    section: str
    only_in: tuple[str, ...] = ()
    """The chapters whose exercises it serves, where an error means another thing
    elsewhere; empty for every chapter."""

    def text(self) -> str:
        return f"This points to {self.idea}. Reread {self.section}."


# First match wins: the more specific patterns come first. Each pattern is matched
# against "ExceptionType: message" with re.search.
POINTERS: tuple[tuple[str, Pointer], ...] = (
    (
        r"checking equality of metadata fields|arrays cannot be passed as metadata",
        Pointer(
            "array-in-aux-data",
            "an array kept in aux_data: JAX compares aux_data with ==, and an array "
            "answers == with an array, not with True or False",
            "aux_data → Arrays do not belong in aux_data",
        ),
    ),
    (
        r"^UnsendableResult: .*arrays of Python objects",
        Pointer(
            "array-of-python-objects",
            "a returned array of Python objects: NumPy makes one from a list of arrays "
            "of different shapes, or of trees; an array holds numbers of one dtype, so "
            "keep a tree's leaves in a list or a tree, not in np.array",
            "Leaves → Containers and leaves",
        ),
    ),
    (
        r"in_axes specification must be a tree prefix",
        Pointer(
            "in-axes-not-a-prefix",
            "an in_axes that does not fit the arguments: it must be a prefix of the "
            "arguments' tree, one entry per subtree",
            "Pytrees through transformations → in_axes is a prefix tree",
        ),
    ),
    (
        r"vmap was requested to map its argument along axis 0, which implies that its rank "
        r"should be at least 1, but is only 0",
        Pointer(
            "vmap-over-a-count",
            "vmap given a number to map over: vmap maps over an axis of an array, so a "
            "stack of n layers maps the initialiser over n keys, not over n",
            "Randomness and stacking over trees → A stack of layers by vmap",
            only_in=("stacking",),
        ),
    ),
    (
        r"vmap got inconsistent sizes|vmap was requested to map its argument",
        Pointer(
            "vmap-no-batch-axis",
            "a value mapped over that has no batch axis: a value every example "
            "shares gets None in in_axes",
            "Pytrees through transformations → None is a leaf in in_axes",
        ),
    ),
    # Trees across devices: before the general structure error, which would shadow the first.
    (
        r"device_put device specification must be a tree prefix"
        r"|pytree structure error[\s\S]*(in_shardings|out_shardings|in_specs|out_specs)",
        Pointer(
            "shardings-not-a-prefix",
            "a tree of shardings or specs that is not a prefix of the tree it lays out: each "
            "spec stands for the whole subtree under it, and every key must be there",
            "Trees across devices → A tree of specs is a prefix of the parameter tree",
        ),
    ),
    (
        r"^AssertionError: \(\d+, P\(|is only valid for values of rank at least",
        Pointer(
            "spec-longer-than-rank",
            "a spec with more entries than its array has dimensions: a PartitionSpec is one "
            "leaf, one entry per dimension, not a container of specs for several arrays",
            "Trees across devices → A tree of specs is a prefix of the parameter tree",
        ),
    ),
    (
        r"implies that array axis \d+ is partitioned \d+ times, but",
        Pointer(
            "spec-does-not-divide",
            "a dimension split by a mesh axis whose size does not divide it: it is split by "
            "the size of its entry's axis, or by the product of a tuple of axes",
            "Trees across devices → A PartitionSpec says which axis splits which dimension",
        ),
    ),
    (
        r"Resource axis: .* is not found in mesh",
        Pointer(
            "axis-not-in-mesh",
            "a spec that names an axis the mesh does not have",
            "Trees across devices → A mesh names the devices' axes",
        ),
    ),
    (
        r"non-empty mesh in context if you are passing `PartitionSpec`s"
        r"|set a mesh via `jax.set_mesh` if a PartitionSpec is passed",
        Pointer(
            "spec-without-mesh",
            "specs given where shardings are needed: a PartitionSpec names axes of no mesh in "
            "particular; make NamedShardings of a mesh, or set the mesh with jax.set_mesh",
            "Trees across devices → jit with trees of shardings",
        ),
    ),
    (
        r"in_specs passed to shard_map: .* does not match the specs of the input",
        Pointer(
            "shard-map-input-not-laid-out",
            "an argument of shard_map that is not laid out as its in_specs says: lay the tree "
            "out with device_put first",
            "Trees across devices → shard_map with spec trees",
        ),
    ),
    (
        r"out_specs which require replication which can't be statically inferred",
        Pointer(
            "shard-map-output-varies",
            "a shard_map result declared replicated that still differs from device to device: "
            "combine the blocks with a collective over the axis first",
            "Trees across devices → shard_map with spec trees",
        ),
    ),
    (
        r"pytree structure error|Custom node type mismatch|arity mismatch|key mismatch",
        Pointer(
            "trees-of-different-structures",
            "trees of different structures mapped together: in jax.tree.map the first "
            "tree must be a prefix of every other one",
            "Mapping → The first tree is a prefix",
        ),
    ),
    (
        r"reduce\(\) of empty iterable with no initial value",
        Pointer(
            "reduce-empty-tree",
            "a reduction of a tree without leaves: with no initializer there is nothing to "
            "start from, so give jax.tree.reduce one, the value an empty tree reduces to",
            "Mapping → Reducing a tree",
        ),
    ),
    (
        r"Shapes must be 1D sequences of concrete values of integer type",
        Pointer(
            "tuple-of-shapes-as-shape",
            "a value handed to jnp.ones that is not one shape: a tuple of shapes is a "
            "container, and only a tuple of ints is a shape, so stop the walk at exactly "
            "those with is_leaf",
            "Mapping → The tree-of-shapes trap",
            only_in=("mapping",),
        ),
    ),
    (
        r"carry input and carry output must have the same pytree structure",
        Pointer(
            "carry-changes-structure",
            "a loop whose body returns its carry as another tree: the body is traced once "
            "and runs again on its own output, so the carry keeps its containers and keys",
            "Control flow over trees → The carry keeps its treedef",
        ),
    ),
    (
        r"carry input and carry output must have equal types",
        Pointer(
            "carry-changes-type",
            "a loop's carry whose leaf changed shape or dtype: the compiled loop keeps each "
            "leaf in one buffer of one type, so build the initial carry from the data",
            "Control flow over trees → Same shapes and dtypes at every leaf",
        ),
    ),
    (
        r"(cond|switch) branch(es)? (outputs must have the same pytree structure"
        r"|must have equal output types)",
        Pointer(
            "branches-return-different-trees",
            "branches that return different trees: cond and switch trace every branch, "
            "and each must return the same structure, shapes and dtypes",
            "Control flow over trees → cond and switch return one structure",
        ),
    ),
    (
        r"scan got values with different leading axis sizes",
        Pointer(
            "scan-unequal-steps",
            "xs whose leaves disagree on the number of steps: scan slices every leaf of "
            "xs along its leading axis",
            "Control flow over trees → Scanning over a tree of stacked arrays",
        ),
    ),
    (
        r"^(TracerBoolConversionError|TracerIntegerConversionError)",
        Pointer(
            "python-if-on-tracer-in-loop",
            "a Python if, or a list index, on a traced value: under jit it has no value until "
            "the compiled program runs, so the choice belongs in lax.cond or lax.switch",
            "Control flow over trees → cond and switch return one structure",
            only_in=("control_flow",),
        ),
    ),
    (
        r"truth value of an array with more than one element is ambiguous",
        Pointer(
            "python-if-on-array",
            "a Python if, and, or or all() on an array of several elements: Python needs one "
            "True or False, so reduce the array first (.all(), .any(), jnp.logical_and over "
            "a tree's leaves) and, under jit, choose with lax.cond",
            "Control flow over trees → cond and switch return one structure",
            only_in=("control_flow",),
        ),
    ),
    (
        r"^ValueError: Expected None, got ",
        Pointer(
            "none-prefix-meets-subtree",
            "a None of a prefix tree that meets a subtree: None is a node that only a None "
            "extends, so give the group a leaf, or make the Nones leaves with "
            "is_leaf=lambda x: x is None",
            "The treedef and key API → Flattening up to a prefix",
        ),
    ),
    (
        r"^TypeError: Mismatch\nPyTreeDef",
        Pointer(
            "transpose-structures-mismatch",
            "a transpose whose outer and inner structures do not compose into the tree's: "
            "take both from the data (the outer from the list, the inner from one item)",
            "The treedef and key API → Transposing a tree of trees",
        ),
    ),
    (
        r"to_iterable_with_keys function for a custom PyTree node should return",
        Pointer(
            "flatten-with-keys-bare-children",
            "a flatten_with_keys that returns bare children: it must return (key, child) "
            "pairs and the aux_data",
            "The treedef and key API → Registering nodes with keys",
        ),
    ),
    (
        r"^KeyError: \"\[",
        Pointer(
            "path-missing-from-flat-dict",
            "a path that the flat dict lacks, looked up while the tree was being rebuilt: "
            "check every path of the template against the dict first, and name the ones "
            "missing in a ValueError",
            "Checkpoints → Restoring into a template",
            only_in=("checkpoints",),
        ),
    ),
    (
        r"invalid PRNG key data",
        Pointer(
            "prng-key-data-mismatch",
            "key data that does not fit the implementation it was wrapped with: a key's "
            "data is uint32 with a trailing axis whose length depends on the implementation "
            "(jax.random.key_impl of the template's key), so compare it with the template "
            "key's key_data before wrapping",
            "Checkpoints → PRNG keys in a checkpoint",
        ),
    ),
    (
        r"^FrozenInstanceError: cannot assign to field",
        Pointer(
            "assign-to-frozen-module",
            "an assignment to a frozen module's field: an Equinox module is an immutable "
            "tree, so make a changed copy with eqx.tree_at",
            "The libraries' own trees → Frozen modules and eqx.tree_at",
        ),
    ),
    (
        r"Operation undefined, .* is not a leaf of the pytree",
        Pointer(
            "tree-at-static-field",
            "eqx.tree_at pointed at a static field: it lives in the treedef's aux_data, "
            "not among the leaves tree_at can replace",
            "The libraries' own trees → Frozen modules and eqx.tree_at",
        ),
    ),
    (
        r"zeros_like requires ndarray or scalar arguments",
        Pointer(
            "optax-on-non-array-leaves",
            "an optimiser initialised on a model whose leaves are not all arrays (an Equinox "
            "model keeps its functions as leaves): give Optax the arrays alone, "
            "eqx.filter(model, eqx.is_array)",
            "The libraries' own trees → Optax on an Equinox model",
        ),
    ),
    (
        r"unsupported operand type\(s\) for \+: '[\w.]+' and 'NoneType'",
        Pointer(
            "apply-updates-to-functions",
            "updates added to a model that holds functions: optax.apply_updates adds to every "
            "leaf, and a function's update is None; eqx.apply_updates skips the None updates",
            "The libraries' own trees → Optax on an Equinox model",
            only_in=("libraries",),
        ),
    ),
    (
        r"unsupported operand type\(s\) for @: 'str' and '\w+'",
        Pointer(
            "module-as-labels",
            "a labels tree that is itself an Equinox module: a module is callable, so "
            "Optax calls it as a function of the parameters; hand Optax a function that "
            "returns the tree",
            "The libraries' own trees → Optax on an Equinox model",
            only_in=("libraries",),
        ),
    ),
    (
        r"assigned to static attribute .* of Pytree type",
        Pointer(
            "plain-list-of-nnx-modules",
            "a plain list of NNX modules: NNX treats a list attribute as static, so hold "
            "sub-modules in an nnx.List",
            "The libraries' own trees → NNX: a GraphDef and a State",
        ),
    ),
    (
        r"^UnexpectedTracerError",
        Pointer(
            "escaped-tracer",
            "a traced value that escaped its transformation (kept in a global, a cache "
            "or an object): what a transformed function computes must leave it through "
            "its return value",
            "Pytrees through transformations → Pytrees in, pytrees out",
        ),
    ),
    (
        r"^(ConcretizationTypeError|TracerBoolConversionError|TracerIntegerConversionError"
        r"|TracerArrayConversionError)",
        Pointer(
            "python-value-of-traced-child",
            "Python asking for the value of a traced child (an if, a range, float(), "
            "np.asarray): under jit a child has a shape and dtype but no value yet; what "
            "Python must know while tracing is aux_data or a static argument",
            "aux_data → Children and aux_data",
        ),
    ),
    (
        r"Error interpreting argument to .* as an abstract array",
        Pointer(
            "non-array-leaf-under-transformation",
            "a leaf that is not an array (a function, a string, an object) given to a "
            "transformation: it can only trace arrays, so a function travels in a Partial "
            "and other values as static arguments or aux_data",
            "Static data and functions in trees → What a leaf may be under jit",
        ),
    ),
    (
        r"traced for jit returned a value of type .*which is not a valid JAX type",
        Pointer(
            "jit-returns-non-array",
            "a jitted function that returns a value that is not an array (a string, a "
            "function, an object): what jit returns is built from traced arrays, so keep "
            "such values out of the call and put them back after it",
            "Static data and functions in trees → What a leaf may be under jit",
        ),
    ),
    (
        r"Non-hashable static arguments",
        Pointer(
            "unhashable-static-value",
            "a static value that cannot be hashed: static arguments and aux_data are "
            "looked up in jit's cache, so they must hash and compare by value",
            "aux_data → aux_data is part of jit's cache key",
        ),
    ),
    (
        r"grad requires real- or complex-valued inputs",
        Pointer(
            "grad-of-int-leaf",
            "an int leaf given to jax.grad: every leaf grad differentiates must be a float",
            "Pytrees through transformations → grad rejects int leaves",
        ),
    ),
    (
        r"Duplicate custom PyTreeDef type registration",
        Pointer(
            "registered-twice",
            "a class registered twice: run a registration once, not in a function called again",
            "Custom nodes → Register a type once",
        ),
    ),
    (
        r"Comparator raised exception while sorting pytree dictionary keys",
        Pointer(
            "unsortable-dict-keys",
            "a dict whose keys cannot be sorted together: JAX flattens a dict in sorted key order",
            "Leaves → Flattening order",
        ),
    ),
    (
        r"Too (few|many) leaves for PyTreeDef",
        Pointer(
            "wrong-number-of-leaves",
            "unflatten given the wrong number of leaves: it needs exactly one per leaf "
            "of the treedef",
            "Structure → What unflatten checks",
        ),
    ),
    (
        r"does not accept dtypes key<",
        Pointer(
            "arithmetic-on-a-typed-key",
            "arithmetic on a typed PRNG key: a key is not a number, so a map that does "
            "arithmetic over a tree skips its key leaves",
            "Randomness and stacking over trees → Typed keys as leaves",
        ),
    ),
    (
        r"^TypeError: Output from batched function .* is not a valid JAX type",
        Pointer(
            "jax-vmap-of-a-module",
            "jax.vmap returning an object with non-array fields: eqx.filter_vmap batches "
            "the arrays and passes the rest through",
            "Randomness and stacking over trees → filter_vmap and nnx.vmap",
        ),
    ),
    (
        r"All input arrays must have the same shape",
        Pointer(
            "stacking-uneven-layers",
            "layers of different shapes stacked: only layers of one shape share a leading "
            "axis, so a stack holds the run of equal layers",
            "Randomness and stacking over trees → A stack of layers by vmap",
            only_in=("stacking",),
        ),
    ),
)


def explain(error_type: str, message: str, chapter: str = "") -> Pointer | None:
    """The course's pointer for an error of type ``error_type`` with ``message``, if any.

    ``chapter`` is the id of the exercise's chapter, for the pointers kept to some.
    """
    text = f"{error_type}: {message}"
    for pattern, pointer in POINTERS:
        if pointer.only_in and chapter not in pointer.only_in:
            continue
        if re.search(pattern, text):
            return pointer
    return None
