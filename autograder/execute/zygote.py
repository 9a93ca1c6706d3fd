"""The warm parent of workers: imports JAX once, then forks one fresh worker per notebook.

Started by :mod:`autograder.isolate.zygotes` as ``python -m autograder.execute.zygote CONTROL_FD
[--pid-namespace] [--compile-store DIR [--writable|--own]] [--preload MODULE,...]``, inside
the same sandbox a worker would get. It runs no learner code itself. On its
control socket it answers:

- ``{"op": "fork", "scratch": dir, "memory": bytes, "nproc": n}`` with two file
  descriptors attached (the worker's ends of its request and reply pipes): forks a
  worker that works in ``dir`` under an address-space limit of ``memory`` (and,
  when ``n`` is not 0, an RLIMIT_NPROC of ``n``) and serves
  :mod:`autograder.execute.worker` requests on those pipes; answers ``{"pid": n}``;
- ``{"op": "end", "pid": n, "wait": seconds}``: waits up to ``wait`` seconds for
  that worker to exit by itself, then kills it and, inside its own pid namespace,
  every other process a worker left behind, and empties ``/tmp`` and ``/dev/shm``;
  answers ``{"returncode": code, "clean": bool}`` (the code is negative for a
  signal, None when it had to be killed).

``clean`` is the proof that the next worker, another learner's, finds nothing of
this one (:class:`Proof`). Under bubblewrap the rest of the sandbox is read-only,
SysV IPC, message queues and keyrings are refused and sockets are made for
``AF_UNIX`` only (:mod:`autograder.isolate.seccomp`), and the zygote holds no
writable memory shared with its children; so it answers true only when, as pid 1,
it has seen every other process gone, both writable folders empty, no socket left
in the sandbox's network namespace (``/proc/net/tcp``, ``udp``, ``raw``, ``unix``
and the rest hold nothing: a connection in TIME_WAIT outlives its process, and a
Unix socket sent over itself outlives its owners until the kernel collects it),
and its own limits, priority and scheduling as they were at its start. Without
bubblewrap it answers true: there is no sandbox to prove anything of.

What the proof does not cover are the sandbox's counters: the next pid of its pid
namespace, and the next inode number of ``/tmp`` and ``/dev/shm``. Only the kernel
moves them, and they only go up; a worker moves them by how many processes,
threads and files it makes, and the next worker reads them in its own pid and its
first file's inode number. So the grader never reuses a zygote after a worker that
ended otherwise than by the grader's own end of a finished notebook: one that
exited or died by itself, or was stopped for a timeout, is followed by a new
sandbox (:meth:`autograder.isolate.zygotes.Zygote.end`), its restart included. After
a finished notebook the counters still carry, to the next learner's worker, how many
processes, threads and files the last one made: two numbers, as large as its time
limits let it count. Passing anything that way takes two learners acting together,
graded one after the other by the same zygote, the second one reading the numbers in
a cell before its hidden tests run; an honest learner neither sends nor reads them.
A new sandbox for every notebook would close it too, at the cost of a zygote's start
per notebook.

The zygote makes itself non-dumpable, so a worker (same user, no capabilities
under bubblewrap) can neither trace it nor read or write its memory. Under
bubblewrap it is also pid 1 of its pid namespace: the kernel delivers no signal
from a worker to it, so a worker cannot kill or stop it, and it inherits (and
reaps) every process a worker leaves behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import resource
import shutil
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from autograder.isolate import bubblewrap

PR_SET_DUMPABLE = 4
MAX_CONTROL_MESSAGE = 4096


def _preload(argv: list[str]) -> None:
    """Everything a worker needs before it runs learner code, imported once here.

    JAX is imported but not used: its backend starts in each forked worker, so no
    thread exists at fork time. ``--preload`` names the libraries the notebooks'
    setup cells import (Equinox, Optax, Flax: 0.35 s a worker), imported here once.
    With ``--compile-store DIR`` (see
    :mod:`autograder.store.folder`) JAX reads compiled operations from ``DIR``; with
    ``--own`` as well it also writes there what it compiles (a learner's own
    cache, for ``check``); with ``--writable`` instead, the calls JAX compiles are
    written down there as plain data (:mod:`autograder.store.jax_internals`), for
    the store to be filled from.
    """
    import jax
    import jax.numpy  # noqa: F401
    import numpy  # noqa: F401

    from autograder.devices import use_cpu_devices

    use_cpu_devices()  # a setting only: the backend starts in each forked worker

    # the setup cell of every exercise notebook imports these (0.1 s)
    from autograder import notebook, watchers  # noqa: F401
    from autograder.execute import wire, worker  # noqa: F401
    from autograder.learner.watchers import remember_library_code
    from autograder.store.folder import cache_settings

    for module in _preloaded(argv):
        # a module that cannot be imported is the worker's to report, at its own import
        with contextlib.suppress(Exception):
            importlib.import_module(module)
    for folder in _store_folder(argv):
        if "--writable" in argv:  # the reference run: record what it compiles, for replaying
            from autograder.store.jax_internals import record_calls

            record_calls(folder)
        else:
            for name, value in cache_settings(folder, writable="--own" in argv).items():
                jax.config.update(name, value)
    # once here, not in each worker: 0.2 s, for what a watcher takes for a library's own
    remember_library_code()


def _preloaded(argv: list[str]) -> list[str]:
    return argv[argv.index("--preload") + 1].split(",") if "--preload" in argv else []


def _store_folder(argv: list[str]) -> list[str]:
    return [argv[argv.index("--compile-store") + 1]] if "--compile-store" in argv else []


def _non_dumpable() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def _receive(control: socket.socket) -> tuple[dict[str, Any], list[int]]:
    import json

    data, fds, _flags, _address = socket.recv_fds(control, MAX_CONTROL_MESSAGE, 2)
    if not data:
        raise EOFError
    return json.loads(data), fds


def _reply(control: socket.socket, message: dict[str, Any]) -> None:
    import json

    control.sendall(json.dumps(message).encode())


def _become_worker(control: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: wall off, then serve worker requests until the grader is done."""
    from autograder.execute import worker

    read_fd, write_fd = fds
    try:
        os.setsid()
        control.close()
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)
        keep = sorted({read_fd, write_fd})
        os.closerange(3, keep[0])
        os.closerange(keep[0] + 1, keep[1])
        os.closerange(keep[1] + 1, 4096)
        scratch = Path(str(request["scratch"]))
        scratch.mkdir(mode=0o700)
        os.chdir(scratch)
        os.environ["HOME"] = os.environ["TMPDIR"] = str(scratch)
        memory = int(request["memory"])
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        nproc = int(request.get("nproc", 0))
        if nproc:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        code = worker.serve(read_fd, write_fd)
    except BaseException:  # noqa: BLE001 - the child must never return into the zygote's loop
        code = 70
    os._exit(code)


