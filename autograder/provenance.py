"""What each compiled module in the compile store is: a bare JAX primitive, or may hold code.

The store keeps no executable that could carry course code (see
:mod:`autograder.compiled`). By its name alone a compiled module (``jit_stack``)
says neither whether a course function shares the name of one of JAX's
primitives (the course's ``stack`` and ``jnp.stack``) nor whether one of JAX's
own operations took course code as a parameter (``lax.map(f, xs)`` compiles
``f`` into ``jit_scan``).

So while the store is filled, the workers that run the reference solutions
record one of three kinds for every module they lower:

- ``primitive``: JAX's eager dispatch of one of its own primitives, registered
  before any course code ran, whose parameters are plain data (numbers, strings,
  dtypes, tuples of them), or of a primitive that had nothing to do. It holds
  no course code whatever it is called.
- ``code``: an eager dispatch with any other parameter (a jaxpr, a function,
  a serialized module, anything not plain data). It may hold course code
  whatever it is called.
- ``other``: anything else, such as a jitted function; only its name tells.

JAX offers no public hook on lowering, so :func:`record_lowerings` wraps an
internal function and reads internal tables. Every way this can go wrong fails
closed: a lowering that cannot be read, a record that cannot be parsed or no
records at all make :func:`read_kinds` return None, and the grader then uses no
store.
"""

from __future__ import annotations

import enum
import json
import os
import uuid
from pathlib import Path
from typing import Any

PRIMITIVE, CODE, OTHER, UNREADABLE = "primitive", "code", "other", "unreadable"
RECORD_GLOB = "provenance-*.jsonl"
PLAIN_SCALARS = (type(None), bool, int, float, str, enum.Enum)


def record_lowerings(folder: str) -> None:
    """Append the kind of every module this process and its forks lower to a file in ``folder``.

    For the reference run's zygote only, before any course code runs: the
    primitives and lowering rules registered now are the ones trusted as JAX's.
    Records the kind once per module name and kind in each process.
    """
    import jax
    import numpy
    from jax._src.interpreters import mlir, pxla

    lower = pxla.lower_sharding_computation
    jax_rules = _lowering_rules(mlir)
    dispatch = os.path.join(os.path.dirname(jax.__file__), "_src", "dispatch.py")
    plain = (*PLAIN_SCALARS, numpy.dtype, numpy.number, numpy.bool_)
    written: set[tuple[str | None, str]] = set()

    def recording(closed_jaxpr: Any, *args: Any, **kwargs: Any) -> Any:
        lowered = lower(closed_jaxpr, *args, **kwargs)
        try:
            name: str | None = _module_name(lowered)
            kind = _kind(closed_jaxpr.jaxpr, dispatch, jax_rules, _lowering_rules(mlir), plain)
        except Exception:  # noqa: BLE001 - an unreadable lowering spoils the whole record
            name, kind = None, UNREADABLE
        if (name, kind) not in written:
            _append(folder, {"module": name, "kind": kind})
            written.add((name, kind))
        return lowered

    pxla.lower_sharding_computation = recording


def read_kinds(folder: Path) -> dict[str, set[str]] | None:
    """Every module name the records in ``folder`` mention, with the kinds it was lowered as.

    None when there are no records, or any record is unreadable: then what the
    store holds is unknown.
    """
    kinds: dict[str, set[str]] = {}
    paths = list(folder.glob(RECORD_GLOB))
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
                name, kind = record["module"], record["kind"]
            except (ValueError, KeyError, TypeError):
                return None
            if not isinstance(name, str) or kind not in (PRIMITIVE, CODE, OTHER):
                return None
            kinds.setdefault(name, set()).add(kind)
    return kinds if paths else None


def remove_records(folder: Path) -> None:
    """Delete the records: workers that read the store have no use for them."""
    for path in folder.glob(RECORD_GLOB):
        path.unlink()


def _lowering_rules(mlir: Any) -> dict[tuple[str, Any], Any]:
    """The lowering rule of every primitive, for any platform and for the CPU."""
    rules = {("any", prim): rule for prim, rule in mlir._lowerings.items()}
    cpu = mlir._platform_specific_lowerings["cpu"]
    return rules | {("cpu", prim): rule for prim, rule in cpu.items()}


def _kind(
    jaxpr: Any,
    dispatch: str,
    jax_rules: dict[tuple[str, Any], Any],
    rules_now: dict[tuple[str, Any], Any],
    plain: tuple[type, ...],
) -> str:
    """The kind (see the module's docstring) of the module lowered from ``jaxpr``."""
    where = jaxpr.debug_info.func_src_info
    _name, at, location = where.partition(" at ")
    if not at or location.rsplit(":", 1)[0] != dispatch:
        return OTHER
    if len(jaxpr.eqns) > 1:
        return CODE
    for eqn in jaxpr.eqns:  # none when the primitive had nothing to do (a cast to the same type)
        if not all(_plain(value, plain) for value in eqn.params.values()):
            return CODE
        own_rules = all(
            rules_now.get((platform, eqn.primitive)) is jax_rules.get((platform, eqn.primitive))
            for platform in ("any", "cpu")
        )
        if not own_rules or not any((p, eqn.primitive) in jax_rules for p in ("any", "cpu")):
            return CODE
    return PRIMITIVE


def _plain(value: Any, plain: tuple[type, ...]) -> bool:
    """Whether ``value`` is plain data: a scalar, a dtype, or a tuple of plain data."""
    if isinstance(value, tuple):
        return all(_plain(item, plain) for item in value)
    return isinstance(value, plain)


def _module_name(lowered: Any) -> str:
    """The name JAX files the compiled module under in the store."""
    from jax._src.lib.mlir import ir

    return ir.StringAttr(lowered.stablehlo().operation.attributes["sym_name"]).value


_own_file: dict[int, Path] = {}


def _append(folder: str, record: dict[str, Any]) -> None:
    """Append ``record`` to this process's own file in ``folder``, with one unbuffered write.

    One write, because a worker may be killed at any moment; a file per process
    named at random, because workers in different sandboxes can share a pid.
    """
    path = _own_file.get(os.getpid())
    if path is None:
        path = _own_file[os.getpid()] = Path(folder) / f"provenance-{uuid.uuid4().hex}.jsonl"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(descriptor, (json.dumps(record) + "\n").encode())
    finally:
        os.close(descriptor)
