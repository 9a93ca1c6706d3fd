"""What the worker's walls cost: a zygote's start and one notebook's worker, timed.

    python benchmarks/isolation.py                 # with every wall
    python benchmarks/isolation.py --no-seccomp    # without the seccomp filter

Starts a zygote as grading does (under bubblewrap where it runs), then runs
``--workers`` one-cell notebooks one after another, each in a fresh worker: fork,
run the cell, call its function, end the worker (with, under bubblewrap, the
zygote's proof that its sandbox is clean). Prints the zygote's start (until its
first worker answers) and the median and range of one worker's round trip. Run it
on an otherwise idle machine, from a checkout of the version to measure.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.execute.run import Limits, NotebookRun  # noqa: E402
from autograder.isolate import bubblewrap, zygotes  # noqa: E402

CELL = "import jax.numpy as jnp\ndef f():\n    return float(jnp.ones(3).sum())"


def one_notebook(limits: Limits) -> float:
    started = time.perf_counter()
    run = NotebookRun([(1, CELL)], limits)
    try:
        assert run.call("f", (), {}) == 3.0
    finally:
        run.close()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=30)
    parser.add_argument("--no-seccomp", action="store_true", help="start workers without it")
    args = parser.parse_args()
    if args.no_seccomp:
        from autograder.isolate import seccomp

        seccomp.filter_fd = lambda: None
    limits = Limits(notebook_seconds=60, cell_seconds=30, call_seconds=30)
    first = one_notebook(limits)
    times = [one_notebook(limits) for _ in range(args.workers)]
    zygotes.close_all()
    print(f"isolation: {bubblewrap.isolation(True)}")
    print(f"zygote start and first worker: {first:.3f} s")
    print(
        f"one worker, start to end: median {statistics.median(times) * 1000:.1f} ms "
        f"({min(times) * 1000:.1f} to {max(times) * 1000:.1f} ms, {len(times)} workers)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
