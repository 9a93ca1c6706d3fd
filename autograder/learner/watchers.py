"""Watchers: what a test cell may ask of a learner's code besides its return values.

A test that checks the idea a chapter teaches (a helper that must be traced once
per static value, ``jax.vmap`` given an ``in_axes`` tree, ``jax.grad`` taken over
a whole tree) needs to watch the learner's code run, not only read its result.
Each watcher here takes the learner's functions and plain data, runs the learner's
code, and answers with plain data only (numbers, strings, ``None``, lists,
tuples and dicts), so the same test cell works in both places it runs:

- in the learner's kernel (``check`` and ``nbgrader autograde``), where the
  watcher is this module's function, called on the learner's real objects;
- in the grader, where the test cell's namespace holds stand-ins: the watcher's
  name and arguments travel to the learner's worker, the watcher runs there, and
  only its plain answer comes back (:mod:`autograder.grade.plugin`).

Watchers use JAX's public API only. They import nothing of the grading machinery.
"""

from __future__ import annotations

import _thread
import contextlib
import functools
import gc
import importlib
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import CodeType, FrameType, FunctionType
from typing import Any, NamedTuple

WATCHERS: dict[str, Callable[..., Any]] = {}


def is_namedtuple(value: Any) -> bool:
    """A namedtuple instance: a tuple whose type has a tuple of ``_fields``."""
    return isinstance(value, tuple) and isinstance(getattr(type(value), "_fields", None), tuple)


def is_key_array(value: Any) -> bool:
    """A JAX array of typed PRNG keys, which has no NumPy form."""
    jax = sys.modules.get("jax")
    return (
        jax is not None
        and isinstance(value, jax.Array)
        and jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key)
    )


class WatcherError(Exception):
    """The notebook lacks what a watcher needs (a helper by its name, a plain ``jax.jit``).

    Raised as one of the subclasses below. The grader never shows the message, which
    reaches it from the learner's worker: it shows the course's own text for the
    subclass's name (:mod:`autograder.compare.verdicts`).
    """


class HelperMissing(WatcherError):
    """A helper the test names (``inside``, an API of the notebook) is not defined."""


class HelperNotJitted(WatcherError):
    """The helper ``count_traces`` watches is not a jitted function."""


class HelperStatic(WatcherError):
    """The helper ``count_traces`` watches is jitted with static or donated arguments."""


class NotANotebookFunction(WatcherError):
    """The function a watcher was given is not one the notebook defines."""


class WatchUntrusted(WatcherError):
    """The learner's code changed how Python runs it (its profile hook, threads left running
    or started past the hook), so the calls it made could not all be seen."""


