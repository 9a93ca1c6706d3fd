"""What a learner uses while working: `check`, `status`, and `check`/`hint` in a notebook."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from autograder.registry import EXERCISES, REPO_ROOT, SOLUTIONS
from conftest import run_cli


@pytest.fixture
def progress_env(tmp_path):
    return {**os.environ, "PYTREES_PROGRESS": str(tmp_path / "progress.json")}


def test_check_on_an_untouched_notebook_exits_1_and_shows_hints(released_course, progress_env):
    notebook = released_course.notebooks[0]
    done = run_cli("check", EXERCISES / notebook.id / notebook.filename, env=progress_env)
    assert done.returncode == 1
    assert "not written yet" in done.stdout
    assert "Hint:" in done.stdout


def test_check_on_a_solved_notebook_exits_0(released_course, progress_env, tmp_path):
    notebook = released_course.notebooks[0]
    solved = tmp_path / notebook.filename
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, solved)
    done = run_cli("check", solved, env=progress_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "All visible tests pass" in done.stdout


def test_check_runs_only_the_visible_tests(released_course):
    for function in released_course.functions:
        assert all(not test.hidden_lines for test in function.tests)
        assert all("HIDDEN" not in test.source for test in function.tests)


def test_status_shows_what_check_recorded(released_course, progress_env, tmp_path):
    notebook = released_course.notebooks[0]
    solved = tmp_path / notebook.filename
    shutil.copy(SOLUTIONS / notebook.id / notebook.filename, solved)
    assert run_cli("check", solved, env=progress_env).returncode == 0
    done = run_cli("status", env=progress_env)
    assert done.returncode == 0
    passed = len(notebook.functions)
    assert f"{passed} of {len(released_course.functions)} functions pass" in done.stdout
    for function in released_course.functions:
        assert function.name in done.stdout


def test_status_before_any_check_shows_nothing_done(released_course, progress_env):
    done = run_cli("status", env=progress_env)
    assert done.returncode == 0
    assert f"0 of {len(released_course.functions)} functions pass" in done.stdout


def test_check_of_a_file_that_is_not_a_course_notebook_exits_2(tmp_path, progress_env):
    stray = tmp_path / "mine.ipynb"
    stray.write_text("{}")
    done = run_cli("check", stray, env=progress_env)
    assert done.returncode == 2 and "mine.ipynb is not one of the course's notebooks" in done.stderr


def _kernel_like_run(code: str, env: dict[str, str]) -> str:
    """Run ``code`` as a learner's kernel would: the notebook's cells, one namespace."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_in_notebook_check_is_instant_once_jax_is_imported(course, progress_env):
    notebook = course.notebooks[-1]
    cells = "\n".join(
        textwrap.dedent(source) for source in [notebook.setup_source, *_solution_sources(notebook)]
    )
    name = notebook.functions[0].name
    code = cells + textwrap.dedent(f"""
        import time
        started = time.perf_counter()
        check({name!r})
        print(f"SECONDS={{time.perf_counter() - started:.3f}}")
    """)
    out = _kernel_like_run(code, progress_env)
    assert f"✅ {name} passes its visible tests" in out
    seconds = float(out.split("SECONDS=")[1].split()[0])
    assert seconds < 0.5


def test_in_notebook_check_explains_a_failure_and_hints_unlock_one_at_a_time(
    released_course, progress_env
):
    function = released_course.notebooks[0].functions[0]
    notebook = released_course.notebooks[0]
    code = notebook.setup_source + textwrap.dedent(f"""
        def {function.name}(*args, **kwargs):
            raise NotImplementedError()
        check({function.name!r})
        hint({function.name!r})
        print("---")
        hint({function.name!r})
    """)
    out = _kernel_like_run(code, progress_env)
    first, second = out.split("---")
    assert f"❌ {function.name}: {function.name} is not written yet" in first
    assert "Hint 1/" in first and "Hint 2/" not in first
    assert "Hint 2/" in second


def test_check_and_hint_are_silent_while_grading(released_course, progress_env):
    name = released_course.functions[0].name
    env = {**progress_env, "PYTREES_GRADING": "1"}
    out = _kernel_like_run(
        f"from autograder.notebook import check, hint\ncheck({name!r})\nhint({name!r})", env
    )
    assert out == ""


def _solution_sources(notebook):
    import nbformat

    nb = nbformat.read(notebook.path, as_version=4)
    return [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
