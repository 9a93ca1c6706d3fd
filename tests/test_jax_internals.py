"""The one module that relies on JAX's internals, and what happens when a JAX release moves them."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest

from autograder.execute.run import Limits
from autograder.grade import fill_store
from autograder.isolate import bubblewrap
from autograder.load.course import PACKAGE_DIR, SOLUTIONS, grader_sources, load_course
from autograder.store import jax_internals
from autograder.store.calls import RECORD_GLOB

PRIVATE = re.compile(r"^jax\._src\b")


def reads_jax_private_modules(source: str) -> bool:
    """Whether code (not prose: a docstring or a pattern may name them) reaches ``jax._src``.

    By an import, by the attribute ``jax._src``, or by a module name given as a string
    to an import function.
    """
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(PRIVATE.match(a.name) for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            PRIVATE.match(node.module or "")
            or (node.module == "jax" and any(a.name == "_src" for a in node.names))
        ):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "_src":
            return True
        if isinstance(node, ast.Call) and any(
            isinstance(arg, ast.Constant)
            and isinstance(arg.value, str)
            and PRIVATE.match(arg.value)
            for arg in node.args
        ):
            return True
    return False


def test_every_private_name_the_compile_store_relies_on_is_in_this_jax():
    gone = jax_internals.missing()
    assert not gone, (
        f"{jax_internals.jax_version()} no longer has {', '.join(gone)}: update "
        "autograder/store/jax_internals.py (its PRIVATE_NAMES) before grading with a store"
    )


def test_a_name_that_disappears_is_reported_with_its_module(monkeypatch):
    names = (*jax_internals.PRIVATE_NAMES, ("jax._src.core", "NoSuchThing"), ("jax._src.nope", "x"))
    monkeypatch.setattr(jax_internals, "PRIVATE_NAMES", names)
    assert jax_internals.missing() == ["jax._src.core.NoSuchThing", "jax._src.nope (the module)"]


def test_no_other_module_of_the_grader_reads_jax_private_modules():
    readers = [
        path.relative_to(PACKAGE_DIR).as_posix()
        for path in grader_sources()
        if reads_jax_private_modules(path.read_text(encoding="utf-8"))
    ]
    assert readers == ["store/jax_internals.py"]


def test_every_private_module_the_fenced_module_imports_is_listed():
    tree = ast.parse((PACKAGE_DIR / "store" / "jax_internals.py").read_text(encoding="utf-8"))
    imported = {
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jax._src")
        for alias in node.names
    }
    listed = {module for module, _name in jax_internals.PRIVATE_NAMES}
    listed |= {f"{module}.{name.split('.')[0]}" for module, name in jax_internals.PRIVATE_NAMES}
    assert {name for name in imported if name not in listed} == set()


needs_bubblewrap = pytest.mark.skipif(
    bubblewrap.bubblewrap() is None, reason="the store is filled only under bubblewrap"
)


@needs_bubblewrap
def test_a_store_that_cannot_be_filled_is_said_recorded_and_not_tried_again(tmp_path, monkeypatch):
    course = load_course(SOLUTIONS)
    monkeypatch.setattr(jax_internals, "missing", lambda: ["jax._src.core.Gone"])
    said: list[str] = []
    assert fill_store.prepare(course, tmp_path, Limits(), 0, say=said.append) is None
    assert len(said) == 2 and "jax._src.core.Gone" in said[1]
    (record,) = tmp_path.glob(f"*{fill_store.FAILED_SUFFIX}")
    assert "jax._src.core.Gone" in json.loads(record.read_text())["reason"]

    def must_not_run() -> list[str]:
        raise AssertionError("a failed fill was tried again")

    monkeypatch.setattr(jax_internals, "missing", must_not_run)
    said.clear()
    assert fill_store.prepare(course, tmp_path, Limits(), 0, say=said.append) is None
    assert len(said) == 1 and "jax._src.core.Gone" in said[0] and str(record) in said[0]


@needs_bubblewrap
def test_a_failed_fill_is_tried_again_for_another_seed(tmp_path, monkeypatch):
    course = load_course(SOLUTIONS)
    monkeypatch.setattr(jax_internals, "missing", lambda: ["jax._src.core.Gone"])
    fill_store.prepare(course, tmp_path, Limits(), 0, say=lambda line: None)
    said: list[str] = []
    fill_store.prepare(course, tmp_path, Limits(), 1, say=said.append)
    assert said[0].startswith("note: compiling")
    assert len(list(tmp_path.glob(f"*{fill_store.FAILED_SUFFIX}"))) == 2


HEAR_BOTH = """
import sys
from autograder.store.jax_internals import record_calls
record_calls(sys.argv[1])
import jax, jax.numpy as jnp
x = jnp.ones(3)
jnp.tanh(x)
jax.lax.add(x, x)
"""


def test_recording_hears_of_both_a_jitted_jax_function_and_an_eager_primitive(tmp_path):
    subprocess.run([sys.executable, "-c", HEAR_BOTH, str(tmp_path)], check=True)
    records = [json.loads(line) for p in tmp_path.glob(RECORD_GLOB) for line in p.open()]
    expected = {
        "jax._src.pjit._run_python_pjit": ("jit", ["jax._src.numpy.ufuncs", "tanh"]),
        "jax._src.dispatch.xla_primitive_callable": ("primitive", "add"),
    }
    silent = [
        hook
        for hook, (kind, name) in expected.items()
        if not any(record.get(kind) == name for record in records)
    ]
    version = jax_internals.jax_version()
    assert not silent, f"{version}: the hook on {', '.join(silent)} heard nothing"