def watcher(function: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``function`` as a watcher that test cells may call."""
    WATCHERS[function.__name__] = function
    return function


@watcher
def count_traces(
    function: Callable[..., Any], calls: Sequence[Sequence[Any]], *, inside: str
) -> list[int]:
    """Call ``function(*args)`` for each ``args`` in ``calls``; say how often ``inside`` traced.

    ``inside`` names a jitted helper of the learner's notebook (a module-level
    ``@jax.jit`` function that ``function`` calls by name), or ``function``'s own
    name when it is itself jitted. For the duration of the calls the helper is
    replaced by a fresh ``jax.jit`` of the same Python function that counts its
    traces, so earlier calls do not count. The answer has one entry per call: how
    many times the helper's Python body ran during it (0 when a compiled trace was
    reused, or when the helper was not called). Raises :class:`WatcherError` when
    ``inside`` is missing, is not jitted, or is jitted with static or donated arguments.
    """
    import jax

    namespace = _globals_of(function)
    jitted = _learner_name(namespace, inside)
    body = getattr(jitted, "__wrapped__", None)
    if body is None or not hasattr(jitted, "trace"):
        raise HelperNotJitted(f"{inside} is not a jitted function: keep its @jax.jit decorator")
    traces = 0

    @functools.wraps(body)
    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal traces
        traces += 1
        return body(*args, **kwargs)

    counted = jax.jit(counting)
    checked = False

    def helper(*args: Any, **kwargs: Any) -> Any:
        nonlocal checked
        if not checked:
            checked = True
            _require_plain_jit(jitted, inside, args, kwargs)
        return counted(*args, **kwargs)

    counts = []
    with _replaced(namespace, {inside: helper}):
        call = helper if function is jitted else function
        for args in calls:
            before = traces
            call(*args)
            counts.append(traces - before)
    return counts


@watcher
def watch_calls(
    function: Callable[..., Any],
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    apis: Sequence[str],
) -> list[dict[str, Any]]:
    """Call ``function(*args, **kwargs)`` and record its calls of the ``apis``.

    An API is a dotted name of a public function (``"jax.vmap"``, ``"jax.grad"``)
    or the name of a function of the learner's notebook (``"_eval_at_points"``).
    A JAX function is watched however the learner's code reaches it: as
    ``jax.vmap``, through an alias bound in the notebook (``from jax import
    vmap``), from another of the learner's functions, or through a reference held
    anywhere (a default argument, a closure, a container). Calls a library makes
    of its own functions are not the learner's and are not recorded. JAX's caches
    are cleared first, so code that ``jit`` compiled earlier runs its Python again.

    Returns one record per call, in the order they happened:
    ``{"api": name, "arguments": {parameter: description}}``, with the arguments
    bound to the API's parameter names (defaults left out; for a call that
    reached the function other than by its name, an argument that is the
    default object itself counts as left out) and each one described by
    :func:`describe`. Raises :class:`WatcherError` when the learner's code
    removed the watch while it ran.
    """
    return _watched_call(function, args, kwargs, apis)[1]


@watcher
def watch_calls_and_result(
    function: Callable[..., Any],
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    apis: Sequence[str],
) -> dict[str, Any]:
    """:func:`watch_calls`, and what the watched call returned: ``{"calls": [records],
    "result": value}``.

    Code can tell it is watched (the profile hook is set) and do something else while
    it is, so a test that watches how a function works checks the result of the same
    call too: the function must both give the right answer and make no forbidden call.
    """
    result, records = _watched_call(function, args, kwargs, apis)
    return {"calls": records, "result": result}


def _watched_call(
    function: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any] | None,
    apis: Sequence[str],
) -> tuple[Any, list[dict[str, Any]]]:
    """What ``function(*args, **kwargs)`` returned, and its calls of the ``apis``
    (see :func:`watch_calls`)."""
    import jax

    namespace = _globals_of(function)
    records: list[dict[str, Any]] = []
    replacements: list[tuple[Any, str, Any]] = []
    watched: dict[Any, _Watched] = {}
    for api in apis:
        owner, attribute, original, method_of = _locate(api, namespace)
        spy = _spy(api, original, records, method_of)
        replacements.append((owner, attribute, spy))
        if owner is not namespace and method_of is None:
            aliases = [name for name, value in namespace.items() if value is original]
            replacements += [(namespace, name, spy) for name in aliases]
        target = _watch_target(original)
        if target is not None:
            package = None if owner is namespace else api.split(".")[0]
            layers = _wrapper_codes(original)
            watched.setdefault(target, _Watched(api, _signature(original), package, layers))
    jax.clear_caches()
    with contextlib.ExitStack() as stack:
        for owner, attribute, spy in replacements:
            stack.enter_context(_replaced(owner, {attribute: spy}))
        with _profiled(watched, records):
            result = function(*args, **(kwargs or {}))
    return result, records


@watcher
def round_trip(function: Callable[..., Any], args: Sequence[Any] = ()) -> Any:
    """``function(*args)`` flattened and unflattened again by JAX, in the learner's process.

    A custom node that crosses to the grader is read through its flatten function
    only; this runs the learner's unflatten too (``jax.tree.map`` of the identity
    rebuilds every node), so a test sees what ``jit``, ``grad`` or ``tree.map``
    would give back: a wrong ``tree_unflatten`` shows in the result's aux_data or
    children.
    """
    import jax

    identity = jax.tree.map(lambda leaf: leaf, function(*args))
    return identity


@watcher
def arguments_after(function: Callable[..., Any], args: Sequence[Any] = ()) -> list[Any]:
    """``args`` as they are after ``function(*args)`` returned, in the learner's process.

    A function that changes what it was given (pops entries off a dict, sorts a
    list in place) shows it here: the test compares the answer with what it sent.
    In the learner's kernel the arguments are the test cell's own objects, so pass
    copies (``dict(flat)``) and compare the answer with the originals.
    """
    arguments = list(args)
    function(*arguments)
    return arguments


@watcher
def leaf_types(function: Callable[..., Any], args: Sequence[Any] = ()) -> Any:
    """``function(*args)`` with each leaf replaced by its type's name, in the learner's process.

    Arrays cross to the grader as NumPy arrays, so a test cannot tell there whether
    the learner returned a NumPy or a JAX array; this answers ``"jax.Array"`` for a
    JAX array and ``"module.Name"`` for anything else (``"numpy.ndarray"``).
    """
    import jax

    def name(leaf: Any) -> str:
        if isinstance(leaf, jax.Array):
            return "jax.Array"
        return f"{type(leaf).__module__}.{type(leaf).__qualname__}"

    return jax.tree.map(name, function(*args))


@watcher
def kept_for_backward(function: Callable[..., Any], args: Sequence[Any] = ()) -> list[Any]:
    """The arrays the forward pass of ``function(*args)`` keeps for the backward pass.

    Runs ``jax.vjp(function, *args)`` in the learner's process. The backward function
    it returns is a pytree (a ``jax.tree_util.Partial``) whose leaves are the values
    kept, those ``jax.ad_checkpoint.print_saved_residuals`` lists: the arguments
    the backward pass reads, and what a ``jax.checkpoint`` policy saves. They are
    answered as a list in no promised order; a test looks among them for a value,
    which ``print_saved_residuals`` (shapes and origins only) cannot show.
    """
    import jax

    _, backward = jax.vjp(function, *args)
    return jax.tree.leaves(backward)


def spec_entries(spec: Any) -> list[Any]:
    """A ``PartitionSpec``'s entries without trailing ``None``s, which lay out nothing."""
    entries = list(spec)
    while entries and entries[-1] is None:
        entries.pop()
    return entries


