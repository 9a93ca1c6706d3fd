"""A trusted, read-only store of compiled JAX operations that every worker reads.

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
whether it holds JAX's own code and nothing else (:mod:`autograder.provenance`),
and only those modules stay: JAX's operations on arrays of given shapes, which
tell a worker nothing it is not handed anyway. When the records cannot be read
the store is not used at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from autograder import provenance
from autograder.isolation import BUBBLEWRAP, STORE_MOUNT, isolation

if TYPE_CHECKING:  # the sandbox module itself refers to CompileStore
    from autograder.registry import Course
    from autograder.sandbox import Limits

PACKAGE_DIR = Path(__file__).resolve().parent
READY = "ready"
DURATIONS = "durations.json"
ENTRY = re.compile(r"^(?P<module>.+)-[0-9a-f]{64}-cache$")


@dataclass(frozen=True)
class CompileStore:
    """Where a worker finds compiled operations; only the reference run may write."""

    folder: str
    writable: bool = False

    def durations(self) -> dict[str, float]:
        """Seconds each notebook took to grade when the store was filled (empty if unknown)."""
        try:
            loaded = json.loads((Path(self.folder) / DURATIONS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(loaded, dict):
            return {}
        return {str(k): float(v) for k, v in loaded.items() if isinstance(v, int | float)}


def default_folder() -> Path:
    from autograder.batch import cache_root  # batch imports this module

    return cache_root() / "compiled"


def prepare(
    course: Course,
    root: Path,
    limits: Limits,
    seed: int,
    jobs: int = 1,
    on_fill: Callable[[], None] | None = None,
) -> CompileStore | None:
    """The read-only store for grading ``course`` with ``seed``, filled on first use.

    Filling grades the reference solutions, ``jobs`` notebooks at once;
    ``on_fill`` is called just before. Returns None (grade without a store) when
    workers run without bubblewrap, where a read-only mount cannot be enforced,
    when the reference run fails, or when its record of what it compiled cannot
    be read.
    """
    from autograder.batch import grading_context

    if isolation(limits.sandbox) != BUBBLEWRAP:
        return None
    folder = root / _fingerprint(course, seed)
    if (folder / READY).exists():
        return CompileStore(str(folder))
    if on_fill is not None:
        on_fill()
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="filling-", dir=root))
    try:
        # in processes of their own, which take their JAX backends and zygotes with them
        notebooks = [notebook.id for notebook in course.notebooks]
        workers = max(1, min(jobs, len(notebooks)))
        with ProcessPoolExecutor(max_workers=workers, mp_context=grading_context()) as pool:
            filled = list(pool.map(partial(_fill, staging, course, limits, seed), notebooks))
            if not all(ok for ok, _seconds in filled):
                return None
        if not _remove_course_code(staging):
            return None
        durations = {
            notebook: seconds for notebook, (_ok, seconds) in zip(notebooks, filled, strict=True)
        }
        (staging / DURATIONS).write_text(json.dumps(durations, indent=1), encoding="utf-8")
        (staging / READY).touch()
        with contextlib.suppress(OSError):  # another grading run filled it first
            staging.rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return CompileStore(str(folder)) if (folder / READY).exists() else None


def _fill(
    staging: Path, course: Course, limits: Limits, seed: int, notebook_id: str
) -> tuple[bool, float]:
    """Grade one notebook's reference solutions with workers that write what they compile.

    Returns whether they earned every point, and how many seconds grading took.

    Processes filling the same folder at once may both write an entry; JAX skips
    a key that exists, and both write the same bytes.
    """
    from autograder.discover import Submission
    from autograder.grading import grade_submission
    from autograder.seeding import seeded

    reference = Submission("reference solutions", {notebook_id: course.notebook(notebook_id).path})
    writing = replace(limits, compile_store=CompileStore(str(staging), writable=True))
    started = time.monotonic()
    with seeded(seed):
        result = grade_submission(reference, course, writing)
    return result.score == result.max_score, round(time.monotonic() - started, 3)


def _remove_course_code(folder: Path) -> bool:
    """Delete every file in ``folder`` but the compiled modules known to hold JAX's code only.

    Known means every lowering the reference run recorded under the module's
    name was judged JAX's own (see :mod:`autograder.provenance`). Returns False,
    and deletes nothing, when the records cannot be read.
    """
    kinds = provenance.read_kinds(folder)
    if kinds is None:
        return False
    provenance.remove_records(folder)
    for entry in folder.iterdir():  # anything else JAX may have written goes too
        match = ENTRY.match(entry.name)
        if match is None or kinds.get(match["module"]) != {provenance.JAX}:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    return True


def _fingerprint(course: Course, seed: int) -> str:
    """A name for the store: changes with the course, the grader, the seed and Python."""
    digest = hashlib.sha256(f"{sys.version}\0{seed}\0".encode())
    for path in sorted(PACKAGE_DIR.glob("*.py")) + [n.path for n in course.notebooks]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    try:
        from importlib.metadata import version

        digest.update(f"{version('jax')}\0{version('jaxlib')}".encode())
    except Exception:  # noqa: BLE001 - a missing version only costs a refill
        pass
    return digest.hexdigest()[:24]


def keep_graders_own(folder: Path) -> None:
    """Let this grading process, and the grading processes it starts, keep what they compile.

    The hidden tests' own JAX work (the expected values) then compiles once per
    course version instead of once per grading process. ``folder`` is never
    mounted into a sandbox; call this only when workers run under bubblewrap,
    since a worker without it could write there.
    """
    settings = {
        "jax_compilation_cache_dir": str(folder),
        "jax_persistent_cache_min_entry_size_bytes": -1,
        "jax_persistent_cache_min_compile_time_secs": 0.0,
        "jax_persistent_cache_enable_xla_caches": "none",
    }
    for name, value in settings.items():
        os.environ[name.upper()] = str(value)  # read by JAX when a new process imports it
    if "jax" in sys.modules:
        for name, value in settings.items():
            sys.modules["jax"].config.update(name, value)


def store_arguments(store: CompileStore | None) -> list[str]:
    """The zygote's command-line words for ``store`` (read back by :mod:`autograder.zygote`)."""
    if store is None:
        return []
    return ["--compile-store", STORE_MOUNT, *(["--writable"] if store.writable else [])]
