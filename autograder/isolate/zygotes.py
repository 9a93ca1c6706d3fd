"""Warm workers: the grader's side of :mod:`autograder.execute.zygote`.

Importing JAX costs about a second; forking a process that has already imported
it costs a few milliseconds. So a grading run starts one zygote per kind of
worker (sandboxed or not, with its process cap), inside the sandbox and the
process cap a worker gets, and asks it for a freshly forked worker per notebook.
Each worker is still a new process with its own scratch directory, address-space
limit and session; when the grader is done with it, the zygote kills it and
everything it started, and empties the sandbox's ``/tmp`` and ``/dev/shm``, the
only places a worker can write. A zygote serves the next learner only after a
worker the grader finished (not one that ended by itself or timed out), and only
when it proves its sandbox as it was at its start
(:class:`autograder.execute.zygote.Proof`): otherwise it is closed, and the next
worker starts in a new sandbox.

Python's own ``multiprocessing`` forkserver does the same for trusted code; it
is not used because the fork must happen inside bubblewrap, with file descriptors
handed over by the grader, and the forked child runs untrusted code.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import multiprocessing.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from autograder.isolate import bubblewrap
from autograder.isolate.processes import ProcessCap
from autograder.load.course import REPO_ROOT
from autograder.store.folder import CompileStore, store_arguments

START_SECONDS = 120.0
CONTROL_SECONDS = 15.0


class ZygoteFailed(Exception):
    """The zygote did not start or stopped answering."""


@contextlib.contextmanager
def _quiet_about_forking_beside_jax() -> Iterator[None]:
    """Within the block, no warning that ``os.fork()`` runs beside JAX's threads.

    JAX warns at each fork of a process where its backend runs, as a grader's is once a
    check or a grade has compared results: a zygote started then (a warm checker's next
    check, a second copy of a chapter, a restart) printed the warning into the learner's
    report. Here the child only sets limits with system calls (:meth:`Zygote._enter_limits`)
    and runs a new program: none of JAX's locks is taken in it.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"os\.fork\(\) was called", RuntimeWarning)
        yield


def worker_environment(home: Path) -> dict[str, str]:
    """A clean environment: nothing of the grader's own (tokens, secrets) reaches a worker."""
    return {
        "PATH": os.defpath,
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "JAX_PLATFORMS": "cpu",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        # one BLAS thread: no thread may be running when the zygote forks
        "OPENBLAS_NUM_THREADS": "1",
        "PYTREES_GRADING": "1",
    }


