"""Where the compile store lives, and how a worker is told of it.

The store holds JAX operations compiled for the shapes the reference solutions
use, for every worker to read instead of compiling them again; why it is safe,
and how it is filled, is told in :mod:`autograder.grade.fill_store`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from autograder.cache import cache_root

# One path for every store: JAX's cache keys must not depend on where it lies on the host.
STORE_MOUNT = "/var/cache/pytrees-compiled"
"""Where a sandboxed worker sees the store."""


@dataclass(frozen=True)
class CompileStore:
    """Where a worker finds compiled operations.

    ``writable`` only for the reference run, whose workers write down there the
    calls they compile (never an executable) for the store to be filled from, and
    for a learner's own cache (``own``): ``check`` runs one learner's own code on
    their own machine, so its workers may read and write compiled code there, which
    no grading run ever reads.
    """

    folder: str
    writable: bool = False
    own: bool = False


def default_folder() -> Path:
    return cache_root() / "compiled"


def learners_own(notebooks: Collection[Path]) -> CompileStore | None:
    """The cache of what ``check`` compiled for these notebook files as they are now; None if
    it cannot be made (``check`` then compiles everything each time).

    One folder for each set of files, which holds only what checks of their present
    content wrote: what one notebook's code writes is only ever read by a check of the
    same files with the same content. A check of other content first empties it, so
    checking someone else's notebook at one's own path cannot plant what a later check
    of one's own loads. The folder itself stays (its path and the folder): a zygote
    that the warm checker keeps has it mounted, and goes on serving the edited notebook.
    """
    resolved = sorted(path.resolve() for path in notebooks)
    # os.fsencode: a file name need not be UTF-8, and is then held in surrogate escapes
    files = cache_root() / "checked" / _digest(b"\0".join(map(os.fsencode, resolved)))
    folder, marker = files / "compiled", files / "content"
    try:
        content = _digest(b"".join(_digest(path.read_bytes()).encode() for path in resolved))
        folder.mkdir(parents=True, exist_ok=True)
        if not marker.is_file() or marker.read_text() != content:
            _remove_all_but(files, folder.name)  # what an earlier layout left
            _empty(folder)
            marker.write_text(content)
    except OSError:
        return None
    return CompileStore(str(folder), writable=True, own=True)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _remove_all_but(folder: Path, name: str) -> None:
    """Remove every entry of ``folder`` (if it exists) but ``name``."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.name != name:
            _remove(entry)


def _empty(folder: Path) -> None:
    """Remove every entry of ``folder``, keeping the folder itself."""
    for entry in folder.iterdir():
        _remove(entry)


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink()


def cache_settings(folder: str, writable: bool) -> dict[str, object]:
    """JAX's settings for reading compiled operations from ``folder`` (and writing them there).

    A reader never writes: no compile takes infinitely long. XLA's own extra
    caches stay off, since they would put the folder's path into every cache key.
    """
    return {
        "jax_compilation_cache_dir": folder,
        "jax_persistent_cache_min_entry_size_bytes": -1,
        "jax_persistent_cache_min_compile_time_secs": 0.0 if writable else float("inf"),
        "jax_persistent_cache_enable_xla_caches": "none",
    }


def keep_graders_own(folder: Path) -> str | None:
    """Let this grading process, and the grading processes it starts, keep what they compile.

    The hidden tests' own JAX work (the expected values) then compiles once per
    course version instead of once per grading process. ``folder`` is never
    mounted into a sandbox; call this only when workers run under bubblewrap,
    since a worker without it could write there. Returns why it cannot be used,
    or None.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"{exc.filename or folder}: {exc.strerror}"
    os.environ.update(cache_environment(str(folder)))
    if "jax" in sys.modules:
        for name, value in cache_settings(str(folder), writable=True).items():
            sys.modules["jax"].config.update(name, value)
    return None


def cache_environment(folder: str) -> dict[str, str]:
    """:func:`cache_settings` for reading and writing ``folder``, as the environment variables
    JAX reads when a new process imports it (for processes started by others: kernels)."""
    return {name.upper(): str(value) for name, value in cache_settings(folder, True).items()}


def store_arguments(store: CompileStore | None, mounted: bool = True) -> list[str]:
    """The zygote's command-line words for ``store``, seen at ``STORE_MOUNT`` when ``mounted``.

    Read back by :mod:`autograder.execute.zygote`.
    """
    if store is None:
        return []
    words = ["--compile-store", STORE_MOUNT if mounted else store.folder]
    return words + (["--own"] if store.own else ["--writable"] if store.writable else [])
