"""A kernel that kept the JAX it imported before pip replaced it: ``check`` says to restart.

Each test runs a kernel-like process of its own, so that no module put in its
``sys.modules`` reaches another test.
"""

from __future__ import annotations

import importlib.metadata
import os
import textwrap

import pytest
from test_learner_tools import _kernel_like_run, _solution_sources

INSTALLED = importlib.metadata.version("jax")


@pytest.fixture
def progress_file(tmp_path):
    return tmp_path / "progress.json"


def _run(cells: list[str], progress_file) -> str:
    code = "\n".join(textwrap.dedent(cell) for cell in cells)
    return _kernel_like_run(code, {**os.environ, "PYTREES_PROGRESS": str(progress_file)})


@pytest.mark.parametrize("call", ['check("{name}")', "check()", 'solution("{name}")'])
def test_a_kernel_that_kept_an_older_jax_is_told_to_restart_and_nothing_is_checked(
    course, progress_file, call
):
    notebook = course.notebooks[0]
    kept = """
        import sys, types
        kept = types.ModuleType("jax")
        kept.__version__ = "0.7.2"
        sys.modules["jax"] = kept
        from autograder.notebook import check, solution
    """
    called = call.format(name=notebook.functions[0].name)
    out = _run([kept, *_solution_sources(notebook), called], progress_file)
    assert out.splitlines() == [
        f"Nothing was checked: this kernel still runs JAX 0.7.2, imported before JAX "
        f"{INSTALLED}, the version the course needs, was installed. Restart the kernel "
        "(Jupyter: Kernel > Restart; Colab: Runtime > Restart session), then run the "
        "notebook again from the top."
    ]
    assert not progress_file.exists()


def test_a_kernel_running_the_installed_jax_is_checked(course, progress_file):
    notebook = course.notebooks[0]
    name = notebook.functions[0].name
    cells = [notebook.setup_source, *_solution_sources(notebook), f"check({name!r})"]
    out = _run(cells, progress_file)
    assert f"✅ PASS {name} passes its visible tests" in out


def test_a_kernel_that_has_not_imported_jax_is_checked(course, progress_file):
    name = course.notebooks[0].functions[0].name
    cells = [
        "import sys\nfrom autograder.notebook import check",
        f"def {name}(*args, **kwargs):\n    raise NotImplementedError()",
        "assert 'jax' not in sys.modules",
        f"check({name!r})",
    ]
    out = _run(cells, progress_file)
    assert f"❌ FAIL {name}: {name} is not written yet" in out


def test_a_kernel_is_told_to_restart_once_pip_replaces_the_jax_it_had_checked_with(
    course, progress_file, tmp_path
):
    notebook = course.notebooks[0]
    name = notebook.functions[0].name
    site = tmp_path / "site"
    site.mkdir()
    replaced = f"""
        print("---")
        import pathlib
        info = pathlib.Path({str(site)!r}) / "jax-99.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\\nName: jax\\nVersion: 99.0\\n")
        check({name!r})
    """
    cells = [
        f"import sys\nsys.path.insert(0, {str(site)!r})",
        notebook.setup_source,
        *_solution_sources(notebook),
        f"check({name!r})",
        replaced,
    ]
    before, after = _run(cells, progress_file).split("---")
    assert f"✅ PASS {name} passes its visible tests" in before
    assert after.strip().startswith(
        f"Nothing was checked: this kernel still runs JAX {INSTALLED}, imported before JAX "
        "99.0, the version the course needs, was installed."
    )
