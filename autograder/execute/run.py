"""Runs one learner notebook in a limited worker process and calls its functions.

The grader's side of :mod:`autograder.execute.worker`. A :class:`NotebookRun` starts a
fresh worker for the notebook, runs its cells one by one, and answers calls of
the notebook's functions with plain data. A cell that hangs or kills the worker is
skipped: the worker is restarted and the notebook replayed without it, so one bad
cell costs only what depends on it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import select
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from autograder.compare.failures import (
    CallTimeout,
    FunctionMissing,
    LearnerError,
    WorkerCrashed,
    known_type,
)
from autograder.execute import channel, cpu_time, wire
from autograder.isolate import zygotes
from autograder.isolate.processes import TASKS
from autograder.store.folder import CompileStore

CALL_FLOOR_SECONDS = 1.0
CALL_FACTOR = 50.0
COMPILE_FACTOR = 25.0
WAITING_FACTOR = 10.0
"""How many times its limit of CPU time a call may take on the clock: one that waits
(sleeps, blocks) instead of working is stopped too, one slowed by a busy machine is not."""
UNMEASURED_CALL_SECONDS = 10.0
"""A call's limit where no reference time can be had (``check``, which has no solutions)."""
POLL_SECONDS = 0.05
"""How often a running call's CPU time is read."""
SHOWN_SECONDS = 3.0
"""How long the worker may take to tell what a function returned (its ``__repr__`` has
:data:`~autograder.compare.returned.REPR_SECONDS`): a worker still busy after it is ended."""

DERIVED_LIMIT = (
    f"at least {CALL_FLOOR_SECONDS:g} s of CPU time, else {CALL_FACTOR:g} times the reference "
    f"solution's CPU time on the same call, {COMPILE_FACTOR:g} times for its share compiling; "
    f"and {WAITING_FACTOR:g} times as long on the clock"
)


@dataclass(frozen=True)
class CallTime:
    """How long one call took: on the clock, in CPU time, and how much of it JAX spent
    tracing and compiling (on the clock)."""

    seconds: float
    compiling: float = 0.0
    cpu: float | None = None
    """The worker's CPU time, all threads; None where not measured (then ``seconds``)."""

    def limit(self) -> float:
        """The CPU time the same call made by a learner may use (see :meth:`NotebookRun.call`).

        The compiling share of the call's time is taken as that share of its CPU time:
        a busy machine stretches both alike.
        """
        used = self.seconds if self.cpu is None else self.cpu
        share = min(self.compiling / self.seconds, 1.0) if self.seconds > 0 else 0.0
        compiling = used * share
        running = used - compiling
        return max(CALL_FLOOR_SECONDS, CALL_FACTOR * running + COMPILE_FACTOR * compiling)


@dataclass(frozen=True)
class CallLimit:
    """What one call may use: ``cpu`` seconds of the worker's CPU time, and ``wall`` seconds
    on the clock; ``why`` says how they were set."""

    cpu: float
    wall: float
    why: str

    @classmethod
    def derived(cls, cpu: float) -> CallLimit:
        return cls(cpu, WAITING_FACTOR * cpu, DERIVED_LIMIT)


ReferenceSeconds = Callable[[str, int], CallTime | None]
"""The time the reference solution took on call ``number`` (from 0) of test ``label``, or None
when it made no such call."""


@dataclass(frozen=True)
class Limits:
    """What one notebook may use. Times are wall-clock seconds.

    ``call_seconds`` None derives each call's limit from the reference solution's
    CPU time on the same call (see :meth:`NotebookRun.call`).
    """

    notebook_seconds: float = 300.0
    cell_seconds: float = 30.0
    call_seconds: float | None = None
    memory_bytes: int = 4 * 1024**3
    processes: int = TASKS
    restarts: int = 3
    sandbox: bool = True
    compile_store: CompileStore | None = None  # compiled JAX operations to read, not a limit
    # Not a limit: which zygote forks the workers. Ending a worker kills whatever else
    # runs under its zygote's process cap, so a run that overlaps another's call
    # (timing the reference solutions) needs a zygote of its own.
    zygote: str = "learners"
    # Not a limit: modules the notebooks import that the zygote imports once, before
    # it forks, so that no worker pays for them (ExerciseNotebook.library_imports).
    preload: tuple[str, ...] = ()

    @property
    def call_rule(self) -> str:
        """How long one call may run, for the report."""
        if self.call_seconds is not None:
            return f"a fixed {self.call_seconds:g} s"
        return DERIVED_LIMIT


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


