"""Plain-data encoding between the grader and the learner's worker process.

Values cross the process boundary as JSON. Arrays travel as ``.npy`` bytes and are
read back with ``allow_pickle=False``; containers are rebuilt by the reader. No
pickle, no ``eval``: decoding a message can never run code that the other side
chose. Written by hand rather than with a serialisation library because the
point is what it refuses to do.

Tags (a JSON object with one ``$``-key names the kind of value):

=================  ===============================================================
``$tuple``         items
``$dict``          ``[[key, value], ...]`` in the dict's own order
``$ordereddict``   same, for ``collections.OrderedDict``
``$defaultdict``   same, for ``collections.defaultdict``; ``factory`` names its
                   ``default_factory`` when it is one of :data:`DEFAULT_FACTORIES`, and
                   is ``None`` otherwise (a registered container to JAX, not a leaf)
``$namedtuple``    ``name``, ``fields``, ``values`` (and ``qualname`` when the class's
                   ``__qualname__`` is not its name: a class defined inside another
                   class or a function)
``$set``           items, sorted by their encoded text so the order is stable
``$range``         ``[start, stop, step]``
``$array``         base64 ``.npy`` bytes; ``jax`` says whether it was a JAX array;
                   ``dtype`` names a dtype ``.npy`` cannot (bfloat16, float8)
``$scalar``        a NumPy scalar, as a 0-d ``$array``
``$keys``          a JAX array of typed PRNG keys: its ``jax.random.key_data`` as
                   ``.npy`` bytes and ``impl``, the name of its implementation
``$float``         ``"nan"``, ``"inf"`` or ``"-inf"``
``$complex``       ``[real, imag]``
``$bytes``         base64
``$node``          a custom pytree node: ``name``, ``children``, ``aux`` (and
                   ``qualname``, as for ``$namedtuple``)
``$shapedtype``    a ``jax.ShapeDtypeStruct`` of a NumPy dtype: ``shape``, ``dtype``
                   (its name) and ``weak``; it arrives as one on both sides
``$spec``          a ``jax.sharding.PartitionSpec``: one entry per array axis, each
                   ``None``, a mesh axis name or a list of names; it arrives as a
                   ``PartitionSpec`` on both sides (one with ``unreduced`` or
                   ``reduced`` axes, or an unconstrained entry, goes as an ``$object``)
``$subclass``      an unregistered subclass of list, tuple or dict (a leaf to JAX):
                   ``name``, ``base`` and ``items`` (``[key, value]`` pairs for a dict)
``$object``        any other object: ``name`` of its type and a short ``repr``
``$learner``       a name in the learner's notebook (grader to worker only)
=================  ===============================================================

``$learner`` lets a test hand one of the learner's own functions to a watcher
(:mod:`autograder.learner.watchers`): the worker looks the name up in the notebook's
namespace. Only the worker's reader resolves it; the grader's refuses it.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import io
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from autograder.learner.watchers import is_key_array, is_namedtuple

MAX_DEPTH = 64
MAX_REPR = 200


class WireError(ValueError):
    """A value that cannot be sent, or a message that cannot be read."""


class Unresolved(WireError):
    """A ``$learner`` name that the notebook does not define."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is not defined")
        self.name = name


class LearnerRef:
    """Names an object of the learner's notebook; sent as ``$learner``, never as a value."""

    def __init__(self, name: str) -> None:
        self.__name__ = name


def dumps(value: Any) -> str:
    """Encode ``value`` as JSON text."""
    return json.dumps(encode(value), allow_nan=False, separators=(",", ":"))


def loads(text: str | bytes, *, jax_arrays: bool = False) -> Any:
    """Decode JSON text made by :func:`dumps`.

    With ``jax_arrays``, arrays that were JAX arrays become JAX arrays again (the
    worker's side); otherwise every array is a NumPy array (the grader's side).
    """
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"unreadable message: {exc}") from None
    return decode(raw, jax_arrays=jax_arrays)


# --- encoding ---------------------------------------------------------------