@watcher
def leaf_shardings(function: Callable[..., Any], args: Sequence[Any] = ()) -> Any:
    """``function(*args)`` with each leaf replaced by where it lives, in the learner's process.

    Arrays cross to the grader as NumPy arrays, without their sharding; this answers,
    per leaf, ``{"spec": PartitionSpec, "mesh": {axis name: size, ...}, "axis_types":
    ("Explicit", ...)}`` for a JAX array laid out over a mesh (a ``NamedSharding``; the
    spec without trailing ``None`` entries, which lay out nothing, so ``P("data", None)``
    is ``P("data")``; the type of each of the mesh's axes, in its order, since a mesh of
    ``Auto`` axes holds the same blocks as one of ``Explicit`` axes and behaves
    otherwise), ``"single device"`` for a JAX array on one device, and ``"not a
    jax.Array"`` for anything else.
    """
    import jax

    def layout(leaf: Any) -> Any:
        if not isinstance(leaf, jax.Array):
            return "not a jax.Array"
        sharding = leaf.sharding
        if isinstance(sharding, jax.sharding.NamedSharding):
            mesh = {str(name): int(size) for name, size in sharding.mesh.shape.items()}
            return {
                "spec": jax.sharding.PartitionSpec(*spec_entries(sharding.spec)),
                "mesh": mesh,
                "axis_types": tuple(kind.name for kind in sharding.mesh.axis_types),
            }
        if isinstance(sharding, jax.sharding.SingleDeviceSharding):
            return "single device"
        return type(sharding).__name__

    return jax.tree.map(layout, function(*args))