class Zygote:
    """One running zygote; :meth:`fork` gives a worker's pid and its pipes.

    Starting one returns at once: the first :meth:`fork` waits until it is ready.
    """

    def __init__(
        self,
        sandbox: bool,
        processes: int,
        memory_bytes: int,
        store: CompileStore | None = None,
        preload: tuple[str, ...] = (),
    ) -> None:
        self.owner = os.getpid()
        self.cap = ProcessCap(processes)
        self.scratch: Path | None = None
        self.control, theirs = socket.socketpair()
        self._counter = itertools.count()
        sandboxed = None
        try:
            sandboxed = bubblewrap.command(
                sandbox, memory_bytes, store and Path(store.folder), bool(store and store.writable)
            )
            self.sandboxed = sandboxed is not None
            # Without bubblewrap, workers' scratch folders are made on the host, below this
            # one; with it, inside the sandbox's own /tmp, which no other sandbox sees.
            if not self.sandboxed:
                self.scratch = Path(tempfile.mkdtemp(prefix=_scratch_prefix()))
            if not self.sandboxed and not (store and store.own):
                store = None  # a store is shared only where bubblewrap makes it read-only
            if self.sandboxed and store and store.writable:
                bubblewrap.hand_over(Path(store.folder))
            with _quiet_about_forking_beside_jax():
                self.process = subprocess.Popen(
                    [
                        *(sandboxed.words if sandboxed else []),
                        sys.executable,
                        "-P",  # the working folder is not on the import path
                        "-m",
                        "autograder.execute.zygote",
                        str(theirs.fileno()),
                        *(["--pid-namespace"] if sandboxed else []),
                        *store_arguments(store, mounted=self.sandboxed),
                        *(["--preload", ",".join(preload)] if preload else []),
                    ],
                    pass_fds=(theirs.fileno(), *(sandboxed.pass_fds if sandboxed else ())),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    cwd=self.scratch or "/",
                    env=worker_environment(self.scratch or Path(bubblewrap.SCRATCH_ROOT)),
                    start_new_session=True,
                    preexec_fn=self._enter_limits,
                )
        except (OSError, subprocess.SubprocessError) as exc:
            self.control.close()
            self.cap.close()
            if self.scratch is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)
            raise ZygoteFailed(f"the zygote could not be started: {exc}") from None
        finally:
            theirs.close()
            for fd in sandboxed.pass_fds if sandboxed else ():
                os.close(fd)
        self._own_tasks: frozenset[int] | None = None  # known once it is ready

    def _wait_until_ready(self) -> None:
        """Wait for the zygote's first word; it imports JAX meanwhile, while the grader goes on."""
        if self._own_tasks is not None:
            return
        try:
            if not self._answer(START_SECONDS).get("ready"):
                raise ZygoteFailed("the zygote did not say it was ready")
        except ZygoteFailed:
            self.close()
            raise
        self.cap.exempt_current_tasks()
        self._own_tasks = self.cap.tasks()

    def _enter_limits(self) -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        self.cap.enter()  # its cgroups, if any: an rlimit is set in each worker, at its fork

    @property
    def alive(self) -> bool:
        return self.control.fileno() >= 0 and self.process.poll() is None

    def fork(self, memory_bytes: int) -> tuple[int, int, int]:
        """A new worker: its pid (as the zygote sees it) and the grader's pipe ends.

        The zygote makes the worker's scratch folder, which :meth:`end` removes.
        """
        self._wait_until_ready()
        name = f"pytrees-worker-{next(self._counter)}"
        scratch = self.scratch / name if self.scratch else Path(bubblewrap.SCRATCH_ROOT, name)
        worker_reads, grader_writes = os.pipe()
        grader_reads, worker_writes = os.pipe()
        request = {
            "op": "fork",
            "scratch": str(scratch),
            "memory": bubblewrap.address_space_bytes(memory_bytes, self.sandboxed),
            "nproc": self.cap.nproc_for_new_process(),
        }
        try:
            socket.send_fds(
                self.control, [json.dumps(request).encode()], [worker_reads, worker_writes]
            )
            answer = self._answer(CONTROL_SECONDS)
        except (OSError, ZygoteFailed) as exc:
            for fd in (grader_writes, grader_reads):
                os.close(fd)
            self.close()
            raise ZygoteFailed(f"the zygote could not fork a worker: {exc}") from None
        finally:
            os.close(worker_reads)
            os.close(worker_writes)
        if not isinstance(answer.get("pid"), int):
            for fd in (grader_writes, grader_reads):
                os.close(fd)
            raise ZygoteFailed(str(answer.get("error", "the zygote did not fork")))
        return answer["pid"], grader_writes, grader_reads

    def end(self, pid: int, wait: float = 0.0, finished: bool = False) -> int | None:
        """Stop a worker and all it started; its exit code if it had already ended by itself.

        ``finished`` says the grader is done with a worker that answered all it was
        asked. Only then, and only if the worker had not ended by itself, is the zygote
        kept for the next worker, and only if it proves its sandbox clean (see
        :mod:`autograder.execute.zygote`): otherwise it is closed, so the next worker
        starts in a new sandbox, with none of the counters this one moved.
        """
        code: int | None = None
        try:
            self.control.sendall(json.dumps({"op": "end", "pid": pid, "wait": wait}).encode())
            answer = self._answer(CONTROL_SECONDS + wait)
            code = answer.get("returncode")
            ended_by_itself = isinstance(code, int)
            if not finished or ended_by_itself or answer.get("clean") is not True:
                self.close()
        except (OSError, ZygoteFailed):
            self.close()
        self.cap.kill_except(self._own_tasks or frozenset(), wait=5.0)
        if self.scratch is not None:
            with contextlib.suppress(OSError):  # closed above: nothing is left
                for leftover in self.scratch.iterdir():
                    shutil.rmtree(leftover, ignore_errors=True)
        return code if isinstance(code, int) else None

    def _answer(self, timeout: float) -> dict[str, Any]:
        self.control.settimeout(timeout)
        try:
            data = self.control.recv(4096)
        except (OSError, TimeoutError) as exc:
            raise ZygoteFailed(str(exc) or "no answer") from None
        if not data:
            raise ZygoteFailed("the zygote has ended")
        try:
            answer = json.loads(data)
        except ValueError:
            raise ZygoteFailed("unreadable answer") from None
        if not isinstance(answer, dict):
            raise ZygoteFailed("unreadable answer")
        return answer

    def close(self) -> None:
        """Kill the zygote, its sandbox and every worker; remove the scratch folder."""
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.cap.close()
        self.control.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


