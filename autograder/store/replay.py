"""The process that fills the compile store: ``python -m autograder.store.replay FOLDER``.

Reads the call records in ``FOLDER`` (:mod:`autograder.store.calls`), makes each
call on zeros with JAX's compilation cache writing into ``FOLDER``, and deletes
the records. It imports JAX and this package's store modules, never the
course's code, and a record can name nothing outside JAX and NumPy: so every
executable in the store is JAX's own operation on some shapes, whatever the
records say. Prints how many calls it replayed and how many it could not.
"""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.devices import use_cpu_devices
from autograder.store import calls
from autograder.store.folder import cache_settings


def replay_folder(folder: Path) -> tuple[int, int]:
    """Replay every distinct record in ``folder`` into it; (replayed, refused)."""
    import json

    import jax

    # the workers that read the store have the course's devices: JAX's cache keys
    # include them, so the store is compiled with the same count
    use_cpu_devices()
    for name, value in cache_settings(str(folder), writable=True).items():
        jax.config.update(name, value)
    lines: set[str] = set()
    for path in sorted(folder.glob(calls.RECORD_GLOB)):
        lines.update(path.read_text(encoding="utf-8").splitlines())
        path.unlink()
    primitives = calls.jax_primitives()
    replayed = refused = 0
    for line in sorted(lines):
        try:
            calls.replay(json.loads(line), primitives)
            replayed += 1
        except Exception:  # noqa: BLE001 - a call that fails on zeros is one fewer entry
            refused += 1
    return replayed, refused


def main(argv: list[str]) -> int:
    replayed, refused = replay_folder(Path(argv[0]))
    print(f"replayed {replayed} calls, {refused} could not be")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