def _wait(pid: int, seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)


def _end(pid: int, wait: float, in_pid_namespace: bool) -> int | None:
    code = _wait(pid, wait)
    if in_pid_namespace:
        # As init of its own pid namespace, "every process but me" is exactly what
        # the workers started, however they detached.
        with contextlib.suppress(ProcessLookupError):  # nothing else was left
            os.kill(-1, signal.SIGKILL)
    else:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    if code is None:
        code = _wait(pid, 5.0)
        code = None if code is None or code == -signal.SIGKILL else code
    _reap_all(until_none_left=in_pid_namespace)
    return code


def _only_process_left() -> bool:
    """As pid 1: whether no other process is left in the namespace."""
    return all(not name.isdigit() or name == "1" for name in os.listdir("/proc"))


def _reap_all(until_none_left: bool, seconds: float = 5.0) -> None:
    """Collect ended children; as pid 1, wait until every killed process is gone.

    Only then are their process slots free for the next worker.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            continue
        if not until_none_left or time.monotonic() >= deadline:
            return
        time.sleep(0.002)


def _emptied(folder: str, keep: tuple[str, ...]) -> bool:
    """Remove everything in ``folder`` but the way to each path of ``keep``; whether only
    that way is left.

    ``keep`` holds folders bound from the host (a clone under ``/tmp`` puts Python and
    the grader there): they are never entered, and the folders bubblewrap made on the
    way to them are emptied of anything else. A worker runs as the zygote's user, so
    whatever it made, the zygote may delete; a folder it locked (mode 000) is opened
    again first.
    """

    def unlock_and_retry(function: Any, path: str, _error: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)

    def kept(path: str) -> bool:
        return any(k == path or k.startswith(path + os.sep) for k in keep)

    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    for entry in entries:
        if entry.path in keep:
            continue
        if kept(entry.path):
            if not entry.is_dir(follow_symlinks=False) or not _emptied(entry.path, keep):
                return False
        elif entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, onerror=unlock_and_retry)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    try:
        return all(kept(os.path.join(folder, name)) for name in os.listdir(folder))
    except OSError:
        return False


class Proof:
    """What proves this zygote's sandbox as new after a worker: the facts at its start.

    A worker runs as the zygote's user, so beyond the writable folders it can change
    what the next worker inherits from pid 1: its resource limits, priority and CPU
    scheduling (``prlimit``, ``setpriority``, ``sched_setaffinity`` on pid 1), and it
    can leave sockets in the sandbox's network namespace. Without the seccomp filter,
    SysV IPC, message queues and keyrings could hold state too, so then no worker's
    sandbox is proven clean. The pid and inode counters are not proven (see the module).
    """

    def __init__(self, keep: tuple[str, ...]) -> None:
        self.keep = keep
        self.filtered = _seccomp_filtered()
        self.shares_memory = _shares_writable_memory()
        self.settings = _inherited_settings()

    def clean_after_worker(self) -> bool:
        """Empty what a worker could write; whether the sandbox is as it was at the start."""
        if not _only_process_left():  # one still running could write while we empty
            return False
        emptied = [_emptied(folder, self.keep) for folder in bubblewrap.WRITABLE]
        return (
            all(emptied)
            and no_sockets_left()
            and self.filtered
            and not self.shares_memory
            and _inherited_settings() == self.settings
        )


SOCKET_TABLES = (
    "tcp", "tcp6", "udp", "udp6", "udplite", "udplite6", "raw", "raw6", "icmp", "icmp6",
    "packet", "unix",
)  # fmt: skip
"""The tables of ``/proc/net`` that list the sockets of the reader's network namespace."""


