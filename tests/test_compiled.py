"""The compile store: compiled JAX operations that workers read but never write."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.compare.failures import LearnerError
from autograder.execute.run import Limits, NotebookRun
from autograder.grade import fill_store
from autograder.grade.fill_store import WORTH_FILLING_FOR
from autograder.isolate import bubblewrap
from autograder.load.course import REPO_ROOT
from autograder.store.calls import RECORD_GLOB
from autograder.store.folder import STORE_MOUNT, CompileStore
from conftest import run_cli

pytestmark = pytest.mark.skipif(
    bubblewrap.bubblewrap() is None, reason="the store is shared only under bubblewrap"
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
    _fill(tmp_path, TANH)
    reading = _run(CompileStore(str(tmp_path)), COUNT_HITS)
    try:
        assert reading.call("store_hits", (), {}) >= 1
    finally:
        reading.close()


def test_a_worker_cannot_write_into_the_store(tmp_path):
    run = _run(
        CompileStore(str(tmp_path)),
        f"def plant():\n    open('{STORE_MOUNT}/jit_tanh-planted', 'w').write('x')",
        "def mount_options():\n"
        "    for line in open('/proc/self/mountinfo'):\n"
        f"        if line.split()[4] == '{STORE_MOUNT}':\n"
        "            return line.split()[5].split(',')",
    )
    try:
        with pytest.raises(LearnerError) as raised:
            run.call("plant", (), {})
        options = run.call("mount_options", (), {})
    finally:
        run.close()
    # as root the sandbox's user is refused before the read-only mount is reached
    assert raised.value.type in {"OSError", "PermissionError"}
    assert "ro" in options and not list(tmp_path.iterdir())


def test_a_jax_operation_named_like_a_course_function_reaches_the_store(tmp_path):
    _fill(tmp_path, "import jax.numpy as jnp\n_ = jnp.stack([jnp.ones(3), jnp.ones(3)])")
    assert "jit_stack" in _modules(tmp_path)
    assert not list(tmp_path.glob(RECORD_GLOB))


def test_a_jitted_course_function_never_reaches_the_store(tmp_path):
    _fill(
        tmp_path,
        "import jax, jax.numpy as jnp",
        "def stack(trees):\n    return jax.tree.map(lambda *xs: jnp.stack(xs), *trees)",
        "_ = jax.jit(stack)([jnp.ones(2), jnp.ones(2)])",
    )
    assert "jit_stack" not in _modules(tmp_path)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("jit_scan", "_ = jax.lax.map(double, jnp.ones((2, 3)))"),
        ("jit__piecewise", "_ = jnp.piecewise(jnp.ones(3), [jnp.ones(3) > 0], [double])"),
        ("jit__unnamed_function", "_ = jax.jit(Doubler())(jnp.ones(3))"),
    ],
)
def test_a_jax_operation_given_course_code_never_reaches_the_store(tmp_path, module, source):
    _fill(
        tmp_path,
        "import jax, jax.numpy as jnp",
        "def double(x):\n    return x * 2\n"
        "class Doubler:\n    def __call__(self, x):\n        return x * 2",
        source,
    )
    assert module not in _modules(tmp_path)


def _fill(folder, *sources: str) -> None:
    """Run ``sources`` as the reference run does, then fill ``folder`` from what they compiled."""
    done = "def done():\n    return 1"
    recording = _run(CompileStore(str(folder), writable=True), *sources, done)
    recording.call("done", (), {})
    recording.close()
    assert fill_store._replay(folder, 1) is None


def _modules(folder) -> set[str]:
    return {fill_store.ENTRY.match(p.name)["module"] for p in folder.glob("*-cache")}


def _learners(folder: Path, count: int, chapter: str = "leaves") -> Path:
    """``count`` learners who each hand in the untouched ``chapter`` notebook."""
    for number in range(count):
        learner = folder / f"learner{number}"
        learner.mkdir(parents=True)
        shutil.copy(REPO_ROOT / "exercises" / chapter / f"{chapter}.ipynb", learner)
    return folder


def test_grading_fills_the_store_once_with_jax_operations_only(tmp_path):
    # one chapter assigned, so one chapter's reference solutions fill the store
    store = tmp_path / "store"
    learners = _learners(tmp_path / "class", WORTH_FILLING_FOR, "mapping")
    first = run_cli(
        "grade", learners, "--assignment", "mapping", "--compile-store", store, "--no-cache"
    )
    assert "compiling the course's JAX operations once" in first.stderr
    filled = [p for p in store.iterdir() if p.is_dir() and p.name != "grader"]
    assert len(filled) == 1, first.stderr
    assert "jit_square" in _modules(filled[0]) and not list(filled[0].glob(RECORD_GLOB))
    again = run_cli(
        "grade",
        "exercises/mapping",
        "--assignment",
        "mapping",
        "--compile-store",
        store,
        "--no-cache",
    )
    assert "compiling" not in again.stderr and "without the compile store" not in again.stderr


def test_too_few_learners_to_repay_the_filling_are_graded_without_filling_it(tmp_path):
    store, learners = tmp_path / "store", _learners(tmp_path / "class", WORTH_FILLING_FOR - 1)
    graded = run_cli("grade", learners, "--compile-store", store, "--no-cache")
    assert graded.returncode == 0
    assert f"pays from {WORTH_FILLING_FOR} learners on" in graded.stderr
    assert not [p for p in store.iterdir() if p.is_dir() and p.name != "grader"]
