"""A released exercise notebook used as a hosted one is: alone in an empty folder, run by a
kernel whose Python has nothing of the course, its first cell installing the course's
checker through pip from a folder of wheels."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from test_learner_tools import _grade_id, _solution_sources

from autograder.author.first_cell import first_cell
from autograder.author.learner_package import distribution
from autograder.author.release import REQUIREMENTS, read_requirements, write_release
from autograder.grade.plugin import course_copy
from autograder.load.course import EXERCISES, REPO_ROOT, ExerciseNotebook
from autograder.load.install_cell import is_install_cell
from autograder.load.learner_notebook import cells_to_run, cells_touching_the_grader
from booktools.chapter_notebooks import chapter_notebook, course_first_cell, exercise_notebook

# what a bare Jupyter has beside pip: the kernel, at the course's versions
KERNEL_ONLY = "ipykernel"
# the environment of the course's own venv and tests, which a hosted kernel has not
NOT_HOSTED = ("PYTHONPATH", "PYTREES_PROGRESS", "VIRTUAL_ENV", "JPY_SESSION_NAME")


def _kernel(venv: Path, home: Path) -> str:
    """A kernelspec, under ``home``, that runs ``venv``'s Python; its name."""
    spec = home / "kernels" / "standalone"
    spec.mkdir(parents=True)
    argv = [str(venv / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "standalone", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    return "standalone"


def _learners_cells(nb: nbformat.NotebookNode, name: str, solved: str) -> None:
    """Answer ``name`` wrongly in its answer cell, then check, hint and reveal; answer it
    right, then check and reveal again."""
    [answer] = [cell for cell in nb.cells if _grade_id(cell) == name]
    answer.source = f"def {name}(*args, **kwargs):\n    return 0"
    for source in (
        f"check({name!r})",
        f"hint({name!r})",
        f"solution({name!r})",
        solved,
        f"check({name!r})",
        f"solution({name!r})",
    ):
        nb.cells.append(nbformat.v4.new_code_cell(source))


def _said(cell: nbformat.NotebookNode) -> str:
    """What a cell showed: its streams and its plain-text outputs."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif "text/plain" in output.get("data", {}):
            parts.append(output.data["text/plain"])
        elif output.output_type == "error":
            parts.append("\n".join(output.traceback))
    return "".join(parts)


@contextlib.contextmanager
def _hosted(env: dict[str, str]) -> Iterator[None]:
    """``env`` as this process's environment, which the kernels it starts inherit."""
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _report(folder: Path, env: dict[str, str]) -> dict[str, object]:
    """The course's grader's JSON report of ``folder``, its learner's name left out."""
    out = folder.parent / f"{folder.name}.json"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(folder), "--assignment", "leaves",
         "--json", str(out)],
        capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=600,
    )  # fmt: skip
    assert out.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    for student in report["students"]:
        student.pop("student")
    return report


PACKAGE_URL = "https://example.org/wheels/"


def _install_cell() -> str:
    return first_cell(PACKAGE_URL, read_requirements(REQUIREMENTS)).source


