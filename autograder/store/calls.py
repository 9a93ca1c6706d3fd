"""JAX calls written down as plain data, and replayed from it.

A record names one of JAX's own jitted functions (by its module and qualified
name) or one of JAX's primitives (by its name), with the arguments of one call
as plain data: an array as its shape, dtype and weak type (never its values);
Python numbers, strings and None; dtypes; JAX's and NumPy's enums and named
tuples; tuples and lists of these. A call with anything else among its
arguments (a function, an object, a tracer) cannot be written down and is not
recorded.

Replaying looks names up only inside JAX and NumPy and hands every function
arrays of zeros, so whatever a record says, a replay runs JAX's own code on
shapes and nothing else. That is what makes the compile store safe by
construction (see :mod:`autograder.grade.fill_store`).

Uses JAX's public API only: the hooks that produce records are in
:mod:`autograder.store.jax_internals`.
"""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

RECORD_GLOB = "calls-*.jsonl"
TRUSTED_PACKAGES = ("jax", "jaxlib", "numpy", "ml_dtypes")
PLAIN_TYPES = (type(None), bool, int, float, complex, str)

Record = dict[str, Any]


class NotPlain(Exception):
    """A value that cannot be written down as plain data, or a record that cannot be replayed."""


def jit_record(
    function: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> Record:
    """The record of a call of the jitted ``function`` (the function ``jax.jit`` wrapped).

    Raises :class:`NotPlain` unless ``function`` is reachable from a JAX module as
    the jitted function that wraps it, and every argument is plain data.
    """
    module, name = getattr(function, "__module__", None), getattr(function, "__qualname__", "")
    found = _jitted(str(module), name)
    if not (
        getattr(found, "__wrapped__", None) is function
        or getattr(found, "__name__", None) == getattr(function, "__name__", "")  # a ufunc
    ):
        raise NotPlain(f"{module}.{name} is not the function this jit wraps")
    return {
        "jit": [module, name],
        "args": [encode(arg) for arg in args],
        "kwargs": {key: encode(value) for key, value in kwargs.items()},
    }


def primitive_record(name: str, args: Sequence[Any], params: Mapping[str, Any]) -> Record:
    """The record of primitive ``name`` bound eagerly to ``args`` with ``params``."""
    return {
        "primitive": name,
        "args": [encode(arg) for arg in args],
        "params": {key: encode(value) for key, value in params.items()},
    }


def encode(value: Any) -> Any:
    """``value`` as JSON data; raises :class:`NotPlain` for anything but the kinds above."""
    import jax
    import numpy

    if type(value) in PLAIN_TYPES:
        return {"complex": [value.real, value.imag]} if type(value) is complex else value
    if isinstance(value, jax.core.Tracer):
        raise NotPlain("a traced value")
    if isinstance(value, jax.Array):
        aval = jax.typeof(value)
        return {"array": [list(aval.shape), _dtype_name(aval.dtype), aval.weak_type]}
    if isinstance(value, numpy.ndarray):
        return {"ndarray": [list(value.shape), _dtype_name(value.dtype)]}
    if isinstance(value, numpy.generic):
        return {"scalar": [_dtype_name(value.dtype), encode(value.item())]}
    if isinstance(value, numpy.dtype):
        return {"dtype": _dtype_name(value)}
    if isinstance(value, type) and _trusted(value.__module__) and hasattr(value, "dtype"):
        return {"dtype": _dtype_name(value)}  # a scalar type: numpy.float32, jnp.bfloat16
    if type(value) in (tuple, list):
        return {type(value).__name__: [encode(item) for item in value]}
    kind = type(value)
    if _trusted(kind.__module__) and isinstance(value, enum.Enum):
        return {"enum": [kind.__module__, kind.__qualname__, value.name]}
    if _trusted(kind.__module__) and isinstance(value, tuple) and hasattr(kind, "_fields"):
        return {"named": [kind.__module__, kind.__qualname__, [encode(item) for item in value]]}
    raise NotPlain(f"a {kind.__module__}.{kind.__qualname__}")


def decode(plain: Any) -> Any:
    """The value :func:`encode` wrote down, with zeros for every array."""
    import jax
    import numpy

    if not isinstance(plain, dict):
        if type(plain) not in PLAIN_TYPES or type(plain) is complex:
            raise NotPlain(f"not a plain value: {plain!r}")
        return plain
    ((kind, value),) = plain.items()
    if kind == "array":
        shape, dtype, weak = value
        if not weak:
            return jax.numpy.zeros(shape, _dtype(dtype))
        # A weak type comes only from a Python number; broadcasting one keeps it.
        made = jax.lax.broadcast(numpy.zeros((), _dtype(dtype)).item(), tuple(shape))
        if jax.typeof(made).dtype != _dtype(dtype) or not jax.typeof(made).weak_type:
            raise NotPlain(f"no weakly typed {dtype} array")
        return made
    if kind == "ndarray":
        return numpy.zeros(value[0], _dtype(value[1]))
    if kind == "scalar":
        return _dtype(value[0]).type(decode(value[1]))
    if kind == "complex":
        return complex(*value)
    if kind == "dtype":
        return _dtype(value)
    if kind in ("tuple", "list"):
        return (tuple if kind == "tuple" else list)(decode(item) for item in value)
    if kind == "enum":
        enumeration = _resolve(value[0], value[1])
        if not (isinstance(enumeration, type) and issubclass(enumeration, enum.Enum)):
            raise NotPlain(f"{value[0]}.{value[1]} is not an enum")
        return enumeration[value[2]]
    if kind == "named":
        named = _resolve(value[0], value[1])
        if not (isinstance(named, type) and issubclass(named, tuple) and hasattr(named, "_fields")):
            raise NotPlain(f"{value[0]}.{value[1]} is not a named tuple")
        return named(*map(decode, value[2]))
    raise NotPlain(f"unknown kind {kind!r}")


def replay(record: Record, primitives: Mapping[str, Any]) -> None:
    """Make the call ``record`` describes, on zeros; raises :class:`NotPlain` if it cannot."""
    args = [decode(arg) for arg in record["args"]]
    if "primitive" in record:
        primitive = primitives.get(record["primitive"])
        if primitive is None:
            raise NotPlain(f"no primitive of JAX's is named {record['primitive']!r}")
        primitive.bind(*args, **{key: decode(value) for key, value in record["params"].items()})
        return
    function = _jitted(*record["jit"])
    function(*args, **{key: decode(value) for key, value in record["kwargs"].items()})


def jax_primitives() -> dict[str, Any]:
    """JAX's own primitives by name, from its public modules; a name two share is left out."""
    import jax.extend.core.primitives
    import jax.lax
    from jax.extend.core import Primitive

    found: dict[str, set[Any]] = {}
    for module in (jax.extend.core.primitives, jax.lax):
        for value in vars(module).values():
            if isinstance(value, Primitive):
                found.setdefault(value.name, set()).add(value)
    return {name: next(iter(prims)) for name, prims in found.items() if len(prims) == 1}


def to_line(record: Record) -> str:
    """One line of a record file, the same for the same call."""
    return json.dumps(record, sort_keys=True) + "\n"


def _jitted(module: str, name: str) -> Any:
    """JAX's jitted function, or ``jax.numpy.ufunc``, named ``name`` in ``module``.

    Only these are ever called: a jitted function traces its arguments' shapes,
    so it runs JAX's operations and nothing of the caller's, and a ufunc calls
    the jitted function it was made from.
    """
    import jax

    found = _resolve(module, name) if module.split(".")[0] == "jax" else None
    if isinstance(found, jax.numpy.ufunc) or (
        callable(found) and hasattr(found, "lower") and hasattr(found, "__wrapped__")
    ):
        return found
    raise NotPlain(f"{module}.{name} is not one of JAX's jitted functions")


def _resolve(module: str, name: str) -> Any:
    """The object named ``name`` in ``module``, looked up inside JAX and NumPy only.

    Only a module already imported is looked in: importing one runs its code, and
    some of JAX's and NumPy's run more than definitions (``numpy.f2py.__main__``
    starts a command-line tool). A record names a module its recording process
    had imported, and JAX's modules are imported by ``import jax`` itself: the
    replay imports it before it reads any record.
    """
    if not _trusted(module) or "<" in name:
        raise NotPlain(f"{module}.{name} is not JAX's or NumPy's")
    found: Any = sys.modules.get(module)
    if found is None:
        raise NotPlain(f"{module} is not imported")
    try:
        for part in name.split("."):
            found = getattr(found, part)
    except AttributeError as exc:
        raise NotPlain(f"{module}.{name} cannot be found") from exc
    return found


def _trusted(module: str) -> bool:
    return module.split(".")[0] in TRUSTED_PACKAGES


def _dtype_name(dtype: Any) -> str:
    import numpy

    try:
        return numpy.dtype(dtype).name
    except TypeError as exc:  # JAX's extended dtypes (random keys) are not NumPy's
        raise NotPlain(f"the dtype {dtype}") from exc


def _dtype(name: str) -> Any:
    """The dtype named ``name``: NumPy's, or one JAX adds (bfloat16 and the like)."""
    import jax.numpy
    import numpy

    try:
        return numpy.dtype(name)
    except TypeError:
        kind = getattr(jax.numpy, name, None)
        if kind is None:
            raise NotPlain(f"no dtype is named {name!r}") from None
        return numpy.dtype(kind)
