"""Hidden tests stay fast: each test cell compiles few JAX programs (AUTHORING.md).

Every new shape a test hands a function is a new trace and compile in a fresh
worker, and another in the grader for the expected value. Here each solution
notebook runs in one process, as nbgrader runs it, and JAX's own monitoring
events count the compiles each test cell causes on both sides together.
"""

from __future__ import annotations

import collections

import jax
import nbformat
import pytest
from jax import monitoring

from autograder.load.course import load_course

COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
MOST_PER_TEST_CELL = 60
"""The most compiles one test cell may cause (the busiest, tree_unravel's, causes 55)."""

_counts: collections.Counter[str] = collections.Counter()


def _count(event: str, seconds: float, **kwargs: object) -> None:
    _counts[event] += 1


@pytest.fixture(scope="module", autouse=True)
def compile_listener():
    monitoring.register_event_duration_secs_listener(_count)
    yield
    monitoring.unregister_event_duration_listener(_count)


def compiles_per_test_cell(notebook_path, monkeypatch, tmp_path) -> dict[str, int]:
    """Run the notebook's cells in order; how many compiles each test cell caused."""
    monkeypatch.setenv("PYTREES_PROGRESS", str(tmp_path / "progress.json"))
    jax.clear_caches()
    namespace: dict[str, object] = {"__name__": "__main__"}
    counts = {}
    for cell in nbformat.read(notebook_path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        before = _counts[COMPILE_EVENT]
        exec(compile(cell.source, str(notebook_path), "exec"), namespace)
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if cell.metadata.get("nbgrader", {}).get("grade"):
            counts[grade_id] = _counts[COMPILE_EVENT] - before
    return counts


@pytest.mark.parametrize("notebook", load_course().notebooks, ids=lambda notebook: notebook.id)
def test_no_test_cell_compiles_more_than_its_budget(notebook, monkeypatch, tmp_path):
    counts = compiles_per_test_cell(notebook.path, monkeypatch, tmp_path)
    assert counts, "the notebook's test cells did not run"
    over = {grade_id: n for grade_id, n in counts.items() if n > MOST_PER_TEST_CELL}
    assert not over, (
        f"{notebook.filename}: these test cells compile more than {MOST_PER_TEST_CELL} JAX "
        f"programs: {over}. Draw hidden inputs from autograder.seeding's few shapes."
    )