def test_in_the_courses_own_venv_the_install_cell_installs_nothing_and_says_nothing():
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": ""}
    done = subprocess.run(
        [sys.executable, "-c", _install_cell()], capture_output=True, text=True, env=env,
        cwd=REPO_ROOT, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_install_cell_finds_the_package_in_the_folder_or_page_it_names():
    source = _install_cell()
    name, version = distribution()
    assert f"{name}=={version}" in source and repr(PACKAGE_URL) in source


@pytest.mark.parametrize(
    "edit",
    [
        lambda source: source.replace("if ready:", "print(1)\n    if ready:"),
        lambda source: source.replace("'0.10.2'", "__import__('os').getcwd()"),
        lambda source: source + "\nimport autograder",
    ],
    ids=["its body", "an argument that is not a literal", "a line after it"],
)
def test_an_install_cell_edited_but_in_its_arguments_is_the_learners(edit):
    source = _install_cell()
    assert is_install_cell(source) and edit(source) != source
    assert not is_install_cell(edit(source))


def test_telling_the_install_cell_from_ten_thousand_cells_takes_under_two_seconds():
    """A notebook of 100 MiB holds some 600 000 code cells, each asked about twice."""
    started = time.perf_counter()
    assert not any(is_install_cell("pass") for _ in range(10_000))
    assert time.perf_counter() - started < 2


def test_the_grader_neither_runs_nor_reports_the_install_cell(released_course):
    exercise = released_course.notebooks[0]
    nb = nbformat.read(exercise.path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_install_cell()))
    course = course_copy(exercise)
    assert [number for number, _ in cells_to_run(nb, exercise, course)][0] > 1
    assert cells_touching_the_grader(nb, course) == []


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release whose notebooks install from its own ``dist/``."""
    release = tmp_path_factory.mktemp("released") / "release"
    write_release(release, package_url=str(release / "dist"))
    return release


def _venv(root: Path, env: dict[str, str], python: str, *packages: str) -> Path:
    """A venv of ``python`` at ``root / "venv"`` holding ``packages`` besides pip."""
    venv = root / "venv"
    subprocess.run([python, "-m", "venv", venv], check=True, env=env, timeout=300)
    installed = subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "--quiet", *packages],
        capture_output=True, text=True, env=env, timeout=1200,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-3000:]
    return venv


def _answered(notebook: ExerciseNotebook, nb: nbformat.NotebookNode) -> str:
    """``nb`` with the learner's cells of :func:`_learners_cells` for ``notebook``'s first
    function; that function's name."""
    name = notebook.functions[0].name
    [solved] = [
        source for source in _solution_sources(notebook) if source.startswith(f"def {name}(")
    ]
    _learners_cells(nb, name, solved)
    return name


def _run(nb: nbformat.NotebookNode, kernel: str, folder: Path, env: dict[str, str]) -> float:
    """Run ``nb`` in ``folder`` by ``kernel``, as a hosted notebook is; the seconds to its
    first ``check``'s end."""
    started, seconds = time.monotonic(), None
    with _hosted(env):
        # a learner's cells may fail (the wrong answer's visible test does); the run goes on
        client = NotebookClient(
            nb, timeout=1200, kernel_name=kernel, allow_errors=True,
            resources={"metadata": {"path": str(folder)}},
        )  # fmt: skip
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
                if seconds is None and cell.source.startswith("check("):
                    seconds = time.monotonic() - started
    return seconds or 0.0


