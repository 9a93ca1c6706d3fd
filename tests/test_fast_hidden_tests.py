"""Hidden tests stay fast: each test cell compiles few JAX programs (AUTHORING.md).

Every new shape a test hands a function is a new trace and compile in a fresh
worker, and another in the grader for the expected value. Here each solution
notebook runs in one process, as nbgrader runs it (``check`` silent, as under any
grader), and JAX's own monitoring events count the compiles each test cell causes
on both sides together.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import time
from pathlib import Path

import jax
import nbformat
import pytest
from jax import monitoring

from autograder.devices import use_cpu_devices
from autograder.load.course import load_course

COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
MOST_PER_TEST_CELL = 110
"""The most compiles one test cell may cause (the busiest, frozen_sgd_step's, causes 104: the
first calls of Equinox's and Optax's operations on the layer shapes of three MLPs, which the
compile store then serves to the workers)."""

_counts: collections.Counter[str] = collections.Counter()


def _count(event: str, seconds: float, **kwargs: object) -> None:
    _counts[event] += 1


def compiles_per_test_cell(notebook_path: Path) -> dict[str, int]:
    """Run the notebook's cells in order; how many compiles each test cell caused.

    Needs ``_count`` registered as a JAX monitoring listener, and ``PYTREES_GRADING``
    set, so that the notebooks' ``check`` calls are silent as under a grader.
    """
    jax.clear_caches()
    namespace: dict[str, object] = {"__name__": "__main__"}
    counts = {}
    for cell in nbformat.read(notebook_path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        before = _counts[COMPILE_EVENT]
        exec(compile(cell.source, str(notebook_path), "exec"), namespace)
        if cell.metadata.get("nbgrader", {}).get("grade"):
            counts[cell.metadata["nbgrader"]["grade_id"]] = _counts[COMPILE_EVENT] - before
    return counts


@pytest.fixture(scope="module", autouse=True)
def compile_listener():
    monitoring.register_event_duration_secs_listener(_count)
    yield
    monitoring.unregister_event_duration_listener(_count)


@pytest.mark.parametrize("notebook", load_course().notebooks, ids=lambda notebook: notebook.id)
def test_no_test_cell_compiles_more_than_its_budget(notebook, monkeypatch):
    monkeypatch.setenv("PYTREES_GRADING", "1")
    counts = compiles_per_test_cell(notebook.path)
    assert counts, "the notebook's test cells did not run"
    over = {grade_id: n for grade_id, n in counts.items() if n > MOST_PER_TEST_CELL}
    assert not over, (
        f"{notebook.filename}: these test cells compile more than {MOST_PER_TEST_CELL} JAX "
        f"programs: {over}. Draw hidden inputs from autograder.seeding's few shapes."
    )


if __name__ == "__main__":  # python tests/test_fast_hidden_tests.py: the counts, per notebook
    os.environ["PYTREES_GRADING"] = "1"
    use_cpu_devices()
    monitoring.register_event_duration_secs_listener(_count)
    total = 0
    for notebook in load_course().notebooks:
        with contextlib.redirect_stdout(io.StringIO()):
            started = time.monotonic()
            counts = compiles_per_test_cell(notebook.path)
            seconds = time.monotonic() - started
        total += sum(counts.values())
        print(f"{notebook.id:<16} {sum(counts.values()):4d} compiles {seconds:5.2f} s {counts}")
    print(f"{'all':<16} {total:4d} compiles")