def _zygote_for(limits: Limits) -> zygotes.Zygote:
    return zygotes.zygote(
        limits.sandbox, limits.processes, limits.memory_bytes, limits.compile_store,
        limits.zygote, limits.preload,
    )  # fmt: skip


def start_zygote(limits: Limits) -> None:
    """Start the zygote that forks the workers of ``limits``, now, if it is not running;
    one that fails is started again, and reported, at the first call."""
    with contextlib.suppress(zygotes.ZygoteFailed):
        _zygote_for(limits)


class WorkerProcess:
    """One worker, forked by the warm zygote, with a private scratch folder and limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        try:
            self._zygote = _zygote_for(limits)
            forked = self._zygote.fork(limits.memory_bytes)
        except zygotes.ZygoteFailed as exc:
            raise WorkerCrashed(f"no worker could be started ({exc})") from None
        self.pid, self._to_worker, self._from_worker = forked
        self._ended = False
        self._host_pid: int | None = None  # looked up on the first metered call
        self._looked_up = False

    def request(
        self,
        message: dict[str, Any],
        timeout: float,
        why: str = "",
        derive: Callable[[], CallLimit] | None = None,
    ) -> dict[str, Any]:
        """Send ``message`` and wait for the answer; raises CallTimeout or WorkerCrashed.

        Without ``derive`` the answer must come within ``timeout`` s on the clock. With
        it, the call is metered in the worker's CPU time: it may first use
        ``timeout`` s of CPU time (and :data:`WAITING_FACTOR` times that on the
        clock); a call still running then asks ``derive`` for its whole limit while
        it goes on, so a limit that needs measuring is measured only for the calls
        that get that far.
        """
        try:
            if derive is None:
                channel.send(self._to_worker, message)
                return channel.receive(self._from_worker, timeout=timeout)
            cpu_before = self._cpu_seconds()
            channel.send(self._to_worker, message)
            first = CallLimit(timeout, WAITING_FACTOR * timeout, why)
            return self._metered(first, derive, cpu_before)
        except channel.ChannelTimeout:
            self._end(wait=0.0)
            raise CallTimeout(timeout, why) from None
        except (channel.ChannelClosed, channel.ChannelError) as exc:
            # give a dying worker a moment to report its own exit status
            detail = describe_exit(self._end(wait=2.0))
            raise WorkerCrashed(
                f"{detail} ({exc})" if isinstance(exc, channel.ChannelError) else detail
            ) from None

    def _metered(
        self, limit: CallLimit, derive: Callable[[], CallLimit], cpu_before: float | None
    ) -> dict[str, Any]:
        """The answer to the request just sent, within ``limit`` and then ``derive()``'s."""
        started, derived = time.monotonic(), False
        while True:
            elapsed = time.monotonic() - started
            wait = min(POLL_SECONDS, max(limit.wall - elapsed, 0.0))
            if channel.readable(self._from_worker, wait):
                break
            elapsed = time.monotonic() - started
            cpu_now = self._cpu_seconds()
            # Where the worker's CPU time cannot be read, the clock stands in for it.
            used = elapsed if cpu_before is None or cpu_now is None else cpu_now - cpu_before
            if used < limit.cpu and elapsed < limit.wall:
                continue
            if not derived:  # the next round first looks for an answer given meanwhile
                limit, derived = derive(), True
                continue
            self._end(wait=0.0)
            raise CallTimeout(limit.cpu, limit.why)
        elapsed = time.monotonic() - started
        return channel.receive(self._from_worker, timeout=max(limit.wall - elapsed, 1.0))

    def _cpu_seconds(self) -> float | None:
        """The worker's CPU time so far, as the kernel counts it (never as the worker says): that
        of everything it started where its zygote has a cgroup, else its own process's."""
        counted = self._zygote.cap.cpu_seconds()
        if counted is not None:
            return counted
        if not self._looked_up:
            self._host_pid = cpu_time.host_pid(self._zygote.process.pid, self.pid)
            self._looked_up = True
        return None if self._host_pid is None else cpu_time.cpu_seconds(self._host_pid)

    def close(self) -> None:
        """The grader is done with the worker: kill it and everything it started, and
        remove its scratch directory. Its zygote may fork the next worker, if it proves
        its sandbox clean."""
        self._end(wait=0.0, finished=True)

    def abandon(self) -> None:
        """End a worker found dead between requests: its zygote forks no other worker."""
        self._end(wait=2.0)

    def _end(self, wait: float, finished: bool = False) -> int | None:
        """Kill the worker; unless ``finished``, its zygote too (see ``Zygote.end``)."""
        code = None
        if not self._ended:
            self._ended = True
            code = self._zygote.end(self.pid, wait, finished)
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
    skipped. Calls are counted per test (:meth:`start_test`); ``call_times``
    records how long each answered call took, by (test label, call number).

    Once a test with hidden inputs has started (``hidden_inputs_given``), the
    notebook's cells that run again in a restarted worker are noted in the grader's
    words only: the error's type among the known ones, never its message or an exit
    code. The learner's code has seen those inputs, and runs again in that worker.
    """

    cells: list[tuple[int, str]]
    limits: Limits = field(default_factory=Limits)
    reference: ReferenceSeconds | None = None
    problems: list[CellProblem] = field(default_factory=list)
    call_times: dict[tuple[str, int], CallTime] = field(default_factory=dict)
    _test: str = ""
    _calls: Iterator[int] = field(default_factory=itertools.count)
    _counts: dict[str, Iterator[int]] = field(default_factory=dict)
    _worker: WorkerProcess | None = None
    _skipped: set[int] = field(default_factory=set)
    _started: bool = False
    _restarts: int = 0
    _ended_by_shown: bool = False
    hidden_inputs_given: bool = False

    def __post_init__(self) -> None:
        # The zygote starts now and imports JAX while the grader prepares the tests.
        start_zygote(self.limits)

    def start_test(self, label: str, hidden: bool = False) -> None:
        """Count the calls that follow as test ``label``'s: from 0 the first time, then on
        from its last one (a test cell runs in two parts, see the grading plugin), so that
        a call's number is the same however the cell is cut; ``hidden``: the test gives the
        learner's code hidden inputs."""
        self._test = label
        self._calls = self._counts.setdefault(label, itertools.count())
        self.hidden_inputs_given |= hidden

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Call the learner's ``name`` in the worker and return its result as plain data.

        The call may run for ``Limits.call_seconds`` when that is set. Otherwise it
        may use as much CPU time as the larger of ``CALL_FLOOR_SECONDS`` and
        ``CALL_FACTOR`` times the reference solution's CPU time on the same call,
        its share compiling counted ``COMPILE_FACTOR`` times instead (a first call
        compiles, and a learner's compile is not the slow work the factor allows
        for); and ``WAITING_FACTOR`` times as long on the clock. CPU time, not the
        clock, because a busy machine slows the learner's call and the reference's
        alike but not their CPU time; the clock still stops a call that waits
        instead of working. ``reference`` is asked only once the call has used
        the floor; without a ``reference``, the call may run for
        ``UNMEASURED_CALL_SECONDS`` on the clock.
        """
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
        key = (self._test, next(self._calls))
        started = time.monotonic()
        try:
            reply = self._answer(worker, message, key)
        except (CallTimeout, WorkerCrashed):
            self._worker = None
            raise
        self.call_times[key] = CallTime(
            time.monotonic() - started,
            _seconds(reply.get("compile_seconds")) or 0.0,
            _seconds(reply.get("cpu_seconds")),
        )
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

    def _answer(
        self, worker: WorkerProcess, message: dict[str, Any], key: tuple[str, int]
    ) -> dict[str, Any]:
        fixed = self.limits.call_seconds
        if fixed is not None:
            return worker.request(message, fixed, f"the fixed {fixed:g} s limit")
        if self.reference is None:
            why = f"the {UNMEASURED_CALL_SECONDS:g} s limit where no reference time is measured"
            return worker.request(message, UNMEASURED_CALL_SECONDS, why)
        reference = self.reference

        def derived() -> CallLimit:
            measured = reference(*key)
            return CallLimit.derived(measured.limit() if measured else CALL_FLOOR_SECONDS)

        return worker.request(message, CALL_FLOOR_SECONDS, DERIVED_LIMIT, derive=derived)

    def shown(self, name: str) -> str | None:
        """The worker's short text of what its last call of ``name`` returned (see
        :mod:`autograder.compare.returned`), as the worker sent it; None when it has
        none or does not tell in time.

        Only shown, never judged. A worker that does not answer in time is ended, and
        the next start is not counted among the notebook's restarts: a value's
        ``__repr__`` costs no test its verdict.
        """
        worker = self._worker
        if worker is None or not worker.alive:
            return None
        why = f"the {SHOWN_SECONDS:g} s to tell what a function returned"
        try:
            reply = worker.request({"op": "shown", "name": name}, SHOWN_SECONDS, why)
        except (CallTimeout, WorkerCrashed):
            self._worker, self._ended_by_shown = None, True
            return None
        except wire.WireError:
            return None
        text = reply.get("text")
        return text if reply.get("ok") and isinstance(text, str) else None

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _ready_worker(self) -> WorkerProcess:
        if self._worker is not None and self._worker.alive:
            return self._worker
        if self._worker is not None:  # a zygote runs one worker at a time
            self._worker.abandon()
        self._worker = self._restart() if self._started else self._run_cells()
        self._started = True
        return self._worker

    def _restart(self) -> WorkerProcess:
        if self._ended_by_shown:  # not the learner's functions' doing: not counted
            self._ended_by_shown = False
            return self._run_cells()
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
                within = "its time limit" if self._after_hidden else f"{limit:g} s"
                self._skip(number, f"did not finish within {within}; graded without it")
                return self._restart()
            except WorkerCrashed as exc:
                self._skip(
                    number, f"ended the worker{self._detail(f' ({exc})')}; graded without it"
                )
                return self._restart()
            except wire.WireError as exc:  # the reply was read, and refused
                self._note(number, f"sent a reply the grader refused{self._detail(f': {exc}')}")
                continue
            if not reply.get("ok"):
                error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
                self._note(number, self._raised(error))
            # the names are the worker's to choose: after hidden inputs, they could carry them
            changed = [] if self._after_hidden else _jax_names(reply.get("changed"))
            if changed:
                self._note(
                    number,
                    f"replaces JAX's own {', '.join(changed)}: the tests watched JAX's own "
                    "functions, but checks of how the functions work could be misled; worth a look",
                )
            held = [] if self._after_hidden else _jax_names(reply.get("holds"))
            if held:
                self._note(
                    number,
                    f"holds JAX's {', '.join(held)} bound, which the tests do not see called "
                    "through that reference: checks of how the functions work could be "
                    "misled; worth a look",
                )
        return worker

    @property
    def _after_hidden(self) -> bool:
        """Whether a worker of this notebook may have been given hidden inputs: the cells
        run first before any call, so only a restart comes after them."""
        return self.hidden_inputs_given and self._started

    def _detail(self, said: str) -> str:
        """What the worker said, for a note; nothing once hidden inputs were given."""
        return "" if self._after_hidden else said

    def _raised(self, error: dict[str, Any]) -> str:
        """A cell's error: its type and message, or once hidden inputs were given, only
        its type where it is a known one (a class's name is the learner's choice)."""
        if not self._after_hidden:
            return f"raised {error.get('type')}: {error.get('message')}"
        kind = known_type(str(error.get("type")))
        return (
            f"raised {'an exception' if kind == 'Exception' else kind} (its message is not "
            "shown once hidden tests have run)"
        )

    def _skip(self, number: int, text: str) -> None:
        self._skipped.add(number)
        self._note(number, text)

    def _note(self, number: int, text: str) -> None:
        problem = CellProblem(number, text)
        if problem not in self.problems:
            self.problems.append(problem)


_JAX_NAME = re.compile(r"jax(\.[A-Za-z_][A-Za-z0-9_]*)+")


def _jax_names(value: Any, shown: int = 5) -> list[str]:
    """The dotted names of JAX's a worker says a cell replaced, the first ``shown`` of them
    (and how many more): a worker's reply is the learner's to forge, so only names."""
    names = (
        [n for n in value if isinstance(n, str) and _JAX_NAME.fullmatch(n)]
        if isinstance(value, list)
        else []
    )
    more = [f"{len(names) - shown} more"] if len(names) > shown else []
    return names[:shown] + more


def _seconds(value: Any) -> float | None:
    """A number of seconds from a worker's reply, None if it is not one."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
