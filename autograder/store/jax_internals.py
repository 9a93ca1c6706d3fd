"""Which compiled modules in the compile store hold JAX's own code and nothing else.

The only module of the package that reads JAX's private modules or replaces one
of JAX's functions: :data:`PRIVATE_NAMES` lists every private name it relies on,
:func:`missing` says which of them a JAX release no longer has (a test fails on
it, naming the version), and filling the store checks it first and gives up,
saying so, rather than fill a store it cannot judge. (The watchers of
:mod:`autograder.learner.watchers` wrap JAX's *public* functions, such as
``jax.vmap``, for the length of one call; nothing else in the package patches
JAX.)

The store may keep no executable that carries course code (see
:mod:`autograder.grade.fill_store`), and a compiled module's name (``jit_stack``) does
not tell: a course function may share its name with one of JAX's, a jitted
callable object has no name at all, and one of JAX's own functions may compile
a function it was handed (``lax.map(f, xs)``, ``jnp.piecewise``).

So while the store is filled, the workers that run the reference solutions
record, for every module they lower, whether it is JAX's own (``jax``) or may
hold other code (``code``). A module is JAX's own when, in the traced function
and in every function nested in it:

- the function is defined in JAX's source;
- every operation was made by JAX's source (no frame from elsewhere between
  the operation and the traced function);
- every operation is a primitive whose lowering rules are the ones registered
  before any course code ran;
- every parameter is plain data (numbers, strings, dtypes, tuples of them,
  a few of JAX's sharding descriptions) or a nested function held to the
  same rules;
- no function closes over constants, which would be built into the module;
- no lowering rule has been replaced or added since recording began, and no
  custom differentiation, batching or solver rule has been made.

So that a course function cannot hide inside JAX's code by being inlined into
it, the reference run stages every jit of anything but JAX's own code as a call
of its own.

JAX offers no public hook on lowering, so :func:`record_lowerings` wraps an
internal function and reads internal tables. Every way this can go wrong fails
closed: a module it cannot judge is ``code``, and a record that cannot be read,
or no records at all, make :func:`read_kinds` return None, and the grader then
uses no store.
"""

from __future__ import annotations

import enum
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    # read
    ("jax._src.core", "Jaxpr"),
    ("jax._src.core", "ClosedJaxpr"),
    ("jax._src.dispatch", "xla_primitive_callable"),
    ("jax._src.interpreters.mlir", "_lowerings"),
    ("jax._src.interpreters.mlir", "_platform_specific_lowerings"),
    ("jax._src.mesh", "Mesh"),
    ("jax._src.named_sharding", "UnspecifiedValue"),
    ("jax._src.named_sharding", "NamedSharding"),
    ("jax._src.lib.mlir", "ir.StringAttr"),
    ("jax._src.interpreters.mlir", "LoweringParameters"),
    # replaced, or wrapped in place
    ("jax._src.interpreters.pxla", "lower_sharding_computation"),
    ("jax._src.interpreters.partial_eval", "custom_staging_rules"),
    ("jax._src.pjit", "jit_p"),
    ("jax._src.custom_derivatives", "custom_jvp"),
    ("jax._src.custom_derivatives", "custom_vjp"),
    ("jax._src.custom_batching", "custom_vmap"),
    ("jax.lax", "custom_root"),
    ("jax.lax", "custom_linear_solve"),
)
"""Every (module, name) of JAX this module relies on, beyond JAX's documented API."""
_GONE = object()

JAX, CODE, UNREADABLE = "jax", "code", "unreadable"
RECORD_GLOB = "provenance-*.jsonl"
PLAIN_TYPES = (type(None), bool, int, float, str)

Rules = dict[tuple[str, Any], Any]


