"""Filling the compile store: a trusted, read-only store of compiled JAX operations.

Most of a worker's time goes to XLA compiling the learner's JAX operations,
once per operation and shape in every fresh process. JAX can keep compiled
executables on disk (its persistent compilation cache), but a store the
workers could write to would let one learner plant code that another learner's
worker then runs. So the store is filled once per course version by the
grader's own run of the reference solutions, on the same seeded inputs the
hidden tests use, and then mounted read-only into every bubblewrap sandbox.
Learners' operations that match the reference's (most of them, since the
tests call every function on the same shapes) load in about a millisecond
instead of compiling.

Entries that could carry a reference solution itself are removed before the
store is used: the reference run records, for every module it compiles,
whether it holds JAX's own code and nothing else (:mod:`autograder.store.jax_internals`),
and only those modules stay: JAX's operations on arrays of given shapes, which
tell a worker nothing it is not handed anyway. When the records cannot be read
the store is not used at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
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
from autograder.learner.seeding import seeded
from autograder.load.course import Course, course_fingerprint
from autograder.load.submissions import Submission
from autograder.store import jax_internals
from autograder.store.folder import CompileStore

READY = "ready"
WORTH_FILLING_FOR = 4
"""Learners to grade from which filling the store is worth it. Filling grades the reference
solutions once, about 8.6 s on 2 cores; the store then saves a learner who solved every
notebook about 3 s, and a class's learner, who solved some, less (benchmarks/README.md)."""
FAILED_SUFFIX = ".failed"
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
    JAX lacks an internal name the judge of :mod:`autograder.store.jax_internals`
    needs, the reference run fails, or its record of what it compiled cannot be
    read. A failure is recorded beside the store and not tried again until the
    JAX version, the grader, the course or the seed changes. ``say`` is given
    one line before a fill and one whenever grading goes on without a store.
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
            f"{jax_internals.jax_version()} lacks internal names its judge relies on: "
            + ", ".join(gone)
        )
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="filling-", dir=root))
    try:
        # in processes of their own, which take their JAX backends and zygotes with them
        notebooks = [notebook.id for notebook in course.notebooks]
        workers = max(1, min(jobs, len(notebooks)))
        with ProcessPoolExecutor(max_workers=workers, mp_context=grading_context()) as pool:
            filled = list(pool.map(partial(_fill, staging, course, limits, seed), notebooks))
        short = [notebook for notebook, ok in zip(notebooks, filled, strict=True) if not ok]
        if short:
            return f"the reference solutions of {', '.join(short)} did not earn every point"
        if not _remove_course_code(staging):
            return "the record of what the reference run compiled could not be read"
        if not any(ENTRY.match(entry.name) for entry in staging.iterdir()):
            return "no compiled operation was judged JAX's own (did JAX change?)"
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


def _fill(staging: Path, course: Course, limits: Limits, seed: int, notebook_id: str) -> bool:
    """Grade one notebook's reference solutions with workers that write what they compile.

    Returns whether they earned every point.

    Processes filling the same folder at once may both write an entry; JAX skips
    a key that exists, and both write the same bytes.
    """

    reference = Submission("reference solutions", {notebook_id: course.notebook(notebook_id).path})
    writing = replace(limits, compile_store=CompileStore(str(staging), writable=True))
    with seeded(seed):
        result = grade_submission(reference, course, writing, timed_reference=False)
    return result.score == result.max_score


def _remove_course_code(folder: Path) -> bool:
    """Delete every file in ``folder`` but the compiled modules known to hold JAX's code only.

    Known means every lowering the reference run recorded under the module's
    name was judged JAX's own (see :mod:`autograder.store.jax_internals`). Returns False,
    and deletes nothing, when the records cannot be read.
    """
    kinds = jax_internals.read_kinds(folder)
    if kinds is None:
        return False
    jax_internals.remove_records(folder)
    for entry in folder.iterdir():  # anything else JAX may have written goes too
        match = ENTRY.match(entry.name)
        if match is None or kinds.get(match["module"]) != {jax_internals.JAX}:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    return True


def _fingerprint(course: Course, seed: int) -> str:
    """A name for the store: changes with the course, the grader, the seed and Python."""
    digest = hashlib.sha256(f"{sys.version}\0{seed}\0{jax_internals.jax_version()}\0".encode())
    digest.update(course_fingerprint(course))
    return digest.hexdigest()[:24]