def describe(value: Any, depth: int = 0) -> Any:
    """``value`` as plain data that says what a call was given.

    Numbers, strings, bools, ``None`` and ``PartitionSpec``s (plain data on the
    wire) stay as they are; lists, tuples and
    dicts are described item by item (a namedtuple as a tuple); an array, or a
    tracer standing for one, is ``"<array float32[3]>"``; a function is
    ``"<function name>"``; anything else is ``"<TypeName>"``.
    """
    if value is None or type(value) in (bool, int, float, str):
        return value
    sharding = sys.modules.get("jax.sharding")
    if sharding is not None and type(value) is sharding.PartitionSpec:
        return value
    if depth > 16:
        return "<...>"
    if type(value) in (list, tuple) or is_namedtuple(value):
        items = [describe(item, depth + 1) for item in value]
        return items if type(value) is list else tuple(items)
    if type(value) is dict:
        return {key: describe(item, depth + 1) for key, item in value.items()}
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None:
        return f"<array {dtype}[{','.join(map(str, shape))}]>"
    if inspect.isfunction(value) or inspect.ismethod(value) or inspect.isbuiltin(value):
        return f"<function {getattr(value, '__name__', '?')}>"
    return f"<{type(value).__name__}>"


def _globals_of(function: Callable[..., Any]) -> dict[str, Any]:
    """The namespace the learner's ``function`` looks its helpers up in."""
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    namespace = getattr(function, "__globals__", None)
    if not isinstance(namespace, dict):
        raise NotANotebookFunction(f"{function!r} is not a function defined in the notebook")
    return namespace


def _learner_name(namespace: dict[str, Any], name: str) -> Any:
    if name not in namespace:
        raise HelperMissing(
            f"{name} is not defined: keep the helper the exercise gives, by its name"
        )
    return namespace[name]


def _require_plain_jit(jitted: Any, name: str, args: Any, kwargs: Any) -> None:
    """Refuse a helper jitted with static or donated arguments: :func:`count_traces`
    re-jits its body without them, and would count it as if it had none (a donating
    helper deletes its caller's arrays, which the re-jitted one would keep)."""
    import jax

    try:
        traced = jitted.trace(*args, **kwargs)
    except Exception:  # noqa: BLE001 - the helper's own errors show when it runs
        return
    if len(traced.jaxpr.in_avals) != len(jax.tree.leaves((args, kwargs))):
        raise HelperStatic(f"{name} keeps some arguments static: keep its plain @jax.jit")
    if _donates(traced):
        raise HelperStatic(f"{name} donates some arguments: keep its plain @jax.jit")


def _donates(traced: Any) -> bool:
    """Whether the traced helper donates an argument. ``args_info`` rebuilds the
    arguments' tree with its own leaves: a node whose ``tree_unflatten`` insists on
    arrays cannot be rebuilt so, and is then taken as not donating (its traces are
    still counted, as before donations were refused)."""
    import jax

    try:
        return any(info.donated for info in jax.tree.leaves(traced.args_info))
    except Exception:  # noqa: BLE001 - the learner's tree_unflatten
        return False


def _locate(api: str, namespace: dict[str, Any]) -> tuple[Any, str, Any, str | None]:
    """Where ``api`` lives: (namespace, module or type, attribute, the function it held when
    the notebook's cells had not yet run, the package whose own calls of it are left out).

    An API is a learner's name, a module's function (``"jax.tree.leaves"``) or a method
    of an object a module holds (``"jax.tree_util.default_registry.flatten"``). A method
    is watched on the object's type, so that every instance's calls are seen, and its
    library's own calls (JAX flattens trees all the time) are left out.
    """
    if "." not in api:
        return namespace, api, _learner_name(namespace, api), None
    parts = api.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        break
    else:
        raise ImportError(f"no module holds {api}")
    for attribute in parts[cut:-1]:
        owner = _before_cells(owner, attribute)
    if inspect.ismodule(owner):
        return owner, parts[-1], _before_cells(owner, parts[-1]), None
    kind = type(owner)
    return kind, parts[-1], getattr(kind, parts[-1]), parts[0]


def _before_cells(module: Any, attribute: str) -> Any:
    """``module``'s ``attribute`` as it was before the notebook's cells ran, where the
    worker remembered it (see :func:`remember_before_cells`), else as it is."""
    saved = _BEFORE.modules.get(getattr(module, "__name__", None), {}) if _BEFORE else {}
    return saved[attribute] if attribute in saved else getattr(module, attribute)