@pytest.fixture(scope="module")
def standalone(course, release, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The release's first notebook run, answered wrongly then rightly, alone in an empty
    folder by a kernel whose venv held only pip and ipykernel; the seconds from the
    empty venv to the first ``check``."""
    root = tmp_path_factory.mktemp("standalone")
    wheels = release / "dist"
    notebook = course.notebooks[0]
    env = {key: value for key, value in os.environ.items() if key not in NOT_HOSTED}
    env |= {"PIP_FIND_LINKS": str(wheels), "JUPYTER_PATH": str(root / "jupyter")}
    started = time.monotonic()
    constraints = str(release / "requirements.txt")
    venv = _venv(root, env, sys.executable, KERNEL_ONLY, "-c", constraints)
    folder = root / "work"
    folder.mkdir()
    released = release / "exercises" / notebook.id / notebook.filename
    nb = nbformat.read(released, as_version=4)
    name = _answered(notebook, nb)
    kernel = _kernel(venv, root / "jupyter")
    seconds = time.monotonic() - started + _run(nb, kernel, folder, env)
    nbformat.write(nb, folder / notebook.filename)
    # the same learner's work in the course's repository: the notebook nbgrader generated
    in_repository = nbformat.read(EXERCISES / notebook.id / notebook.filename, as_version=4)
    in_repository.cells = nb.cells[1:]
    return {"name": name, "nb": nb, "folder": folder, "venv": venv, "seconds": seconds,
            "env": env, "kernel": kernel, "wheels": wheels,
            "in_repository": in_repository, "nb_file": notebook.filename}  # fmt: skip


@pytest.mark.slow
def test_the_first_cell_of_a_standalone_notebook_says_what_it_installs_then_installs_it(
    standalone,
):
    first = standalone["nb"].cells[0]
    said = _said(first)
    assert said.startswith("Installing the course's checker (") and said.count("\n") == 1
    assert "JAX 0.10.2" in said and "a few minutes" in said
    venv_python = standalone["venv"] / "bin" / "python"
    where = "import jax, autograder.notebook as n; print(jax.__version__, n.__file__)"
    versions = subprocess.run(
        [venv_python, "-c", where], capture_output=True, text=True, timeout=300,
        cwd=standalone["folder"], env=standalone["env"],
    )  # fmt: skip
    version, where = versions.stdout.split()
    assert version == "0.10.2" and Path(standalone["venv"]) in Path(where).parents
    print(f"first cell: {said.strip()}\nempty venv to first check: {standalone['seconds']:.0f} s")


@pytest.mark.slow
def test_a_standalone_notebook_checks_hints_and_reveals_as_in_the_course(standalone):
    name = standalone["name"]
    said = {
        cell.source: _said(cell) for cell in standalone["nb"].cells[1:] if cell.cell_type == "code"
    }
    checks = [_said(cell) for cell in standalone["nb"].cells if cell.source == f"check({name!r})"]
    reveals = [
        _said(cell) for cell in standalone["nb"].cells if cell.source == f"solution({name!r})"
    ]
    assert f"❌ FAIL {name}: " in checks[0] and f"✅ PASS {name}" in checks[1]
    print("".join(f"check({name!r}):\n{output}" for output in checks))
    assert "Hint 1/" in said[f"hint({name!r})"]
    assert f"🔒 The reference solution of {name}" in reveals[0]
    assert f"📖 The reference solution of {name}" in reveals[1]


@pytest.mark.slow
def test_a_standalone_notebook_keeps_progress_beside_it(standalone):
    record = json.loads((standalone["folder"] / ".course-progress.json").read_text())
    # the notebook's other check cells ran too, on their stubs
    assert record["functions"][standalone["name"]] == "passed"
    assert record["hints"] == {standalone["name"]: 1}
    assert list(Path(standalone["venv"]).rglob(".course-progress.json")) == []


@pytest.mark.slow
def test_grading_a_standalone_notebook_gives_the_report_of_its_copy_in_the_repository(
    standalone, tmp_path
):
    name = standalone["name"]
    alone = tmp_path / "alone"
    shutil.copytree(standalone["folder"], alone, ignore=shutil.ignore_patterns(".*"))
    in_repository = tmp_path / "in_repository"
    in_repository.mkdir()
    nbformat.write(standalone["in_repository"], in_repository / standalone["nb_file"])
    env = {key: value for key, value in os.environ.items() if key not in NOT_HOSTED}
    report = _report(alone, env)
    assert report == _report(in_repository, env)
    assert f"{name}" in json.dumps(report)


@pytest.mark.slow
def test_a_chapter_notebook_runs_top_to_bottom_where_the_install_cell_installed_the_course(
    standalone, tmp_path
):
    first = course_first_cell(str(standalone["wheels"]))
    nb = chapter_notebook(REPO_ROOT / "book" / "leaves.md", first)
    assert is_install_cell(nb.cells[0].source)
    with _hosted(standalone["env"]):
        NotebookClient(
            nb, timeout=600, kernel_name=standalone["kernel"],
            resources={"metadata": {"path": str(tmp_path)}},
        ).execute()  # fmt: skip
    assert any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")


# What Colab's Python 3.12 runtime is known to hold (2025-26): the IPython and ipykernel
# its own package pins, an older numpy and the older JAX the install cell must replace.
LIKE_COLAB = ("ipython==7.34.0", "ipykernel==6.17.1", "numpy==2.0.2", "jax==0.7.2", "jaxlib==0.7.2")
COLAB_PYTHON = "python3.12"


def _colab_python() -> str | None:
    """A ``COLAB_PYTHON`` that runs: on the PATH, or one of pyenv's versions (whose shim
    on the PATH may not run while another version is selected)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = [shutil.which(COLAB_PYTHON), *sorted(pyenv.glob(f"versions/*/bin/{COLAB_PYTHON}"))]
    for python in filter(None, found):
        if subprocess.run([python, "-c", ""], capture_output=True, timeout=60).returncode == 0:
            return str(python)
    return None


