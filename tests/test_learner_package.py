"""The learners' package: the checker the notebooks import, as a wheel in a release's ``dist/``,
working with no repository around it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import jupytext
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_learner_tools import _kernel_like_run, _solution_sources
from test_release import _found, _secrets
from test_requirements import imported_modules
from test_workflows import lint, load, steps

from autograder.author.learner_package import ENTRY_POINTS, package_modules
from autograder.author.release import write_release
from autograder.learner import progress
from autograder.load.course import REPO_ROOT, SOLUTIONS
from autograder.safe_text import points

GRADING = ("grade", "execute", "isolate", "store", "author")
LEARNERS = REPO_ROOT / "learners"
PUBLISH = LEARNERS / ".github" / "workflows" / "publish.yml"


def _grading(modules: list[str]) -> list[str]:
    """The modules of ``modules`` that belong to the grading machinery."""
    return [
        module for module in modules if module.split(".")[1:2] and module.split(".")[1] in GRADING
    ]


def _wheel_modules(wheel: zipfile.ZipFile) -> list[str]:
    """The modules a wheel holds, by their dotted names."""
    names = [name for name in wheel.namelist() if name.endswith(".py")]
    return sorted(
        name.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for name in names
    )


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "learners"
    write_release(out)
    return out


@pytest.fixture(scope="module")
def wheel(release) -> Path:
    [found] = (release / "dist").glob("*.whl")
    return found


def test_the_package_holds_what_the_notebooks_import_and_no_grading_module():
    modules = package_modules()
    assert set(ENTRY_POINTS) | {"autograder.learner.feedback", "autograder.load.course"} <= set(
        modules
    )
    assert _grading(modules) == []


def test_the_package_holds_what_the_chapter_notebooks_import_from_the_courses_own_code():
    imported = set()
    for page in sorted((REPO_ROOT / "book").glob("*.md")):
        notebook = jupytext.read(page, fmt="myst")
        imported |= {
            module
            for cell in notebook.cells
            if cell.cell_type == "code"
            for module in imported_modules(cell.source)
            if module.split(".")[0] in ("booktools", "autograder")
        }
    assert "booktools" in imported and imported <= set(package_modules())


def test_the_package_follows_a_functions_own_import_but_not_one_for_type_checkers(tmp_path):
    package = tmp_path / "autograder"
    files = {
        "__init__.py": "",
        "notebook.py": textwrap.dedent("""
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from autograder.store import folder
            if not TYPE_CHECKING:
                from autograder import seeding
            def check():
                from .grade import batch
        """),
        "grade/__init__.py": "",
        "grade/batch.py": "import autograder.execute.run\n",
        "execute/__init__.py": "",
        "execute/run.py": "",
        "store/__init__.py": "",
        "store/folder.py": "",
        "seeding.py": "",
    }
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    assert package_modules(("autograder.notebook",), package) == [
        "autograder",
        "autograder.execute",
        "autograder.execute.run",
        "autograder.grade",
        "autograder.grade.batch",
        "autograder.notebook",
        "autograder.seeding",
    ]


def test_a_release_writes_one_wheel_named_with_the_packages_version(release):
    project = tomllib.loads((LEARNERS / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name = canonicalize_name(project["name"]).replace("-", "_")
    assert [path.name for path in (release / "dist").iterdir()] == [
        f"{name}-{project['version']}-py3-none-any.whl"
    ]


def test_the_wheel_says_its_name_version_and_python(wheel):
    project = tomllib.loads((LEARNERS / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    with zipfile.ZipFile(wheel) as opened:
        [metadata] = [name for name in opened.namelist() if name.endswith(".dist-info/METADATA")]
        fields = Parser().parsestr(opened.read(metadata).decode())
    assert (fields["Name"], fields["Version"]) == (project["name"], project["version"])
    assert fields["Requires-Python"] == ">=3.11"


def test_every_dependency_of_the_wheel_is_pinned_by_the_releases_requirements(wheel, release):
    with zipfile.ZipFile(wheel) as opened:
        [metadata] = [name for name in opened.namelist() if name.endswith(".dist-info/METADATA")]
        fields = Parser().parsestr(opened.read(metadata).decode())
    needs = {canonicalize_name(Requirement(line).name) for line in fields.get_all("Requires-Dist")}
    pinned = (release / "requirements.txt").read_text(encoding="utf-8")
    pins = {
        canonicalize_name(Requirement(line).name)
        for line in pinned.splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {"jax", "numpy", "nbformat", "pyyaml"} <= needs <= pins


def test_the_wheel_holds_the_packages_modules_and_the_releases_course_copy(wheel, release):
    with zipfile.ZipFile(wheel) as opened:
        assert _wheel_modules(opened) == package_modules()
        data = {
            name: opened.read(name)
            for name in opened.namelist()
            if not name.endswith(".py") and ".dist-info/" not in name
        }
    copy = release / "autograder" / "course"
    shipped = {
        path.relative_to(release).as_posix(): path.read_bytes()
        for path in copy.rglob("*")
        if path.is_file()
    }
    assert data == shipped
    assert "autograder/course/chapters.json" in data


def test_the_wheel_holds_no_grading_module_and_no_hidden_test(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as opened:
        assert _grading(_wheel_modules(opened)) == []
        opened.extractall(tmp_path)
    secrets = _secrets(SOLUTIONS)
    assert secrets and _found(tmp_path, secrets) == []


def test_progress_is_kept_in_the_working_folder_of_a_package_with_no_repository_around_it(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("PYTREES_PROGRESS", raising=False)
    assert progress.progress_file() == REPO_ROOT / ".course-progress.json"
    monkeypatch.setattr(
        progress, "EXERCISES", tmp_path / "site-packages" / "exercises", raising=False
    )
    monkeypatch.chdir(tmp_path)
    assert progress.progress_file() == tmp_path / ".course-progress.json"


def test_the_learners_workflows_are_clean_and_publish_the_wheel_on_a_release():
    for workflow in sorted((LEARNERS / ".github" / "workflows").glob("*.yml")):
        done = lint(workflow)
        assert done.returncode == 0, done.stdout + done.stderr
    publish = load(PUBLISH)
    assert publish["on"] == {"release": {"types": ["published"]}}
    assert publish["permissions"] == {"contents": "write"}
    [upload] = [step for step in steps(publish) if "run" in step]
    assert upload["run"].startswith("gh release upload ") and "dist/*.whl" in upload["run"]


@pytest.fixture(scope="module")
def standalone(wheel, release, course, tmp_path_factory) -> dict[str, object]:
    """The wheel installed in a fresh venv, its dependencies pinned by the release's
    requirements; a learner's cells run from an empty folder, and the same cells run in
    the course's repository."""
    root = tmp_path_factory.mktemp("standalone")
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("PYTHONPATH", "PYTREES_PROGRESS", "VIRTUAL_ENV", "JPY_SESSION_NAME")
    }
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, env=env, timeout=300)
    python = str(venv / "bin" / "python")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", wheel, "-c", release / "requirements.txt"],
        capture_output=True, text=True, env=env, timeout=1200,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-3000:]
    notebook = course.notebooks[0]
    name = notebook.functions[0].name
    solved = "\n".join(textwrap.dedent(cell) for cell in _solution_sources(notebook))
    cells = notebook.setup_source + textwrap.dedent(f"""
        def {name}(*args, **kwargs):
            return 0
        check({name!r})
        solution({name!r})
        hint({name!r})
    """) + solved + textwrap.dedent(f"""
        check({name!r})
        solution({name!r})
    """)  # fmt: skip
    where = textwrap.dedent("""
        import json, sys, autograder
        print("---")
        loaded = sorted(m for m in sys.modules if m.startswith("autograder"))
        print(json.dumps([autograder.__file__, loaded]))
        print("---")
        from autograder.notebook import status
        status()
        status("NOTEBOOK")
    """).replace("NOTEBOOK", notebook.id)  # fmt: skip
    empty = root / "work"
    empty.mkdir()
    ran = subprocess.run(
        [python, "-c", cells + where], capture_output=True, text=True, cwd=empty, env=env,
        timeout=600,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    said, found, shown = ran.stdout.split("---\n")
    in_repository = _kernel_like_run(cells, {**env, "PYTREES_PROGRESS": str(root / "p.json")})
    package, modules = json.loads(found)
    return {"name": name, "said": said, "in_repository": in_repository, "package": package,
            "modules": modules, "folder": empty, "venv": venv, "shown": shown,
            "notebook": notebook}  # fmt: skip


@pytest.mark.slow
def test_the_installed_wheel_checks_hints_and_reveals_from_an_empty_folder_as_the_course_does(
    standalone,
):
    name, said = standalone["name"], standalone["said"]
    assert said == standalone["in_repository"]
    failed, passed = said.split("Hint 1/")
    assert f"❌ FAIL {name}: " in failed and f"🔒 The reference solution of {name}" in failed
    assert f"✅ PASS {name}" in passed and f"📖 The reference solution of {name}" in passed


@pytest.mark.slow
def test_the_installed_wheel_shows_the_learners_progress_in_the_notebook(standalone):
    notebook, shown = standalone["notebook"], standalone["shown"]
    passed = notebook.functions[0]
    assert re.search(rf"^{notebook.id} +1 of {len(notebook.functions)} ", shown, re.MULTILINE)
    assert f"✅ PASS  {passed.name} ({points(passed.points)} points)" in shown
    assert 'status("CHAPTER")' in shown


@pytest.mark.slow
def test_the_installed_wheel_imports_no_grading_module(standalone):
    venv = Path(standalone["venv"]).resolve()
    assert venv in Path(standalone["package"]).resolve().parents
    modules = standalone["modules"]
    assert "autograder.notebook" in modules
    assert _grading(modules) == [] and set(modules) <= set(package_modules())


@pytest.mark.slow
def test_the_installed_wheel_keeps_progress_in_the_working_folder_not_in_site_packages(
    standalone,
):
    record = json.loads((standalone["folder"] / ".course-progress.json").read_text())
    assert record["functions"] == {standalone["name"]: "passed"}
    assert record["hints"] == {standalone["name"]: 1}
    assert list(Path(standalone["venv"]).rglob(".course-progress.json")) == []
