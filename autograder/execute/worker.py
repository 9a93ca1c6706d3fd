"""The worker: the only process that runs a learner's code.

Forked by the zygote (:mod:`autograder.execute.zygote`) for each notebook, it
serves the grader's requests (:class:`autograder.execute.run.NotebookRun`) on a
pair of pipes: it reads a request from one and answers on the other.

- ``{"op": "exec", "cell": i, "source": s}`` runs cell ``i`` of the notebook;
- ``{"op": "call", "name": f, "args": [...], "kwargs": {...}}`` calls ``f`` and
  answers with its result as plain data (:mod:`autograder.execute.wire`);
- ``{"op": "shown", "name": f}`` answers ``{"ok": true, "text": t}``, ``t`` a short
  text of what the last call of ``f`` returned (:func:`autograder.compare.returned.short_repr`),
  or ``{"ok": false}`` when that call raised or there was none;
- ``{"op": "watch", "name": w, "args": [...], "kwargs": {...}}`` runs the watcher
  ``w`` of :mod:`autograder.learner.watchers` on the notebook's functions, named in the
  arguments as ``$learner`` (:mod:`autograder.execute.wire`), and answers with its result.

A call of a name the notebook does not define answers ``{"ok": false, "missing":
true, "names": [...]}`` with the callables it does define.

Nothing it sends is trusted: the grader decodes it as data and checks it there.
"""

from __future__ import annotations

import linecache
import os
import time
import traceback
from typing import Any

import jax

from autograder.compare.returned import short_repr
from autograder.execute import channel, wire
from autograder.learner.watchers import (
    WATCHERS,
    changed_since_before_cells,
    registry_methods_held,
    remember_before_cells,
)
from autograder.load.learner_notebook import cell_label, to_python

MAX_MESSAGE_TEXT = 2000
COMPILE_EVENTS = "/jax/core/compile/"
"""The prefix of JAX's monitoring events for tracing, lowering and compiling."""


class _MagicsSkipped:
    """``get_ipython()`` while grading: shell commands and magics do nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def cell_filename(index: int) -> str:
    return f"<cell {index}>"


def describe_exception(exc: BaseException) -> dict[str, str]:
    """Type, message and the learner's own frames of ``exc``, as capped text."""
    try:
        message = str(exc)
    except BaseException:
        message = "<the exception's message could not be read>"
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename.startswith("<cell ")
    ]
    cells = {frame.filename: _cell_named(frame.filename) for frame in frames}
    lines = _collapse_repeats(
        [
            f"  {cells[frame.filename]}, line {frame.lineno}, in {frame.name}\n"
            + (f"    {frame.line}\n" if frame.line else "")
            for frame in frames
        ]
    )
    while len(lines) > 1 and sum(map(len, lines)) > MAX_MESSAGE_TEXT:
        lines.pop(0)  # keep the innermost frames, where the error happened
    return {
        "type": type(exc).__name__,
        "message": message[:MAX_MESSAGE_TEXT],
        "traceback": "".join(lines)[-MAX_MESSAGE_TEXT:],
    }


def _cell_named(filename: str) -> str:
    """A cell's frame as the learner can find it: by the cell's first line, not a number."""
    return cell_label("".join(linecache.getlines(filename)))


def _collapse_repeats(entries: list[str], keep: int = 3) -> list[str]:
    """Fold a frame repeated many times in a row (runaway recursion) into one line."""
    out: list[str] = []
    run = 0
    for index, entry in enumerate(entries):
        run = run + 1 if index and entry == entries[index - 1] else 1
        if run <= keep:
            out.append(entry)
        next_differs = index + 1 == len(entries) or entries[index + 1] != entry
        if next_differs and run > keep:
            out.append(f"  [the frame above repeats {run - keep} more times]\n")
    return out