def missing() -> list[str]:
    """The names of :data:`PRIVATE_NAMES`, and the facts about them read below, that this
    JAX lacks; empty when recording can work."""
    import importlib

    gone = []
    for module_name, name in PRIVATE_NAMES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            gone.append(f"{module_name} (the module)")
            continue
        value: Any = module
        for part in name.split("."):
            value = getattr(value, part, _GONE)
        if value is _GONE:
            gone.append(f"{module_name}.{name}")
    if not gone:
        from jax._src import dispatch, pjit
        from jax._src.interpreters import mlir
        from jax._src.interpreters import partial_eval as pe

        try:
            _eager_dispatch(dispatch)
        except (AttributeError, ValueError):
            gone.append("jax._src.dispatch.xla_primitive_callable's inner prim_fun")
        if pjit.jit_p not in pe.custom_staging_rules:
            gone.append("jax._src.interpreters.partial_eval.custom_staging_rules[jit_p]")
        if "cpu" not in mlir._platform_specific_lowerings:
            gone.append("jax._src.interpreters.mlir._platform_specific_lowerings['cpu']")
        gone += _missing_in_use()
    return gone


def _missing_in_use() -> list[str]:
    """What the judge reads of a lowering and of a traced jaxpr, tried on a tiny function."""
    import inspect

    import jax
    from jax._src.interpreters import mlir, pxla

    gone = []
    if "lowering_parameters" not in inspect.signature(pxla.lower_sharding_computation).parameters:
        gone.append("the lowering_parameters argument of lower_sharding_computation")
    if not hasattr(mlir.LoweringParameters(), "override_lowering_rules"):
        gone.append("jax._src.interpreters.mlir.LoweringParameters.override_lowering_rules")
    jaxpr = jax.make_jaxpr(lambda x: x + 1)(1.0).jaxpr
    try:
        _defined_at(jaxpr)
    except AttributeError:
        gone.append("a jaxpr's debug_info.func_src_info")
    try:
        [frame.file_name for eqn in jaxpr.eqns for frame in eqn.source_info.traceback.frames]
    except AttributeError:
        gone.append("an equation's source_info.traceback.frames[].file_name")
    return gone