def no_sockets_left(tables: str = "/proc/net") -> bool:
    """Whether every socket table of this network namespace holds its header line only.

    The zygote's own channel to the grader was made outside the sandbox, so it is
    listed in the grader's namespace, not here. A table the kernel lacks (no IPv6)
    holds no socket; one that cannot be read proves nothing.
    """
    for name in SOCKET_TABLES:
        try:
            with open(os.path.join(tables, name)) as table:
                if len(table.read().splitlines()) > 1:
                    return False
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return True


def _inherited_settings() -> tuple[object, ...]:
    """This process's resource limits, priority and scheduling, which a fork inherits."""
    limits = tuple(
        resource.getrlimit(getattr(resource, name))
        for name in sorted(dir(resource))
        if name.startswith("RLIMIT_")
    )
    scheduling = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)
    return limits, os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)), scheduling


def _seccomp_filtered() -> bool:
    """Whether a seccomp filter applies to this process (and so to every worker it forks)."""
    with open("/proc/self/status") as status:
        return any(line.split() == ["Seccomp:", "2"] for line in status)


def _shares_writable_memory() -> bool:
    """Whether this process maps memory that its forked children could write and it would see."""
    with open("/proc/self/maps") as maps:
        return any(line.split()[1][1] == "w" and line.split()[1][3] == "s" for line in maps)


def main(argv: list[str]) -> int:
    control = socket.socket(fileno=int(argv[1]))
    # Under bubblewrap the zygote is pid 1 of its own namespace (never so on a host).
    in_pid_namespace = "--pid-namespace" in argv[2:] and os.getpid() == 1
    _non_dumpable()
    # a worker may signal pid 1 (same user): an interrupt must not end the zygote
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _preload(argv[2:])
    keep = (*bubblewrap.bound_paths(), *_store_folder(argv[2:]))
    proof = Proof(keep) if in_pid_namespace else None
    _reply(control, {"ready": True})
    while True:
        try:
            request, fds = _receive(control)
        except (EOFError, OSError, ValueError):
            return 0
        if request.get("op") == "fork" and len(fds) == 2:
            try:
                pid = os.fork()
            except OSError as exc:
                pid = -1
                error = str(exc)
            if pid == 0:
                _become_worker(control, request, fds)
            for fd in fds:
                os.close(fd)
            _reply(control, {"pid": pid} if pid > 0 else {"error": f"fork failed: {error}"})
        elif request.get("op") == "end":
            for fd in fds:
                os.close(fd)
            wait = float(request.get("wait", 0))
            code = _end(int(request["pid"]), wait, in_pid_namespace)
            # without bubblewrap there is no sandbox to prove anything of
            clean = proof.clean_after_worker() if proof else True
            _reply(control, {"returncode": code, "clean": clean})
        else:
            for fd in fds:
                os.close(fd)
            _reply(control, {"error": f"unknown request {request.get('op')!r}"})


if __name__ == "__main__":
    sys.exit(main(sys.argv))
