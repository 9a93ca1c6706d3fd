"""The compile store: compiled JAX operations that workers read but never write."""

from __future__ import annotations

import pytest

from autograder import compiled, isolation
from autograder.compiled import CompileStore
from autograder.isolation import STORE_MOUNT
from autograder.registry import load_course
from autograder.sandbox import LearnerError, Limits, NotebookRun
from conftest import run_cli

pytestmark = pytest.mark.skipif(
    isolation.bubblewrap() is None, reason="the store is shared only under bubblewrap"
)

TANH = "import jax.numpy as jnp\n_ = jnp.tanh(jnp.ones(7))"
COUNT_HITS = """
from jax._src import monitoring
hits = []
monitoring.register_event_listener(lambda event, **kw: hits.append(event))
import jax.numpy as jnp
_ = jnp.tanh(jnp.ones(7))
def store_hits():
    return hits.count("/jax/compilation_cache/cache_hits")
"""


def _run(store: CompileStore, *sources: str) -> NotebookRun:
    limits = Limits(notebook_seconds=60, cell_seconds=30, call_seconds=30, compile_store=store)
    return NotebookRun(list(enumerate(sources, start=1)), limits)


def test_a_worker_loads_an_operation_the_reference_run_compiled(tmp_path):
    filling = _run(CompileStore(str(tmp_path), writable=True), TANH, "def done():\n    return 1")
    filling.call("done", (), {})
    filling.close()
    reading = _run(CompileStore(str(tmp_path)), COUNT_HITS)
    try:
        assert reading.call("store_hits", (), {}) >= 1
    finally:
        reading.close()


def test_a_worker_cannot_write_into_the_store(tmp_path):
    run = _run(
        CompileStore(str(tmp_path)),
        f"def plant():\n    open('{STORE_MOUNT}/jit_tanh-planted', 'w').write('x')",
    )
    try:
        with pytest.raises(LearnerError) as raised:
            run.call("plant", (), {})
    finally:
        run.close()
    assert "Read-only file system" in raised.value.message and not list(tmp_path.iterdir())


def test_functions_the_course_defines_are_removed_from_the_store(tmp_path):
    digest = "0" * 64
    for module in ("jit_mlp_forward", "jit__lambda_", "jit_vmap_init_mlp_", "jit_tanh"):
        (tmp_path / f"{module}-{digest}-cache").write_bytes(b"compiled")
    compiled._remove_course_functions(tmp_path, load_course())
    assert [p.name for p in tmp_path.iterdir()] == [f"jit_tanh-{digest}-cache"]


def test_grading_fills_the_store_once_with_jax_operations_only(tmp_path):
    store = tmp_path / "store"
    first = run_cli("grade", "exercises/leaves", "--compile-store", store, "--no-cache")
    assert "compiling the course's JAX operations once" in first.stderr
    (filled,) = [p for p in store.iterdir() if p.is_dir() and p.name != "grader"]
    modules = {compiled.ENTRY.match(p.name)["module"] for p in filled.glob("*-cache")}
    assert "jit_tanh" in modules
    course_names = compiled._defined_names(load_course())
    assert not {m for m in modules for name in course_names if compiled.names_function(m, name)}
    again = run_cli("grade", "exercises/leaves", "--compile-store", store, "--no-cache")
    assert "compiling" not in again.stderr and again.returncode == first.returncode
