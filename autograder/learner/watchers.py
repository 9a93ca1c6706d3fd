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

import contextlib
import functools
import importlib
import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

WATCHERS: dict[str, Callable[..., Any]] = {}


def is_namedtuple(value: Any) -> bool:
    """A namedtuple instance: a tuple whose type has a tuple of ``_fields``."""
    return isinstance(value, tuple) and isinstance(getattr(type(value), "_fields", None), tuple)


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
    """The helper ``count_traces`` watches is jitted with static arguments."""


class NotANotebookFunction(WatcherError):
    """The function a watcher was given is not one the notebook defines."""


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
    ``inside`` is missing, is not jitted, or is jitted with static arguments.
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
    A JAX function is watched wherever the learner's code reaches it: as
    ``jax.vmap``, through an alias bound in the notebook (``from jax import
    vmap``) or from another of the learner's functions. JAX's caches are cleared
    first, so code that ``jit`` compiled earlier runs its Python again.

    Returns one record per call, in the order they happened:
    ``{"api": name, "arguments": {parameter: description}}``, with the arguments
    bound to the API's parameter names (defaults left out) and each one described
    by :func:`describe`.
    """
    import jax

    namespace = _globals_of(function)
    records: list[dict[str, Any]] = []
    replacements: list[tuple[Any, str, Any]] = []
    for api in apis:
        owner, attribute, original = _locate(api, namespace)
        spy = _spy(api, original, records)
        replacements.append((owner, attribute, spy))
        if owner is not namespace:
            aliases = [name for name, value in namespace.items() if value is original]
            replacements += [(namespace, name, spy) for name in aliases]
    jax.clear_caches()
    with contextlib.ExitStack() as stack:
        for owner, attribute, spy in replacements:
            stack.enter_context(_replaced(owner, {attribute: spy}))
        function(*args, **(kwargs or {}))
    return records


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


def describe(value: Any, depth: int = 0) -> Any:
    """``value`` as plain data that says what a call was given.

    Numbers, strings, bools and ``None`` stay as they are; lists, tuples and
    dicts are described item by item (a namedtuple as a tuple); an array, or a
    tracer standing for one, is ``"<array float32[3]>"``; a function is
    ``"<function name>"``; anything else is ``"<TypeName>"``.
    """
    if value is None or type(value) in (bool, int, float, str):
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
    """Refuse a helper jitted with static arguments: :func:`count_traces` re-jits its
    body without them, and would count it as if it had none."""
    import jax

    try:
        inputs = len(jitted.trace(*args, **kwargs).jaxpr.in_avals)
    except Exception:  # noqa: BLE001 - the helper's own errors show when it runs
        return
    if inputs != len(jax.tree.leaves((args, kwargs))):
        raise HelperStatic(f"{name} keeps some arguments static: keep its plain @jax.jit")


def _locate(api: str, namespace: dict[str, Any]) -> tuple[Any, str, Any]:
    """Where ``api`` lives: (namespace or module, attribute, current value)."""
    if "." not in api:
        return namespace, api, _learner_name(namespace, api)
    module_name, _, attribute = api.rpartition(".")
    module = importlib.import_module(module_name)
    return module, attribute, getattr(module, attribute)


def _spy(api: str, original: Callable[..., Any], records: list[dict[str, Any]]) -> Any:
    try:
        signature: inspect.Signature | None = inspect.signature(original)
    except (TypeError, ValueError):
        signature = None

    @functools.wraps(original)
    def watched(*args: Any, **kwargs: Any) -> Any:
        arguments: dict[str, Any]
        try:
            bound = signature.bind(*args, **kwargs) if signature else None
            arguments = dict(bound.arguments) if bound else {"args": args, **kwargs}
        except TypeError:
            arguments = {"args": args, **kwargs}
        records.append({"api": api, "arguments": describe(arguments)})
        return original(*args, **kwargs)

    return watched


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
