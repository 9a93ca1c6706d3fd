"""Turns one of the grader's speed mechanisms off, for the benchmark's mechanism table.

``benchmarks/grading.py --mechanisms`` puts this folder on ``PYTHONPATH`` and names
the mechanism in ``PYTREES_BENCHMARK_OFF``; Python imports this module at the
start of every process of the run (the command and its grading processes; workers
get a clean environment and never see it), and it replaces the one function that
provides the mechanism. Nothing here is imported by the grader itself.
"""

from __future__ import annotations

import os

OFF = os.environ.get("PYTREES_BENCHMARK_OFF", "")


def _no_warm_workers() -> None:
    """Every worker comes from a zygote started for it alone: Python and JAX start each time."""
    from autograder.isolate import zygotes

    started = zygotes.Zygote

    def fresh(sandbox, processes, store=None, name="", preload=()):
        key = (sandbox, processes, store, name, preload)
        previous = zygotes._zygotes.pop(key, None)
        if previous is not None and previous.owner == os.getpid():
            previous.close()
        zygotes._zygotes[key] = started(sandbox, processes, store, preload)
        return zygotes._zygotes[key]

    zygotes.zygote = fresh


def _no_compile_store() -> None:
    from autograder.grade import fill_store

    fill_store.prepare = lambda *args, **kwargs: None


def _no_graders_compile_cache() -> None:
    from autograder.store import folder

    folder.keep_graders_own = lambda path: "turned off by the benchmark"


SWITCHES = {
    "warm-workers": _no_warm_workers,
    "compile-store": _no_compile_store,
    "graders-compile-cache": _no_graders_compile_cache,
}

if OFF:
    SWITCHES[OFF]()
