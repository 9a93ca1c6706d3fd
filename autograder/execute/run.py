"""Runs one learner notebook in a limited worker process and calls its functions.

The grader's side of :mod:`autograder.execute.worker`. A :class:`NotebookRun` starts a
fresh worker for the notebook, runs its cells one by one, and answers calls of
the notebook's functions with plain data. A cell that hangs or kills the worker is
skipped: the worker is restarted and the notebook replayed without it, so one bad
cell costs only what depends on it.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from autograder.compare.failures import CallTimeout, FunctionMissing, LearnerError, WorkerCrashed
from autograder.execute import channel, wire
from autograder.isolate import zygotes
from autograder.store.folder import CompileStore


@dataclass(frozen=True)
class Limits:
    """What one notebook may use. Times are wall-clock seconds."""

    notebook_seconds: float = 300.0
    cell_seconds: float = 30.0
    call_seconds: float = 10.0
    memory_bytes: int = 4 * 1024**3
    processes: int = 128  # tasks: a worker with JAX loaded runs about 20 threads
    restarts: int = 3
    sandbox: bool = True
    compile_store: CompileStore | None = None  # compiled JAX operations to read, not a limit


@dataclass(frozen=True)
class CellProblem:
    """Something that went wrong while a notebook's cells ran."""

    cell: int
    text: str


def describe_exit(returncode: int | None) -> str:
    """Say how a worker ended, from its exit code as the zygote saw it (negative: a signal)."""
    if returncode is None:
        return "the worker stopped answering"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the worker was killed by {name}"
    return f"the worker exited with code {returncode}"


class WorkerProcess:
    """One worker, forked by the warm zygote, with a private scratch directory and limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        try:
            self._zygote = zygotes.zygote(limits.sandbox, limits.processes, limits.compile_store)
            forked = self._zygote.fork(limits.memory_bytes)
        except zygotes.ZygoteFailed as exc:
            raise WorkerCrashed(f"no worker could be started ({exc})") from None
        self.pid, self._to_worker, self._from_worker, self.scratch = forked
        self._ended = False

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``message`` and wait for the answer; raises CallTimeout or WorkerCrashed."""
        try:
            channel.send(self._to_worker, message)
            return channel.receive(self._from_worker, timeout=max(timeout, 0.01))
        except channel.ChannelTimeout:
            self.close()
            raise CallTimeout() from None
        except (channel.ChannelClosed, channel.ChannelError) as exc:
            # give a dying worker a moment to report its own exit status
            detail = describe_exit(self._end(wait=2.0))
            raise WorkerCrashed(
                f"{detail} ({exc})" if isinstance(exc, channel.ChannelError) else detail
            ) from None

    def close(self) -> None:
        """Kill the worker and everything it started, and remove its scratch directory."""
        self._end(wait=0.0)

    def _end(self, wait: float) -> int | None:
        code = None
        if not self._ended:
            self._ended = True
            code = self._zygote.end(self.pid, self.scratch, wait)
        for fd in (self._to_worker, self._from_worker):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._to_worker = self._from_worker = -1
        return code

    @property
    def alive(self) -> bool:
        """Open, and not ended: a worker that died leaves its reply pipe readable at EOF."""
        if self._ended or self._from_worker < 0:
            return False
        ready, _, _ = select.select([self._from_worker], [], [], 0)
        return not ready


@dataclass
class NotebookRun:
    """A learner's notebook, run in a worker, whose functions can be called.

    ``cells`` are the code cells to run, as (cell number, source). The notebook
    runs on the first call; ``problems`` then says which cells failed or were
    skipped.
    """

    cells: list[tuple[int, str]]
    limits: Limits = field(default_factory=Limits)
    problems: list[CellProblem] = field(default_factory=list)
    _worker: WorkerProcess | None = None
    _skipped: set[int] = field(default_factory=set)
    _started: bool = False
    _restarts: int = 0

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Call the learner's ``name`` in the worker and return its result as plain data."""
        return self._request("call", name, args, kwargs)

    def watch(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run the watcher ``name`` in the worker (see :mod:`autograder.learner.watchers`).

        The learner's functions among the arguments are :class:`wire.LearnerRef`.
        Errors are raised as for :meth:`call`, named after the first learner
        function among the arguments.
        """
        subject = next((a.__name__ for a in args if isinstance(a, wire.LearnerRef)), name)
        return self._request("watch", name, args, kwargs, subject)

    def _request(
        self,
        op: str,
        name: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        subject: str | None = None,
    ) -> Any:
        worker = self._ready_worker()
        message = {
            "op": op,
            "name": name,
            "args": wire.encode(list(args)),
            "kwargs": wire.encode(kwargs),
        }
        try:
            reply = worker.request(message, self.limits.call_seconds)
        except (CallTimeout, WorkerCrashed):
            self._worker = None
            raise
        if reply.get("ok"):
            return wire.decode(reply.get("value"))
        if reply.get("missing"):
            names = reply.get("names")
            raise FunctionMissing(
                str(reply.get("name") or name),
                [str(n) for n in names] if isinstance(names, list) else [],
            )
        error = reply.get("error")
        raise LearnerError(subject or name, error if isinstance(error, dict) else {})

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _ready_worker(self) -> WorkerProcess:
        if self._worker is not None and self._worker.alive:
            return self._worker
        self._worker = self._restart() if self._started else self._run_cells()
        self._started = True
        return self._worker

    def _restart(self) -> WorkerProcess:
        if self._restarts >= self.limits.restarts:
            raise WorkerCrashed("the notebook's worker had to be restarted too often")
        self._restarts += 1
        return self._run_cells()

    def _run_cells(self) -> WorkerProcess:
        """Start a worker and run every cell not yet known to hang or crash it.

        Each start has the whole notebook time limit; starts are capped by
        ``Limits.restarts``.
        """
        deadline = time.monotonic() + self.limits.notebook_seconds
        worker = WorkerProcess(self.limits)
        for number, source in self.cells:
            if number in self._skipped:
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._note(
                    number,
                    f"not run: the notebook's {self.limits.notebook_seconds:g} s were used up",
                )
                continue
            limit = min(self.limits.cell_seconds, remaining)
            try:
                reply = worker.request({"op": "exec", "cell": number, "source": source}, limit)
            except CallTimeout:
                self._skip(number, f"did not finish within {limit:g} s; graded without it")
                return self._restart()
            except WorkerCrashed as exc:
                self._skip(number, f"ended the worker ({exc}); graded without it")
                return self._restart()
            if not reply.get("ok"):
                error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
                self._note(number, f"raised {error.get('type')}: {error.get('message')}")
        return worker

    def _skip(self, number: int, text: str) -> None:
        self._skipped.add(number)
        self._note(number, text)

    def _note(self, number: int, text: str) -> None:
        problem = CellProblem(number, text)
        if problem not in self.problems:
            self.problems.append(problem)