def _signature(function: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


def _spy(
    api: str,
    original: Callable[..., Any],
    records: list[dict[str, Any]],
    package: str | None = None,
) -> Any:
    """A stand-in for ``original`` that records each call, but those ``package`` makes."""
    signature = _signature(original)

    @functools.wraps(original)
    def watched(*args: Any, **kwargs: Any) -> Any:
        if package and _from_library(sys._getframe(1), package):
            return original(*args, **kwargs)
        arguments: dict[str, Any]
        try:
            bound = signature.bind(*args, **kwargs) if signature else None
            arguments = dict(bound.arguments) if bound else {"args": args, **kwargs}
        except TypeError:
            arguments = {"args": args, **kwargs}
        records.append({"api": api, "arguments": describe(arguments)})
        return original(*args, **kwargs)

    return watched


_SPY_CODE = _spy("", len, []).__code__
"""The code of every spy :func:`_spy` makes: a call from it was recorded by the spy."""


class _Watched(NamedTuple):
    """One API as :func:`_profiled` sees it: by the code its Python body runs, or the
    builtin itself."""

    api: str
    signature: inspect.Signature | None
    package: str | None  # the library whose own calls of it are not the learner's
    layers: frozenset[CodeType]  # decorators' wrappers around the body (functools.wraps)


def _watch_target(original: Callable[..., Any]) -> CodeType | Callable[..., Any] | None:
    """What identifies ``original`` when it runs however it was reached: the code object of
    its innermost Python body, a builtin itself, or None (watched by its names only: a
    ``jax.jit`` object, say, whose Python body runs only when it traces)."""
    if inspect.isbuiltin(original):
        return original
    if not inspect.isfunction(original):
        return None
    inner = inspect.unwrap(original, stop=lambda f: not inspect.isfunction(f.__wrapped__))
    return inner.__code__


def _wrapper_codes(original: Callable[..., Any]) -> frozenset[CodeType]:
    codes = set()
    while inspect.isfunction(getattr(original, "__wrapped__", None)):
        code = getattr(original, "__code__", None)
        if isinstance(code, CodeType):
            codes.add(code)
        original = original.__wrapped__
    return frozenset(codes)


def _from_library(frame: FrameType, package: str) -> bool:
    """Whether ``frame`` runs code of ``package`` itself, as imported: its file and module
    must be the package's and, in the worker, its code one that was loaded before the
    notebook's cells ran (see :func:`remember_library_code`). A cell's function that
    borrowed a module's globals, its file name, or the code of one of its functions
    (``__code__.replace``) is the learner's, and so are the calls it makes."""
    if _LIBRARY_CODE is not None and frame.f_code not in _LIBRARY_CODE:
        return False
    module = sys.modules.get(str(frame.f_globals.get("__name__", "")))
    if module is None or getattr(module, "__dict__", None) is not frame.f_globals:
        return False
    home = _package_folder(package)
    return home is not None and frame.f_code.co_filename.startswith(home)


@functools.cache
def _package_folder(package: str) -> str | None:
    file = getattr(sys.modules.get(package), "__file__", None)
    return os.path.dirname(file) + os.sep if file else None


def _frame_arguments(frame: FrameType, signature: inspect.Signature | None) -> dict[str, Any]:
    """The arguments a Python call received, read from its new frame. Defaults are not
    told apart from the same object passed on purpose, and are left out."""
    values = frame.f_locals
    if signature is None:
        return {}
    arguments = {}
    for name, parameter in signature.parameters.items():
        if name not in values:
            continue
        value = values[name]
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            if value:
                arguments[name] = value
        elif value is not parameter.default:
            arguments[name] = value
    return arguments


class _Before(NamedTuple):
    """What the worker holds before the notebook's cells run (:func:`remember_before_cells`)."""

    threads: frozenset[int]  # the Python threads, by ident
    modules: dict[str, dict[str, Any]]  # the namespace of each of JAX's public modules


_BEFORE: _Before | None = None
_LIBRARY_CODE: frozenset[CodeType] | None = None


def remember_library_code() -> None:
    """Remember the code of every Python function loaded so far, and the code nested in it
    (inner functions, lambdas): JAX's and the other libraries', none of it a learner's.

    Called where the workers fork from, after the imports and before any learner cell
    runs (:func:`remember_before_cells` calls it where it was not): a code object made
    later, whatever file name and globals it borrows, is not taken for a library's own.
    """
    global _LIBRARY_CODE
    import jax.flatten_util  # noqa: F401 - a module test cells watch; its code is remembered

    found: set[CodeType] = set()
    pending = [f.__code__ for f in gc.get_objects() if type(f) is FunctionType]
    while pending:
        code = pending.pop()
        if code not in found:
            found.add(code)
            pending += [const for const in code.co_consts if type(const) is CodeType]
    _LIBRARY_CODE = frozenset(found)


def _public_jax(name: str) -> bool:
    return (name == "jax" or name.startswith("jax.")) and "._" not in name


def remember_before_cells() -> None:
    """Remember the Python threads and JAX's public modules, before any learner cell runs.

    Called by the grader's worker, not in a learner's kernel (where the kernel's own
    threads run). From then on a watcher watches the functions JAX's modules held here,
    whatever a cell put in their place (:func:`changed_since_before_cells` tells which),
    and refuses to answer while a thread the cells started runs: the profile hook would
    not see its calls.
    """
    global _BEFORE
    import jax

    if _LIBRARY_CODE is None:
        remember_library_code()
    modules = {
        name: dict(vars(module))
        for name, module in list(sys.modules.items())
        if _public_jax(name) and module is not None
    }
    _BEFORE = _Before(frozenset(sys._current_frames()), modules)
    del jax


def changed_since_before_cells() -> list[str]:
    """The functions and values of JAX's public modules (``"jax.tree.leaves"``) that the
    cells replaced or removed since :func:`remember_before_cells`; [] when not called."""
    if _BEFORE is None:
        return []
    changed = []
    for name, saved in _BEFORE.modules.items():
        module = sys.modules.get(name)
        now = getattr(module, "__dict__", {})
        changed += [
            f"{name}.{attribute}"
            for attribute, value in saved.items()
            if not attribute.startswith("__") and now.get(attribute, _GONE) is not value
        ]
    return sorted(changed)


_GONE = object()


def registry_methods_held(namespace: dict[str, Any]) -> list[str]:
    """The methods of JAX's tree registries (``"jax.tree_util.default_registry.flatten"``)
    that ``namespace`` holds already bound, by a name or as a default argument or closure
    variable of one of its functions.

    A watch replaces such a method on the registry's type, which a method bound before
    the call does not look up again: a call through it is not seen.
    """
    import jax

    registry = _before_cells(jax.tree_util, "default_registry")
    bound_method = type(registry.flatten)  # a C++ method bound to its object
    held = set()
    for value in list(namespace.values()):
        for candidate in [value, *_held_by(value)]:
            # type() is the object's own, never the learner's code: checked before reading
            if type(candidate) is bound_method and isinstance(candidate.__self__, type(registry)):
                held.add(f"jax.tree_util.default_registry.{candidate.__name__}")
    return sorted(held)


def _held_by(value: Any) -> list[Any]:
    """A function's default arguments and closure variables; nothing for anything else."""
    if type(value) is not FunctionType:
        return []
    held = [*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values()]
    for cell in value.__closure__ or ():
        with contextlib.suppress(ValueError):  # a variable not yet bound
            held.append(cell.cell_contents)
    return held


def _threads_the_cells_left() -> set[int]:
    if _BEFORE is None:
        return set()
    return set(sys._current_frames()) - _BEFORE.threads - {threading.get_ident()}


class _Watch:
    """One watched call: whether something changed the hooks while it ran."""

    tampered = False


_WATCHING: list[_Watch] = []
# A profile hook set or removed by any means (sys.setprofile, or the C function behind
# it reached with ctypes) raises the first audit event; ctypes raises the second only
# for a function pointer it calls by address, not for a library's functions.
_AUDITED = ("sys.setprofile", "ctypes.call_function")


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook, added when this module is imported (before any learner cell runs in
    the worker; audit hooks cannot be removed): marks the running watches when a profile
    hook changes, except where a thread that ``threading`` starts sets the watch's hook."""
    if not _WATCHING or event not in _AUDITED:
        return
    if event == "sys.setprofile" and sys._getframe(1).f_code is _THREAD_BOOTSTRAP:
        return
    for watch in _WATCHING:
        watch.tampered = True


_THREAD_BOOTSTRAP = threading.Thread._bootstrap_inner.__code__  # type: ignore[attr-defined]
sys.addaudithook(_audit)

# Ways to start a thread past threading (which sets the watch's hook in the threads it starts).
_THREAD_STARTERS = tuple(
    getattr(_thread, name)
    for name in ("start_new_thread", "start_joinable_thread", "start_new")
    if hasattr(_thread, name)
)

_PROFILE_SETTERS = (sys.setprofile, threading.setprofile)


@contextlib.contextmanager
def _profiled(watched: dict[Any, _Watched], records: list[dict[str, Any]]) -> Iterator[None]:
    """Record calls of ``watched`` made in the block however they were reached.

    A spy replaces an API where it is named (see :func:`watch_calls`), but a reference
    held elsewhere (``def f(tree, _leaves=jax.tree.leaves)``) reaches the function
    itself. Python's profile hook sees every call by its code object (or, for a
    builtin, the ``c_call`` of the object), whatever the reference. A call from a spy
    is already recorded; a call the API's own library makes is not the learner's.
    The hook is set for this thread and for threads ``threading`` starts in the block.
    Raises :class:`WatchUntrusted` when the hook could have missed calls: learner code
    set or removed a profile hook (``sys.setprofile``, ``threading.setprofile``, or
    ctypes), called a function pointer by address through ctypes, started a thread
    past ``threading``, or
    (in the worker) a thread the cells started runs before or after the block.
    """
    if not watched:
        yield
        return
    codes = {target: w for target, w in watched.items() if isinstance(target, CodeType)}
    builtins = {id(target): w for target, w in watched.items() if not isinstance(target, CodeType)}
    setters = {id(setter) for setter in _PROFILE_SETTERS if inspect.isbuiltin(setter)}
    setters |= {id(starter) for starter in _THREAD_STARTERS}
    setter_codes = {setter.__code__ for setter in _PROFILE_SETTERS if inspect.isfunction(setter)}
    watch = _Watch()

    def record(w: _Watched, caller: FrameType | None, arguments: dict[str, Any]) -> None:
        while caller is not None and caller.f_code in w.layers:
            caller = caller.f_back
        if caller is not None and caller.f_code is _SPY_CODE:
            return
        if caller is not None and w.package and _from_library(caller, w.package):
            return
        records.append({"api": w.api, "arguments": describe(arguments)})

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if code in setter_codes:
                watch.tampered = True
            w = codes.get(code)
            if w is not None:
                record(w, frame.f_back, _frame_arguments(frame, w.signature))
        elif event == "c_call":
            key = id(arg)
            if key in setters and frame.f_globals is not vars(threading):
                watch.tampered = True
            w = builtins.get(key)
            if w is not None:
                record(w, frame, {})

    if _threads_the_cells_left():
        raise _untrusted()
    before = sys.getprofile()
    threading.setprofile(hook)
    sys.setprofile(hook)
    _WATCHING.append(watch)
    try:
        yield
    finally:
        _WATCHING.remove(watch)
        # read before the hook sees the grader's own call of sys.setprofile
        removed = watch.tampered or sys.getprofile() is not hook
        sys.setprofile(before)
        threading.setprofile(None)  # type: ignore[arg-type]
    if removed or _threads_the_cells_left():
        raise _untrusted()


def _untrusted() -> WatchUntrusted:
    return WatchUntrusted(
        "the notebook's code changed Python's profile hook, used ctypes, or left threads "
        "running while it was watched, so its calls could not be checked"
    )


@contextlib.contextmanager
def _replaced(owner: Any, values: dict[str, Any]) -> Iterator[None]:
    """Set names of a dict or attributes of a module for the duration of the block."""
    is_dict = isinstance(owner, dict)
    saved = {name: owner[name] if is_dict else getattr(owner, name) for name in values}
    for name, value in values.items():
        if is_dict:
            owner[name] = value
        else:
            setattr(owner, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            if is_dict:
                owner[name] = value
            else:
                setattr(owner, name, value)