def encode(value: Any, depth: int = 0) -> Any:
    """Turn ``value`` into JSON-compatible data, tagging what JSON cannot say."""
    if depth > MAX_DEPTH:
        raise WireError(f"value nested deeper than {MAX_DEPTH} levels")
    deeper = depth + 1
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, LearnerRef):
        return {"$learner": value.__name__}
    if isinstance(value, int) and type(value) is int:
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"$float": repr(value)}
    if type(value) is complex:
        return {"$complex": [encode(value.real), encode(value.imag)]}
    if type(value) is bytes:
        return {"$bytes": base64.b64encode(value).decode()}
    if type(value) is list:
        return [encode(v, deeper) for v in value]
    if type(value) is tuple:
        return {"$tuple": [encode(v, deeper) for v in value]}
    if is_namedtuple(value):
        return {
            "$namedtuple": type(value).__name__,
            "fields": list(type(value)._fields),
            "values": [encode(v, deeper) for v in value],
            **_qualname(type(value)),
        }
    if type(value) is collections.OrderedDict:
        return {"$ordereddict": [[encode(k, deeper), encode(v, deeper)] for k, v in value.items()]}
    if type(value) is dict:
        return {"$dict": [[encode(k, deeper), encode(v, deeper)] for k, v in value.items()]}
    if type(value) is collections.defaultdict:
        factory = value.default_factory
        return {
            "$defaultdict": [[encode(k, deeper), encode(v, deeper)] for k, v in value.items()],
            "factory": next((n for n, f in DEFAULT_FACTORIES.items() if f is factory), None),
        }
    if type(value) in (set, frozenset):
        items = [encode(v, deeper) for v in value]
        return {"$set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
    if type(value) is range:
        return {"$range": [value.start, value.stop, value.step]}
    if isinstance(value, np.generic):
        return _array("$scalar", np.asarray(value))
    if isinstance(value, np.ndarray):
        return _array("$array", value, jax=False)
    if _is_jax_array(value):
        if is_key_array(value):
            jax = sys.modules["jax"]
            impl = str(jax.random.key_impl(value))
            return {"$keys": _npy(np.asarray(jax.random.key_data(value))), "impl": impl}
        return _array("$array", np.asarray(value), jax=True)
    shaped = _shape_dtype(value)
    if shaped is not None:
        return shaped
    spec = _partition_spec(value)
    if spec is not None:
        return spec
    node = _custom_node(value)
    if node is not None:
        children, aux = node
        return {
            "$node": type(value).__name__,
            "children": [encode(c, deeper) for c in children],
            "aux": _encode_aux(aux, deeper),
            **_qualname(type(value)),
        }
    base = _container_base(value)
    if base is not None:
        # the base's own methods read what the instance holds, whatever the subclass overrides
        if base is dict:
            items = [[encode(k, deeper), encode(v, deeper)] for k, v in dict.items(value)]
        else:
            items = [encode(v, deeper) for v in base.__iter__(value)]
        return {"$subclass": type(value).__name__, "base": base.__name__, "items": items}
    return {"$object": type(value).__name__, "repr": _short_repr(value)}


_CONTAINER_BASES = {"list": list, "tuple": tuple, "dict": dict}

# The default_factory a ``$defaultdict`` may name: builtin types, so decoding runs no chosen code.
DEFAULT_FACTORIES = {f.__name__: f for f in (list, dict, set, tuple, int, float, str)}


def _qualname(cls: type) -> dict[str, str]:
    """``{"qualname": ...}`` when ``cls.__qualname__`` is not its ``__name__``, else ``{}``."""
    qualname = getattr(cls, "__qualname__", cls.__name__)
    return {"qualname": qualname} if isinstance(qualname, str) and qualname != cls.__name__ else {}


def _shape_dtype(value: Any) -> dict[str, Any] | None:
    """A ``jax.ShapeDtypeStruct`` of a named dtype as ``$shapedtype``; else ``None``."""
    jax = sys.modules.get("jax")
    if jax is None or type(value) is not jax.ShapeDtypeStruct:
        return None
    dtype = value.dtype
    try:
        named = isinstance(dtype, np.dtype) and _dtype_named(dtype.name) == dtype
    except WireError:
        named = False
    if not named:
        return None  # a key dtype, or a raw void one, has no name to send: it goes as an $object
    return {
        "$shapedtype": [int(n) for n in value.shape],
        "dtype": dtype.name,
        "weak": bool(value.weak_type),
    }


def _partition_spec(value: Any) -> dict[str, Any] | None:
    """A plain ``PartitionSpec`` as ``$spec``; else ``None``."""
    sharding = sys.modules.get("jax.sharding")
    if sharding is None or type(value) is not sharding.PartitionSpec:
        return None
    if value.unreduced or value.reduced:
        return None
    entries: list[Any] = []
    for entry in value:
        if entry is None or type(entry) is str:
            entries.append(entry)
        elif type(entry) is tuple and all(type(name) is str for name in entry):
            entries.append(list(entry))
        else:
            return None  # an unconstrained entry has no plain form
    return {"$spec": entries}


def _decode_spec(body: Any) -> Any:
    """The ``PartitionSpec`` of a ``$spec``'s entries, refusing anything but names."""
    if not isinstance(body, list):
        raise WireError("malformed $spec in message: its entries are not a list")
    entries: list[Any] = []
    for entry in body:
        if entry is None or type(entry) is str:
            entries.append(entry)
        elif type(entry) is list and all(type(name) is str for name in entry):
            entries.append(tuple(entry))
        else:
            raise WireError(
                "malformed $spec in message: an entry is not None, an axis name or a list of names"
            )
    from jax.sharding import PartitionSpec

    return PartitionSpec(*entries)


def _container_base(value: Any) -> type | None:
    """list, tuple or dict when ``value`` is an instance of a subclass of one."""
    return next((b for b in _CONTAINER_BASES.values() if isinstance(value, b)), None)


def _encode_aux(aux: Any, depth: int) -> Any:
    """aux_data goes as data when it is plain, and as its text otherwise."""
    try:
        return {"value": encode(aux, depth)} if _is_plain(aux) else {"repr": _short_repr(aux)}
    except WireError:
        return {"repr": _short_repr(aux)}


def _is_plain(value: Any) -> bool:
    if value is None or type(value) in (bool, int, float, str, bytes, complex):
        return True
    if type(value) in (tuple, list, frozenset) or is_namedtuple(value):
        return all(_is_plain(v) for v in value)
    if type(value) is dict:
        return all(_is_plain(k) and _is_plain(v) for k, v in value.items())
    return False


NAMED_DTYPES = ("bfloat16", "float8_e4m3fn", "float8_e5m2")
"""The dtypes (ml_dtypes' types, which JAX uses) that ``.npy`` reads back only as raw
bytes (``|V2``): their arrays travel viewed as unsigned ints, with the dtype's name."""


def _array(tag: str, array: np.ndarray, **extra: Any) -> dict[str, Any]:
    name = array.dtype.name
    if name in NAMED_DTYPES:
        return {tag: _npy(array.view(f"u{array.dtype.itemsize}")), "dtype": name, **extra}
    return {tag: _npy(array), **extra}


def _typed(array: np.ndarray, raw: dict[str, Any]) -> np.ndarray:
    """``array`` viewed as the dtype its message names, if it names one."""
    name = raw.get("dtype")
    if name is None:
        return array
    if name not in NAMED_DTYPES:
        raise WireError(f"unknown dtype {name!r} in message")
    return array.view(_dtype_named(name))


def _npy(array: np.ndarray) -> str:
    if array.dtype.hasobject:
        raise WireError("arrays of Python objects cannot be sent")
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode()


def _is_jax_array(value: Any) -> bool:
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(value, jax.Array)


# The implementations a ``$keys`` value may name (``jax.random.key_impl``'s names).
KEY_IMPLS = ("threefry2x32", "rbg", "unsafe_rbg")


def _custom_node(value: Any) -> tuple[list[Any], Any] | None:
    """Children and aux_data of ``value`` if JAX has it registered as a pytree node."""
    tree_util = sys.modules.get("jax.tree_util")
    if tree_util is None:
        return None
    try:
        children, treedef = tree_util.tree_flatten(value, is_leaf=lambda x: x is not value)
        node_data = treedef.node_data()
    except Exception:
        return None
    if node_data is None:
        return None
    return list(children), node_data[1]


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<repr failed: {type(exc).__name__}>"
    if not isinstance(text, str):
        text = "<repr returned a non-string>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


# --- decoding ---------------------------------------------------------------

# Decoding is bounded because the worker, and so every message it sends, is the
# learner's: a cell can write any bytes to the pipe. The limits have a wide margin
# over what the course needs. Grading solutions/ (841 replies) and exercises/
# measured: the largest reply 4803 bytes (the largest request the grader sends, 9190),
# at most 148 values in one reply, 16 JSON levels (8 levels of values), 2 distinct
# class names in one reply and 20 in the whole course.
MAX_VALUES = 50_000
"""Values (containers, leaves, keys) in one message; also bounds the JSON it is read from."""
MAX_NAMES_PER_MESSAGE = 32
"""Distinct ``$namedtuple`` / ``$node`` / ``$subclass`` / ``$object`` names in one message."""
MAX_NAMES_PER_NOTEBOOK = 128
"""Distinct names, and so classes made for them, in one notebook's messages."""
DECODE_SECONDS = 2.0
"""Time to decode one message; within the other limits it takes milliseconds."""


def decode(raw: Any, *, jax_arrays: bool = False, learner: dict[str, Any] | None = None) -> Any:
    """Rebuild a value from :func:`encode`'s output, within the limits above.

    An ``$object`` becomes an instance of an empty class of the same name, and a
    ``$node`` an instance of a :class:`RemoteNode` subclass of the same name (see
    :class:`Classes`). A ``$learner`` name is looked up in ``learner`` (the
    notebook's namespace, on the worker's side); without it, or for a name it
    lacks, decoding fails. A message over a limit raises :class:`WireError`
    naming the limit.
    """
    return _Decoder(jax_arrays, learner, _classes).decode(raw, 0)


class _Decoder:
    """One message's decoding, with what it has spent of its budget."""

    def __init__(self, jax_arrays: bool, learner: dict[str, Any] | None, classes: Classes) -> None:
        self.jax_arrays = jax_arrays
        self.learner = learner
        self.classes = classes
        self.values = 0
        self.names: set[tuple[str, Any]] = set()
        self.deadline = time.monotonic() + DECODE_SECONDS

    def spend(self) -> None:
        self.values += 1
        if self.values > MAX_VALUES:
            raise WireError(f"the message holds more than {MAX_VALUES} values (the limit)")
        if self.values % 256 == 0:
            self.check_time()

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise WireError(f"decoding the message took over {DECODE_SECONDS:g} s (the limit)")

    def named(self, key: tuple[str, Any]) -> None:
        """Count a class name the message uses."""
        self.check_time()
        self.names.add(key)
        if len(self.names) > MAX_NAMES_PER_MESSAGE:
            raise WireError(
                f"the message names more than {MAX_NAMES_PER_MESSAGE} distinct classes (the limit)"
            )

    def decode(self, raw: Any, depth: int) -> Any:
        if depth > MAX_DEPTH + 1:
            raise WireError(f"the message is nested deeper than {MAX_DEPTH} levels (the limit)")
        self.spend()
        if raw is None or isinstance(raw, bool | int | float | str):
            return raw
        again = lambda item: self.decode(item, depth + 1)  # noqa: E731
        if isinstance(raw, list):
            return [again(v) for v in raw]
        if not isinstance(raw, dict) or not raw:
            raise WireError(f"unexpected value in message: {type(raw).__name__}")
        tag = next(iter(raw))
        body = raw[tag]
        try:
            match tag:
                case "$tuple":
                    return tuple(again(v) for v in body)
                case "$dict":
                    return {again(k): again(v) for k, v in body}
                case "$ordereddict":
                    return collections.OrderedDict((again(k), again(v)) for k, v in body)
                case "$defaultdict":
                    name = raw["factory"]
                    factory = None if name is None else DEFAULT_FACTORIES[str(name)]
                    return collections.defaultdict(factory, ((again(k), again(v)) for k, v in body))
                case "$namedtuple":
                    key = (str(body), tuple(str(f) for f in raw["fields"]))
                    qualname = str(raw.get("qualname", body))
                    self.named(("$namedtuple", (*key, qualname)))
                    cls = self.classes.namedtuple(*key, qualname=qualname)
                    return cls(*(again(v) for v in raw["values"]))
                case "$set":
                    return {again(v) for v in body}
                case "$range":
                    return range(*(int(v) for v in body))
                case "$float":
                    return float({"nan": "nan", "inf": "inf", "-inf": "-inf"}[body])
                case "$complex":
                    return complex(float(again(body[0])), float(again(body[1])))
                case "$bytes":
                    return base64.b64decode(body)
                case "$scalar":
                    return _typed(_load_npy(body), raw)[()]
                case "$array":
                    array = _typed(_load_npy(body), raw)
                    if self.jax_arrays and raw.get("jax"):
                        import jax.numpy as jnp

                        return jnp.asarray(array)
                    return array
                case "$keys":
                    # Typed keys have no NumPy form: they arrive as keys on both sides.
                    impl = str(raw["impl"])
                    if impl not in KEY_IMPLS:
                        raise WireError(f"unknown PRNG key implementation {impl!r} in message")
                    import jax

                    return jax.random.wrap_key_data(_load_npy(body), impl=impl)
                case "$node":
                    qualname = str(raw.get("qualname", body))
                    self.named(("$node", (str(body), qualname)))
                    aux_raw = raw["aux"]
                    aux = (
                        again(aux_raw["value"]) if "value" in aux_raw else AuxText(aux_raw["repr"])
                    )
                    cls = self.classes.node(str(body), qualname=qualname)
                    return cls([again(c) for c in raw["children"]], aux)
                case "$shapedtype":
                    import jax

                    dtype = _dtype_named(str(raw["dtype"]))
                    shape = tuple(int(n) for n in body)
                    return jax.ShapeDtypeStruct(shape, dtype, weak_type=bool(raw["weak"]))
                case "$spec":
                    return _decode_spec(body)
                case "$subclass":
                    base = _CONTAINER_BASES[str(raw["base"])]
                    self.named(("$subclass", (str(body), base.__name__)))
                    cls = self.classes.subclass(str(body), base)
                    if base is dict:
                        return cls((again(k), again(v)) for k, v in raw["items"])
                    return cls(again(v) for v in raw["items"])
                case "$object":
                    self.named(("$object", str(body)))
                    return self.classes.empty(str(body))()
                case "$learner":
                    if self.learner is None:
                        raise WireError("a $learner name is only read by the worker")
                    if str(body) not in self.learner:
                        raise Unresolved(str(body))
                    return self.learner[str(body)]
        except WireError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise WireError(f"malformed {tag} in message: {exc}") from None
        raise WireError(f"unknown tag {tag!r} in message")


def count_values(text: bytes) -> int:
    """At least the number of values JSON ``text`` holds, counted without parsing it.

    Every value but the first follows a ``[``, ``{``, ``,`` or ``:``; those bytes
    inside strings only make the count larger. Used to refuse a message before
    ``json.loads`` spends memory on it.
    """
    return 1 + sum(text.count(byte) for byte in (b"[", b"{", b",", b":"))


def _dtype_named(name: str) -> np.dtype:
    """The NumPy dtype called ``name`` (JAX's own, such as bfloat16, included)."""
    import jax.numpy as jnp

    try:
        dtype = jnp.dtype(name)
    except (TypeError, ValueError):
        raise WireError(f"unknown dtype {name!r} in message") from None
    if not isinstance(dtype, np.dtype) or dtype.hasobject or dtype.name != name:
        raise WireError(f"unknown dtype {name!r} in message")
    return dtype


def _load_npy(text: str) -> np.ndarray:
    return np.load(io.BytesIO(base64.b64decode(text)), allow_pickle=False)


class AuxText(str):
    """aux_data that was not plain data, known only by its ``repr``."""


class RemoteNode:
    """Stand-in for a learner's custom pytree node: same class name, same children and aux."""

    def __init__(self, children: list[Any], aux: Any) -> None:
        self.children = children
        self.aux = aux

    def __repr__(self) -> str:
        return f"{type(self).__name__}(children={self.children!r}, aux={self.aux!r})"


# RemoteNode subclasses registered with JAX that no notebook uses now. JAX's public
# API has no way to unregister a pytree node, so a registered class lives as long
# as the process; instead of making new ones, a notebook reuses these under its own
# names. The process then holds at most as many as one notebook may name
# (MAX_NAMES_PER_NOTEBOOK, per notebook open at once).
_FREE_NODES: list[type] = []


class Classes:
    """The classes decoding makes for one notebook's messages, one per distinct name.

    Equal names get the same class, so equal results have equal treedefs. At most
    ``limit`` names; :meth:`close` drops the classes (and gives the node classes
    back for reuse), so none outlives the notebook.
    """

    def __init__(self, limit: int = MAX_NAMES_PER_NOTEBOOK) -> None:
        self.limit = limit
        self._made: dict[tuple[str, Any], type] = {}

    def namedtuple(self, name: str, fields: tuple[str, ...], qualname: str | None = None) -> type:
        """A namedtuple class per (name, fields, qualname)."""

        def make() -> type:
            cls = collections.namedtuple(name, fields, module="submission")  # type: ignore[misc]
            cls.__qualname__ = qualname or name
            return cls

        return self._get(("$namedtuple", (name, fields, qualname or name)), make)

    def empty(self, name: str) -> type:
        """An empty class called ``name``: an unregistered object, so a leaf."""
        return self._get(("$object", name), lambda: type(name, (), {"__module__": "submission"}))

    def subclass(self, name: str, base: type) -> type:
        """A subclass called ``name`` of list, tuple or dict: unregistered, so a leaf."""
        return self._get(
            ("$subclass", (name, base.__name__)),
            lambda: type(name, (base,), {"__module__": "submission"}),
        )

    def node(self, name: str, qualname: str | None = None) -> type:
        """A :class:`RemoteNode` subclass called ``name``, registered with JAX."""
        return self._get(("$node", (name, qualname or name)), lambda: _node_class(name, qualname))

    def _get(self, key: tuple[str, Any], make: Callable[[], type]) -> type:
        if key not in self._made:
            if len(self._made) >= self.limit:
                raise WireError(
                    f"the notebook's messages name more than {self.limit} distinct classes "
                    "(the limit)"
                )
            self._made[key] = make()
        return self._made[key]

    def close(self) -> None:
        """Drop every class made here; the node classes become free for reuse."""
        _FREE_NODES.extend(cls for (kind, _), cls in self._made.items() if kind == "$node")
        self._made.clear()


def _node_class(name: str, qualname: str | None = None) -> type:
    if _FREE_NODES:
        cls = _FREE_NODES.pop()
        try:
            cls.__name__ = name
            cls.__qualname__ = qualname or name
        except (TypeError, ValueError):
            _FREE_NODES.append(cls)
            raise
        return cls
    cls = type(name, (RemoteNode,), {"__module__": "submission", "__qualname__": qualname or name})
    import jax

    jax.tree_util.register_pytree_node(
        cls,
        lambda node: (node.children, node.aux),
        lambda aux, children: cls(list(children), aux),
    )
    return cls


_classes = Classes()
"""The classes of messages decoded outside :func:`notebook_classes`."""


def forget_classes() -> None:
    """Drop the classes of messages decoded outside :func:`notebook_classes` (at most 128
    names are made: a long-lived process drops one job's before the next)."""
    _classes.close()


@contextlib.contextmanager
def notebook_classes() -> Iterator[Classes]:
    """Decode with classes of their own while inside; they are dropped on leaving."""
    global _classes
    previous, _classes = _classes, Classes()
    try:
        yield _classes
    finally:
        _classes.close()
        _classes = previous
