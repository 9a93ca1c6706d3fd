"""``check()`` in a notebook records the notebook file it runs in, outside JupyterLab too.

nbclient (what ``jupyter nbconvert --execute`` runs) tells the kernel nothing about
the file; VS Code puts its path in the namespace. Either way a pass earned in one
file must not be undone by running another.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbclient
import nbformat
import pytest

from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS, load_course
from conftest import write_variant

CHAPTER = "aux_data"


@pytest.fixture
def record(tmp_path, monkeypatch) -> Path:
    """The progress file the notebooks' kernels write (they inherit the environment)."""
    path = tmp_path / "progress.json"
    monkeypatch.setenv("PYTREES_PROGRESS", str(path))
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    return path


def _solved_copy(folder: Path, name: str, append: tuple[str, ...] = ()) -> Path:
    """The released notebook of CHAPTER with every solution cell filled in, saved as ``name``,
    with the cells ``append`` added at its end."""
    solved = nbformat.read(SOLUTIONS / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    answers = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in solved.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    return write_variant(EXERCISES / CHAPTER / f"{CHAPTER}.ipynb", folder / name, answers, append)


def _untouched(folder: Path, name: str = f"{CHAPTER}.ipynb") -> Path:
    return write_variant(EXERCISES / CHAPTER / f"{CHAPTER}.ipynb", folder / name, {})


def _run(path: Path) -> nbformat.NotebookNode:
    """Execute ``path`` as ``jupyter nbconvert --execute`` does: nbclient, in its folder."""
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,  # the untouched notebook's tests fail, as they should
        resources={"metadata": {"path": str(path.parent)}},
    )
    return client.execute()


def _recorded(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["functions"], data["sources"]


def _functions() -> list[str]:
    return [function.name for function in load_course(EXERCISES).notebook(CHAPTER).functions]


def test_nbclient_records_the_copy_it_ran_and_the_untouched_notebook_takes_nothing_away(
    tmp_path, record
):
    copy = _solved_copy(tmp_path, f"{CHAPTER}-Copy1.ipynb")
    original = _untouched(tmp_path)
    _run(copy)
    _run(original)
    states, sources = _recorded(record)
    names = _functions()
    assert names and {states[name] for name in names} == {"passed"}
    assert {sources[name] for name in names} == {str(copy.resolve())}


def test_nbclient_records_failures_under_the_file_that_failed(tmp_path, record):
    original = _untouched(tmp_path)
    _solved_copy(tmp_path, f"{CHAPTER}-Copy1.ipynb")
    _run(original)
    states, sources = _recorded(record)
    names = _functions()
    assert {states[name] for name in names} == {"failing"}
    assert {sources[name] for name in names} == {str(original.resolve())}


def test_a_notebook_that_cannot_be_told_from_another_is_recorded_under_neither(tmp_path, record):
    first = _untouched(tmp_path)
    second = _untouched(tmp_path, f"{CHAPTER}-Copy1.ipynb")
    _run(first)
    _, sources = _recorded(record)
    recorded = {sources[name] for name in _functions()}
    assert len(recorded) == 1
    (name,) = recorded
    assert name not in {str(first.resolve()), str(second.resolve())}
    assert not Path(name).exists()
    assert Path(name).name != f"{CHAPTER}.ipynb"


def test_check_records_the_file_vs_code_names(tmp_path, record):
    notebook = tmp_path / "elsewhere" / "mine.ipynb"
    function = _functions()[0]
    code = textwrap.dedent(f"""
        __vsc_ipynb_file__ = {str(notebook)!r}
        from autograder.notebook import check
        def {function}(*args):
            raise NotImplementedError
        check({function!r})
    """)
    env = {**os.environ, "PYTREES_PROGRESS": str(record)}
    env.pop("JPY_SESSION_NAME", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    _, sources = _recorded(record)
    assert sources[function] == str(notebook.resolve())


def test_check_with_no_name_under_nbclient_checks_every_function_of_the_notebook(tmp_path, record):
    executed = _run(_solved_copy(tmp_path, "mine.ipynb", append=("check()",)))
    last = executed.cells[-1]
    lines = "".join(o.get("text", "") for o in last.outputs if o.output_type == "stream")
    lines = lines.splitlines()
    names = _functions()
    assert lines == [f"✅ PASS {name}" for name in names] + [lines[-1]], last.outputs
    assert lines[-1].startswith(f"{len(names)} of {len(names)} functions of {CHAPTER} pass")
