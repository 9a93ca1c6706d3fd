"""Which compiled modules in the compile store are one JAX primitive applied eagerly.

The store keeps no executable of a function the course's notebooks define (see
:mod:`autograder.compiled`), and it can only tell them apart by the name of the
compiled module (``jit_stack``). Some course functions share a name with one of
JAX's primitives (the course's ``stack`` and ``jnp.stack``), so a store pruned
by name alone loses JAX's operations too, and every learner who calls them
compiles them again.

While the store is filled, the workers that run the reference solutions record,
for every module they lower, whether it is JAX's eager dispatch of a single
first-order primitive: one operation on arrays, whose parameters are shapes,
dtypes and axes, never a function. Such a module carries no course code
whatever it is called, so it may stay in the store. Anything else (a jitted
function, even one of JAX's own, which may inline a function it was handed, or
a primitive like ``scan`` that takes one) is judged by its name alone.

JAX offers no public hook on lowering, so :func:`record_lowerings` wraps an
internal function; if that function is missing, nothing is recorded and the
store is pruned by name alone, as before.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

RECORDS = "provenance-{pid}.jsonl"
RECORD_GLOB = "provenance-*.jsonl"


def record_lowerings(folder: str) -> None:
    """In this process and the ones it forks, append a record to ``folder`` per lowering.

    Only for the reference run's workers: their records decide what the store keeps.
    """
    import jax
    from jax._src import core
    from jax._src.interpreters import pxla

    lower = getattr(pxla, "lower_sharding_computation", None)
    if lower is None:
        return
    dispatch = os.path.join(os.path.dirname(jax.__file__), "_src", "dispatch.py")
    seen: set[tuple[str, bool]] = set()

    def recording(closed_jaxpr: Any, *args: Any, **kwargs: Any) -> Any:
        lowered = lower(closed_jaxpr, *args, **kwargs)
        try:
            name = _module_name(lowered)
            own = _one_eager_primitive(closed_jaxpr.jaxpr, dispatch, (core.Jaxpr, core.ClosedJaxpr))
        except Exception:  # noqa: BLE001 - an unreadable lowering is simply not JAX's own
            return lowered
        if (name, own) not in seen:
            seen.add((name, own))
            _append(Path(folder) / RECORDS.format(pid=os.getpid()), {"module": name, "jax": own})
        return lowered

    pxla.lower_sharding_computation = recording


def jax_own_modules(folder: Path) -> set[str]:
    """The module names whose every recorded lowering in ``folder`` was one eager primitive."""
    verdicts: dict[str, bool] = {}
    for path in folder.glob(RECORD_GLOB):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
                name, own = str(record["module"]), record["jax"] is True
            except (ValueError, KeyError, TypeError):
                continue
            verdicts[name] = verdicts.get(name, True) and own
    return {name for name, own in verdicts.items() if own}


def remove_records(folder: Path) -> None:
    """Delete the records: workers that read the store have no use for them."""
    for path in folder.glob(RECORD_GLOB):
        path.unlink()


def _module_name(lowered: Any) -> str:
    from jax._src.lib.mlir import ir

    return ir.StringAttr(lowered.stablehlo().operation.attributes["sym_name"]).value


def _one_eager_primitive(jaxpr: Any, dispatch: str, jaxpr_types: tuple[type, ...]) -> bool:
    """Whether ``jaxpr`` is JAX's eager dispatch of at most one first-order primitive."""
    where = getattr(jaxpr.debug_info, "func_src_info", None) or ""
    _name, at, location = where.partition(" at ")
    if not at or location.rsplit(":", 1)[0] != dispatch or len(jaxpr.eqns) > 1:
        return False
    return not any(
        _holds_code(value, jaxpr_types) for eqn in jaxpr.eqns for value in eqn.params.values()
    )


def _holds_code(value: Any, jaxpr_types: tuple[type, ...]) -> bool:
    if isinstance(value, tuple | list):
        return any(_holds_code(item, jaxpr_types) for item in value)
    return callable(value) or isinstance(value, jaxpr_types)


def _append(path: Path, record: dict[str, Any]) -> None:
    # one unbuffered write per record: a worker may be killed at any moment
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(descriptor, (json.dumps(record) + "\n").encode())
    finally:
        os.close(descriptor)