_zygotes: dict[tuple[bool, int, int, CompileStore | None, str, tuple[str, ...]], Zygote] = {}
_finalizer_pid: int | None = None


def zygote(
    sandbox: bool,
    processes: int,
    memory_bytes: int,
    store: CompileStore | None = None,
    name: str = "",
    preload: tuple[str, ...] = (),
) -> Zygote:
    """The running zygote for this kind of worker, name and preload, started on first use."""
    key = (sandbox, processes, memory_bytes, store, name, preload)
    current = _zygotes.pop(key, None)  # put back last: the order is that of last use
    if current is None or not current.alive or current.owner != os.getpid():
        if current is not None and current.owner == os.getpid():
            current.close()
        _close_at_exit()
        _sweep_once()
        current = Zygote(sandbox, processes, memory_bytes, store, preload)
    _zygotes[key] = current
    return current


def close_all_but(count: int) -> None:
    """Stop this process's zygotes but the ``count`` used last."""
    for key in list(_zygotes)[: max(len(_zygotes) - count, 0)]:
        current = _zygotes.pop(key)
        if current.owner == os.getpid():
            current.close()


SCRATCH_PREFIX = "pytrees-zygote-"
_swept = False


def _scratch_prefix() -> str:
    """Scratch folders on the host are named after their grader, so stale ones can be found."""
    return f"{SCRATCH_PREFIX}{os.getpid()}-"


def _sweep_once() -> None:
    """Remove, once per process, the host scratch folders of graders that have ended.

    A grader killed before it closed its zygotes leaves them (and the learner files in
    them) in the temporary folder; the next grader removes them.
    """
    global _swept
    if _swept:
        return
    _swept = True
    with contextlib.suppress(OSError):
        for entry in os.scandir(tempfile.gettempdir()):
            owner = entry.name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
            if (
                entry.name.startswith(SCRATCH_PREFIX)
                and owner.isdigit()
                and not Path(f"/proc/{owner}").exists()
                and entry.is_dir(follow_symlinks=False)
            ):
                shutil.rmtree(entry.path, ignore_errors=True)


def _close_at_exit() -> None:
    """Close this process's zygotes when it ends, also as a grading process of a pool.

    A pool's processes leave through ``os._exit``, which skips ``atexit`` but runs
    multiprocessing's own finalizers.
    """
    global _finalizer_pid
    if _finalizer_pid != os.getpid():
        _finalizer_pid = os.getpid()
        multiprocessing.util.Finalize(None, close_all, exitpriority=10)


@atexit.register
def close_all() -> None:
    """Stop every zygote this process started."""
    while _zygotes:
        _key, current = _zygotes.popitem()
        if current.owner == os.getpid():  # not one inherited through a fork
            current.close()