def jax_version() -> str:
    """The installed JAX and jaxlib, as a report names them."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"jax {version('jax')}, jaxlib {version('jaxlib')}"
    except PackageNotFoundError:
        return "an unknown JAX"


def record_lowerings(folder: str) -> None:
    """Append the kind of every module this process and its forks lower to a file in ``folder``.

    For the reference run's zygote only, before any course code runs: the
    lowering rules registered now are the ones trusted as JAX's. Records each
    module name and kind once per process.
    """
    import jax
    import jaxlib
    import numpy
    from jax._src import core, dispatch, pjit
    from jax._src.interpreters import mlir, pxla
    from jax._src.interpreters import partial_eval as pe

    lower = pxla.lower_sharding_computation
    judge = _Judge(
        sources=tuple(os.path.dirname(m.__file__) + os.sep for m in (jax, jaxlib)),
        eager_dispatch=_eager_dispatch(dispatch),
        rules=_lowering_rules(mlir),
        rules_now=lambda: _lowering_rules(mlir),
        jaxpr_types=(core.Jaxpr, core.ClosedJaxpr),
        scalar_types=(enum.Enum, numpy.dtype, numpy.number, numpy.bool_),
        data_types=_jax_data_types(),
    )
    written: set[tuple[str | None, str]] = set()

    def recording(closed_jaxpr: Any, *args: Any, **kwargs: Any) -> Any:
        lowered = lower(closed_jaxpr, *args, **kwargs)
        try:
            name: str | None = _module_name(lowered)
            overridden = getattr(kwargs.get("lowering_parameters"), "override_lowering_rules", 0)
            kind = JAX if overridden is None and judge.jax_own(closed_jaxpr) else CODE
        except Exception:  # noqa: BLE001 - an unreadable lowering spoils the whole record
            name, kind = None, UNREADABLE
        if (name, kind) not in written:
            _append(folder, {"module": name, "kind": kind})
            written.add((name, kind))
        return lowered

    pxla.lower_sharding_computation = recording
    _keep_course_jits_visible(judge, pjit, pe)
    _notice_course_rules(judge)


def read_kinds(folder: Path) -> dict[str, set[str]] | None:
    """Every module name the records in ``folder`` mention, with the kinds it was lowered as.

    None when there are no records, or any record is unreadable: then what the
    store holds is unknown.
    """
    kinds: dict[str, set[str]] = {}
    paths = list(folder.glob(RECORD_GLOB))
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return None
        for line in lines:
            try:
                record = json.loads(line)
                name, kind = record["module"], record["kind"]
            except (ValueError, KeyError, TypeError):
                return None
            if not isinstance(name, str) or kind not in (JAX, CODE):
                return None
            kinds.setdefault(name, set()).add(kind)
    return kinds if paths else None


def remove_records(folder: Path) -> None:
    """Delete the records: workers that read the store have no use for them."""
    for path in folder.glob(RECORD_GLOB):
        path.unlink()


class _Judge:
    """Decides whether a jaxpr is JAX's own code (the rules in the module's docstring)."""

    def __init__(
        self,
        sources: tuple[str, ...],
        eager_dispatch: tuple[str, int],
        rules: Rules,
        rules_now: Callable[[], Rules],
        jaxpr_types: tuple[type, ...],
        scalar_types: tuple[type, ...],
        data_types: tuple[type, ...],
    ) -> None:
        self.sources = sources
        self.eager_dispatch = eager_dispatch  # where JAX's function binding one primitive is
        self.rules = rules
        self.primitives = {primitive for _platform, primitive in rules}  # JAX's own
        self.rules_now = rules_now
        self.jaxpr_types = jaxpr_types
        self.scalar_types = scalar_types  # enums, dtypes and numpy scalars, if JAX's or numpy's
        self.data_types = PLAIN_TYPES + data_types  # exact types of plain parameters
        self.course_rules = False  # see _notice_course_rules

    def jax_own(self, closed_jaxpr: Any) -> bool:
        """Whether ``closed_jaxpr`` and every jaxpr nested in it hold JAX's own code only."""
        return not self.course_rules and self._rules_unchanged() and self._plain(closed_jaxpr)

    def _rules_unchanged(self) -> bool:
        """Whether JAX's primitives still have exactly the rules they had when recording began.

        A JAX rule may lower through other primitives' current rules, so any change
        counts. New primitives (JAX registers some when a module of it is first
        imported) are no change: a module using one is code anyway.
        """
        now = self.rules_now()
        added = any(key not in self.rules and key[1] in self.primitives for key in now)
        return not added and all(now.get(key) is rule for key, rule in self.rules.items())

    def _own(self, jaxpr: Any) -> bool:
        """Whether ``jaxpr`` (without its constants) holds JAX's own code only."""
        function = _defined_at(jaxpr)
        if function is None or not function[0].startswith(self.sources):
            return False
        # JAX's eager dispatch binds one primitive by construction, and may bind it
        # under the frames of the code that called it (as gradients do)
        eager = function == self.eager_dispatch and len(jaxpr.eqns) <= 1
        return all(
            eqn.primitive in self.primitives
            and (eager or self._emitted_by_jax(eqn))
            and all(self._plain(value) for value in eqn.params.values())
            for eqn in jaxpr.eqns
        )

    def _emitted_by_jax(self, eqn: Any) -> bool:
        """Whether every frame of ``eqn``'s traceback is in JAX's source.

        JAX records the frames from where an operation was made out to the
        function being traced, so code from elsewhere that made the operation
        inside it leaves its frame there.
        """
        traceback = eqn.source_info.traceback
        return traceback is not None and all(
            frame.file_name.startswith(self.sources) for frame in traceback.frames
        )

    def _plain(self, value: Any) -> bool:
        """Whether ``value`` is data, or a function (closing over nothing) of JAX's own code."""
        if isinstance(value, self.jaxpr_types):
            # constants a function closes over are built into its executable
            return not getattr(value, "consts", ()) and self._own(getattr(value, "jaxpr", value))
        if isinstance(value, tuple) and (type(value) is tuple or _jax_type(type(value))):
            return all(self._plain(item) for item in value)
        if isinstance(value, self.scalar_types):
            return _jax_type(type(value))
        return type(value) in self.data_types