@pytest.fixture(scope="module")
def like_colab(course, release, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A kernel on Python 3.12 that runs on libraries of its own (``LIKE_COLAB``): the
    chapter notebook the book publishes runs first, its install cell installing the
    course; then the exercise notebook the book publishes, answered wrongly then rightly;
    the versions the kernel's venv holds after."""
    python = _colab_python()
    if python is None and os.environ.get("CI") != "true":
        pytest.skip(f"no {COLAB_PYTHON} here to stand for Colab's Python")
    assert python is not None, f"{COLAB_PYTHON} is needed to stand for Colab's Python"
    root = tmp_path_factory.mktemp("like_colab")
    env = {key: value for key, value in os.environ.items() if key not in NOT_HOSTED}
    env |= {"JUPYTER_PATH": str(root / "jupyter")}
    venv = _venv(root, env, python, *LIKE_COLAB)
    kernel = _kernel(venv, root / "jupyter")
    first = course_first_cell(str(release / "dist"))
    chapter = chapter_notebook(REPO_ROOT / "book" / "leaves.md", first)
    folder = root / "work"
    folder.mkdir()
    _run(chapter, kernel, folder, env)
    notebook = course.notebooks[0]
    exercise = exercise_notebook(notebook.path, first, None)
    name = _answered(notebook, exercise)
    _run(exercise, kernel, folder, env)
    where = "import IPython, ipykernel, jax\nfor m in IPython, ipykernel, jax: print(m.__version__)"
    versions = subprocess.run(
        [venv / "bin" / "python", "-c", where], capture_output=True, text=True, env=env,
        timeout=300,
    )  # fmt: skip
    return {"chapter": chapter, "exercise": exercise, "name": name,
            "versions": versions.stdout.split()}  # fmt: skip


@pytest.mark.slow
def test_in_a_kernel_like_colabs_the_install_cell_replaces_jax_but_not_the_kernels_libraries(
    like_colab,
):
    said = _said(like_colab["chapter"].cells[0])
    assert said.startswith("Installing the course's checker (") and said.count("\n") == 1
    assert like_colab["versions"] == ["7.34.0", "6.17.1", "0.10.2"]


@pytest.mark.slow
def test_in_a_kernel_like_colabs_a_chapter_notebook_runs_top_to_bottom(like_colab):
    cells = [cell for cell in like_colab["chapter"].cells if cell.cell_type == "code"]
    failed = [cell for cell in cells if any(o.output_type == "error" for o in cell.outputs)]
    # the cells that show an error on purpose say so, as the book's build requires
    unexpected = [
        _said(cell) for cell in failed if "raises-exception" not in cell.metadata.get("tags", [])
    ]
    assert failed and unexpected == [] and all(cell.execution_count for cell in cells)


@pytest.mark.slow
def test_in_a_kernel_like_colabs_the_published_exercise_checks_a_wrong_then_a_right_answer(
    like_colab,
):
    name, exercise = like_colab["name"], like_colab["exercise"]
    assert _said(exercise.cells[0]) == ""  # the chapter notebook's cell had installed it all
    checks = [_said(cell) for cell in exercise.cells if cell.source == f"check({name!r})"]
    assert f"❌ FAIL {name}: " in checks[0] and f"✅ PASS {name}" in checks[1]
