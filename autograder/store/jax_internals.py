"""How the reference run hears of the calls JAX compiles: the one module touching JAX's internals.

JAX has no public hook on compiling, so :func:`record_calls` wraps two of its
internal functions: the one that jits a primitive bound eagerly, and the one a
jitted function calls when it must trace and compile for new arguments. Each
wrapper writes the call down as plain data (:mod:`autograder.store.calls`) and
hands it on unchanged.

:data:`PRIVATE_NAMES` lists every private name this relies on, :func:`missing`
says which of them a JAX release no longer has (a test fails on it, naming the
version), and filling the store checks it first and, when anything is gone,
grades without a store and says why. What a record may hold is checked again
when it is replayed, so a hook that records the wrong thing makes a smaller
store, never an unsafe one. (The watchers of :mod:`autograder.learner.watchers`
wrap JAX's *public* functions, such as ``jax.vmap``, for the length of one
call; nothing else in the package patches JAX.)
"""

from __future__ import annotations

import inspect
import os
import uuid
from pathlib import Path
from typing import Any

from autograder.store import calls

PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("jax._src.dispatch", "xla_primitive_callable"),
    ("jax._src.pjit", "_run_python_pjit"),
)
"""Every (module, name) of JAX this module relies on, beyond JAX's documented API."""
RUN_JIT_PARAMETERS = ["p", "args_flat", "fun", "args", "kwargs"]
_GONE = object()


def missing() -> list[str]:
    """The names of :data:`PRIVATE_NAMES`, and the facts about them used here, this JAX lacks."""
    import importlib

    gone = []
    for module_name, name in PRIVATE_NAMES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            gone.append(f"{module_name} (the module)")
            continue
        if getattr(module, name, _GONE) is _GONE:
            gone.append(f"{module_name}.{name}")
    if not gone:
        from jax._src import pjit

        if list(inspect.signature(pjit._run_python_pjit).parameters) != RUN_JIT_PARAMETERS:
            gone.append(f"jax._src.pjit._run_python_pjit({', '.join(RUN_JIT_PARAMETERS)})")
    return gone


def jax_version() -> str:
    """The installed JAX and jaxlib, as a report names them."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"jax {version('jax')}, jaxlib {version('jaxlib')}"
    except PackageNotFoundError:
        return "an unknown JAX"


def record_calls(folder: str) -> None:
    """From now on, write every call this process and its forks compile to a file in ``folder``.

    For the reference run's zygote only. Records each call once per process; a
    call that cannot be written down as plain data is left out.
    """
    from jax._src import dispatch, pjit

    primitive_callable = dispatch.xla_primitive_callable
    run_jit = pjit._run_python_pjit
    written: set[str] = set()

    def write(make: Any, *parts: Any) -> None:
        try:
            line = calls.to_line(make(*parts))
        except calls.NotPlain:
            return
        if line not in written:
            written.add(line)
            _append(folder, line)

    def recording_primitive(primitive: Any, **params: Any) -> Any:
        compiled = primitive_callable(primitive, **params)

        def call(*args: Any) -> Any:
            write(calls.primitive_record, primitive.name, args, params)
            return compiled(*args)

        return call

    def recording_jit(p: Any, args_flat: Any, fun: Any, args: Any, kwargs: Any) -> Any:
        write(calls.jit_record, fun, args, kwargs)
        return run_jit(p, args_flat, fun, args, kwargs)

    dispatch.xla_primitive_callable = recording_primitive
    pjit._run_python_pjit = recording_jit


_own_file: dict[int, Path] = {}


def _append(folder: str, line: str) -> None:
    """Append ``line`` to this process's own file in ``folder``, with one unbuffered write.

    One write, because a worker may be killed at any moment; a file per process
    named at random, because workers in different sandboxes can share a pid.
    """
    path = _own_file.get(os.getpid())
    if path is None:
        name = calls.RECORD_GLOB.replace("*", uuid.uuid4().hex)
        path = _own_file[os.getpid()] = Path(folder) / name
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(descriptor, line.encode())
    finally:
        os.close(descriptor)