def _keep_course_jits_visible(judge: _Judge, pjit: Any, pe: Any) -> None:
    """Stage every jit of anything but JAX's own code as a call, never inlined.

    Inlining (``jax.jit(f, inline=True)``) would stamp ``f``'s operations with its
    caller's frames, so ``f`` called from JAX's code would pass for JAX's own.
    """
    stage = pe.custom_staging_rules[pjit.jit_p]

    def staging(trace: Any, source_info: Any, *args: Any, **params: Any) -> Any:
        if params.get("inline") and not judge.jax_own(params["jaxpr"]):
            params = {**params, "inline": False}
        return stage(trace, source_info, *args, **params)

    pe.custom_staging_rules[pjit.jit_p] = staging


def _notice_course_rules(judge: _Judge) -> None:
    """From the first custom differentiation, batching or solver rule made now, judge all as code.

    JAX runs such a rule while it transforms the operation the rule belongs to,
    with that operation's traceback, so what the rule makes looks made by
    whoever called the operation, possibly JAX's own code. The rules JAX
    defines for itself are made when it is imported, before recording begins.
    """
    from jax import lax
    from jax._src import custom_batching, custom_derivatives

    def noticing(make: Callable[..., Any]) -> Callable[..., Any]:
        def made(*args: Any, **kwargs: Any) -> Any:
            judge.course_rules = True
            return make(*args, **kwargs)

        return made

    for kind in (custom_derivatives.custom_jvp, custom_derivatives.custom_vjp):
        kind.__init__ = noticing(kind.__init__)
    custom_batching.custom_vmap.__init__ = noticing(custom_batching.custom_vmap.__init__)
    lax.custom_root = noticing(lax.custom_root)
    lax.custom_linear_solve = noticing(lax.custom_linear_solve)


def _defined_at(jaxpr: Any) -> tuple[str, int] | None:
    """The file and first line of the function traced into ``jaxpr``, if known."""
    _name, at, location = jaxpr.debug_info.func_src_info.partition(" at ")
    file, _colon, line = location.rpartition(":")
    return (file, int(line)) if at and line.isdigit() else None


def _eager_dispatch(dispatch: Any) -> tuple[str, int]:
    """The file and first line of the function JAX jits to run one primitive eagerly."""
    (code,) = [
        const
        for const in dispatch.xla_primitive_callable.__wrapped__.__code__.co_consts
        if getattr(const, "co_name", None) == "prim_fun"
    ]
    return code.co_filename, code.co_firstlineno


def _jax_type(kind: type) -> bool:
    """Whether ``kind`` is defined by JAX or by the array libraries it builds on."""
    return kind.__module__.split(".")[0] in ("jax", "jaxlib", "numpy", "ml_dtypes")


def _jax_data_types() -> tuple[type, ...]:
    """JAX's types of parameters that describe where arrays live: data, never code."""
    from jax._src import mesh, named_sharding

    return (named_sharding.UnspecifiedValue, named_sharding.NamedSharding, mesh.Mesh)


def _lowering_rules(mlir: Any) -> Rules:
    """The lowering rule of every primitive, for any platform and for the CPU."""
    rules = {("any", prim): rule for prim, rule in mlir._lowerings.items()}
    cpu = mlir._platform_specific_lowerings["cpu"]
    return rules | {("cpu", prim): rule for prim, rule in cpu.items()}


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
