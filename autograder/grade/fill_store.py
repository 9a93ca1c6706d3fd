"""Filling the compile store: JAX's own operations, compiled once and read by every worker.

Most of a worker's time goes to XLA compiling the learner's JAX operations,
once per operation and shape in every fresh process. JAX can keep compiled
executables on disk (its persistent compilation cache), but a store the
workers could write to would let one learner plant code that another learner's
worker then runs, and a store filled by running the reference solutions would
hold them, compiled, for any worker to read.

So the store is filled in two steps, once per course version and seed. The
grader's own run of the reference solutions, on the same seeded inputs the
hidden tests use, writes down every call its workers compile, as plain data
(:mod:`autograder.store.calls`): which of JAX's functions or primitives, and
the shapes and dtypes of its arguments. Then a separate process that never
loads the course's code replays those calls on zeros and keeps what JAX
compiles (:mod:`autograder.store.replay`). Every executable in the store is
thus JAX's own operation on some shapes, by construction; a call of course
code, or one given a function, cannot be written down and is not replayed.
The store is then mounted read-only into every bubblewrap sandbox, and a
learner's operation that matches a replayed one (most of them, since the tests
call every function on the same shapes) loads in about a millisecond instead
of compiling.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path

from autograder.execute.run import Limits
from autograder.grade.batch import grading_context
from autograder.grade.submission import grade_submission
from autograder.isolate.bubblewrap import BUBBLEWRAP, isolation
from autograder.isolate.zygotes import worker_environment
from autograder.learner.seeding import seeded
from autograder.load.course import Course, course_fingerprint
from autograder.load.submissions import Submission
from autograder.store import jax_internals
from autograder.store.calls import RECORD_GLOB
from autograder.store.folder import CompileStore

READY = "ready"
WORTH_FILLING_FOR = 10
"""Learners to grade from which filling the store repays itself in the same run. Filling grades
the reference solutions once and replays their calls; on 2 cores a class of 10 then takes as
long to grade the first time as without a store, and every later run of it a quarter less
(benchmarks/README.md)."""
FAILED_SUFFIX = ".failed"
REPLAY_SECONDS = 600.0
ENTRY = re.compile(r"^(?P<module>.+)-[0-9a-f]{64}-cache$")


def prepare(
    course: Course,
    root: Path,
    limits: Limits,
    seed: int,
    jobs: int = 1,
    say: Callable[[str], None] = print,
    fill: bool = True,
) -> CompileStore | None:
    """The read-only store for grading ``course`` with ``seed``, filled on first use.

    With ``fill`` False a store not yet filled is not filled now: grading goes on
    without it, and ``say`` is told why in one line.

    Filling grades the reference solutions, ``jobs`` notebooks at once. Returns
    None (grade without a store) when workers run without bubblewrap, where a
    read-only mount cannot be enforced (the command line says so once, for the
    sandbox as a whole), or when the store cannot be filled: this
    JAX lacks an internal name :mod:`autograder.store.jax_internals` needs, the
    reference run fails, or replaying its calls compiles nothing. A failure is
    recorded beside the store and not tried again until the JAX version, the
    grader, the course or the seed changes. ``say`` is given one line before a
    fill and one whenever grading goes on without a store.
    """
    if isolation(limits.sandbox) != BUBBLEWRAP:
        return None
    fingerprint = _fingerprint(course, seed)
    folder, failed = root / fingerprint, root / f"{fingerprint}{FAILED_SUFFIX}"
    if (folder / READY).exists():
        return CompileStore(str(folder))
    if failed.exists():
        say(
            f"note: grading without the compile store, which could not be filled before "
            f"({_reason(failed)}); it is tried again once JAX or the course changes, or "
            f"{failed} is deleted"
        )
        return None
    if not fill:
        say(
            "note: grading without the compile store; filling it (grading the reference "
            f"solutions once) pays from {WORTH_FILLING_FOR} learners on, and a run with as many "
            "fills it"
        )
        return None
    say(
        "note: compiling the course's JAX operations once, from the reference solutions, so "
        "that learners' workers read them instead of compiling each (kept until the course "
        "or JAX changes)"
    )
    try:
        reason = _fill_all(course, root, folder, limits, seed, jobs)
    except OSError as exc:
        reason = f"{exc.filename or root}: {exc.strerror}"
    if reason is None:
        return CompileStore(str(folder))
    try:
        failed.write_text(
            json.dumps({"reason": reason, "jax": jax_internals.jax_version()}), encoding="utf-8"
        )
    except OSError as exc:
        say(
            f"note: grading without the compile store: {reason}; the next run tries again, "
            f"since {failed} cannot be written ({exc.strerror})"
        )
        return None
    say(
        f"note: grading without the compile store: {reason}; this is not tried again "
        f"until JAX or the course changes (delete {failed} to try sooner)"
    )
    return None


def _fill_all(
    course: Course, root: Path, folder: Path, limits: Limits, seed: int, jobs: int
) -> str | None:
    """Fill ``folder``; None when it is ready, else why it could not be filled."""
    gone = jax_internals.missing()
    if gone:
        return (
            f"{jax_internals.jax_version()} lacks internal names the store's recording "
            "relies on: " + ", ".join(gone)
        )
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="filling-", dir=root))
    try:
        # in processes of their own, which take their JAX backends and zygotes with them
        notebooks = [notebook.id for notebook in course.notebooks]
        workers = max(1, min(jobs, len(notebooks)))
        with ProcessPoolExecutor(max_workers=workers, mp_context=grading_context()) as pool:
            filled = list(pool.map(partial(_record, staging, course, limits, seed), notebooks))
        short = [notebook for notebook, ok in zip(notebooks, filled, strict=True) if not ok]
        if short:
            return f"the reference solutions of {', '.join(short)} did not earn every point"
        for entry in staging.iterdir():  # only the reference run's records stay
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            elif not entry.match(RECORD_GLOB):
                entry.unlink()
        problem = _replay(staging, workers)
        if problem:
            return problem
        (staging / READY).touch()
        with contextlib.suppress(OSError):  # another grading run filled it first
            staging.rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return None if (folder / READY).exists() else f"{folder} could not be written"


def _reason(failed: Path) -> str:
    try:
        return str(json.loads(failed.read_text(encoding="utf-8"))["reason"])
    except (OSError, ValueError, KeyError, TypeError):
        return "no reason recorded"


def _record(staging: Path, course: Course, limits: Limits, seed: int, notebook_id: str) -> bool:
    """Grade one notebook's reference solutions with workers that write down what they compile.

    Returns whether they earned every point.
    """
    reference = Submission("reference solutions", {notebook_id: course.notebook(notebook_id).path})
    recording = replace(limits, compile_store=CompileStore(str(staging), writable=True))
    with seeded(seed):
        result = grade_submission(reference, course, recording, timed_reference=False)
    return result.score == result.max_score


def _replay(folder: Path, processes: int) -> str | None:
    """Compile the calls recorded in ``folder`` into it, in ``processes`` replaying processes.

    Each process gets every ``processes``-th record file and the environment a
    worker has, so what it compiles is filed under the keys a worker looks up.
    Returns why nothing could be compiled, or None.
    """
    records = sorted(folder.glob(RECORD_GLOB))
    if not records:
        return "the reference run recorded no JAX call (did JAX change?)"
    shares = [folder / f"share-{index}" for index in range(min(processes, len(records)))]
    for index, record in enumerate(records):
        shares[index % len(shares)].mkdir(exist_ok=True)
        record.rename(shares[index % len(shares)] / record.name)
    with tempfile.TemporaryDirectory(prefix="replay-") as home:
        replaying = [
            subprocess.Popen(
                [sys.executable, "-m", "autograder.store.replay", str(share)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=worker_environment(Path(home)),
                cwd=home,
            )
            for share in shares
        ]
        codes = [_wait(process) for process in replaying]
    for share in shares:
        for entry in share.iterdir():
            entry.rename(folder / entry.name)
        share.rmdir()
    if any(codes) or not any(ENTRY.match(entry.name) for entry in folder.iterdir()):
        return "replaying the reference run's JAX calls compiled nothing (did JAX change?)"
    return None


def _wait(process: subprocess.Popen[bytes]) -> int:
    try:
        return process.wait(timeout=REPLAY_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


def _fingerprint(course: Course, seed: int) -> str:
    """A name for the store: changes with the course, the grader, the seed and Python."""
    digest = hashlib.sha256(f"{sys.version}\0{seed}\0{jax_internals.jax_version()}\0".encode())
    digest.update(course_fingerprint(course))
    return digest.hexdigest()[:24]