class Worker:
    def __init__(self) -> None:
        # Taken before any learner cell runs, so a cell that rebinds WATCHERS changes
        # nothing. (A learner who patches JAX or the watchers' own module can still make
        # them misreport: see book/security.md.)
        self.watchers = dict(WATCHERS)
        remember_before_cells()
        self.told: set[str] = set()  # JAX's functions a cell replaced or holds, told once each
        # What each learner function's last call returned, kept for "shown": its text is
        # made only when a visible test asks, so a slow __repr__ costs no call its time.
        self.returned: dict[str, Any] = {}
        # Time JAX spends tracing, lowering and compiling, reported with each call's
        # answer with the call's CPU time: the reference solutions' CPU time sets the
        # call limits, their compiling kept apart (autograder.execute.run). A learner's
        # worker can misreport both, but only the reference's reports are used: a
        # learner's CPU time is read by the grader from /proc.
        self.compiling = 0.0
        jax.monitoring.register_event_duration_secs_listener(self._compiled)
        self.namespace: dict[str, Any] = {
            "__name__": "__main__",
            "__builtins__": __builtins__,
            "get_ipython": _MagicsSkipped,
        }

    def _compiled(self, event: str, seconds: float, **kwargs: Any) -> None:
        if event.startswith(COMPILE_EVENTS):
            self.compiling += seconds

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to ``request``; a call's or a watcher's tells its compile seconds
        and the CPU seconds this process (all its threads) spent on it."""
        before, cpu_before = self.compiling, time.process_time()
        reply = self._answer(request)
        if request.get("op") in ("call", "watch"):
            reply["compile_seconds"] = self.compiling - before
            reply["cpu_seconds"] = time.process_time() - cpu_before
        return reply

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "exec":
            return self.exec_cell(int(request["cell"]), str(request["source"]))
        if op == "call":
            name = str(request["name"])
            self.returned.pop(name, None)
            function = self.namespace.get(name)
            if not callable(function):
                return self.missing()
            return self.call(function, request["args"], request["kwargs"], keep=name)
        if op == "shown":
            name = str(request["name"])
            if name not in self.returned:
                return {"ok": False}
            return {"ok": True, "text": short_repr(self.returned[name])}
        if op == "watch":
            watcher = self.watchers.get(str(request["name"]))
            if watcher is None:
                message = f"no watcher called {request['name']!r}"
                return {"ok": False, "error": {"type": "ProtocolError", "message": message}}
            return self.call(watcher, request["args"], request["kwargs"])
        return {"ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}"}}

    def exec_cell(self, index: int, source: str) -> dict[str, Any]:
        """Run a cell; the reply names what of JAX the cell replaced (``"changed"``) and the
        methods of JAX's tree registries the notebook holds bound (``"holds"``), which the
        report notes: the watchers watch JAX's own functions whatever took their place,
        but not a call through a method bound before it."""
        filename = cell_filename(index)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        try:
            code = compile(to_python(source), filename, "exec", dont_inherit=True)
            exec(code, self.namespace)
        except BaseException as exc:  # noqa: BLE001 - a learner's cell may raise anything
            reply = {"ok": False, "error": describe_exception(exc)}
        else:
            reply = {"ok": True}
        changed = self._untold(changed_since_before_cells())
        if changed:
            reply["changed"] = changed
        held = self._untold(registry_methods_held(self.namespace))
        if held:
            reply["holds"] = held
        return reply

    def _untold(self, names: list[str]) -> list[str]:
        """Those of ``names`` that no cell's reply named yet."""
        new = [name for name in names if name not in self.told]
        self.told.update(new)
        return new

    def missing(self, name: str | None = None) -> dict[str, Any]:
        """The answer to a call of a name the notebook does not define."""
        reply = {"ok": False, "missing": True, "names": self.callable_names()}
        return reply if name is None else {**reply, "name": name}

    def call(
        self, function: Any, raw_args: Any, raw_kwargs: Any, keep: str | None = None
    ) -> dict[str, Any]:
        """Call ``function`` (the learner's, or a watcher) on decoded arguments; what it
        returns is kept in :attr:`returned` under ``keep``, when given."""
        name = getattr(function, "__name__", "the function")
        try:
            args = wire.decode(raw_args, jax_arrays=True, learner=self.namespace)
            kwargs = wire.decode(raw_kwargs, jax_arrays=True, learner=self.namespace)
        except wire.Unresolved as exc:
            return self.missing(exc.name)
        except wire.WireError as exc:
            return {"ok": False, "error": {"type": "WireError", "message": str(exc)}}
        try:
            result = function(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - so is a learner's function
            return {"ok": False, "error": describe_exception(exc)}
        if keep is not None:
            self.returned[keep] = result
        try:
            return {"ok": True, "value": wire.encode(result)}
        except BaseException as exc:  # noqa: BLE001 - a result's own methods may raise
            return {
                "ok": False,
                "error": {
                    "type": "UnsendableResult",
                    "message": f"{name} returned a value the grader cannot read: {exc}",
                    "traceback": "",
                },
            }

    def callable_names(self) -> list[str]:
        return sorted(
            name
            for name, value in self.namespace.items()
            if callable(value) and not name.startswith("_") and name != "get_ipython"
        )


def serve(read_fd: int, write_fd: int) -> int:
    """Answer requests on ``read_fd`` until the grader closes it; returns the exit code."""
    os.environ["PYTREES_GRADING"] = "1"
    worker = Worker()
    while True:
        try:
            request = channel.receive(read_fd)
        except channel.ChannelClosed:
            return 0
        channel.send(write_fd, worker.handle(request))
