"""The branch the book's notebooks are published on holds the notebooks, a README and the
environment Binder builds, as one commit with no parent: nothing of the course's
solutions, tests or grader, and none of its history."""

from __future__ import annotations

import subprocess
from pathlib import Path

import nbformat
import pytest
import yaml

from autograder.author.release import course_pins
from autograder.load.course import REPO_ROOT
from booktools.notebooks_branch import branch_readme, write_branch

CONFIG = {
    "title": "Pytrees Hands-On",
    "repository": {"url": "https://github.com/someone/course"},
    "html": {"baseurl": "https://someone.github.io/course/"},
    "sphinx": {"config": {"course_package_url": "https://example.org/wheels/"}},
}
NOTEBOOKS = ("notebooks/leaves.ipynb", "notebooks/exercises/leaves.ipynb")
TREE = {*NOTEBOOKS, "README.md", ".binder/requirements.txt", ".binder/runtime.txt"}


def _files(folder: Path) -> set[str]:
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built site as the book's build leaves it: pages, and the notebooks it published."""
    site = tmp_path_factory.mktemp("site")
    for name in NOTEBOOKS:
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nbformat.v4.new_notebook(), site / name)
    (site / "book").mkdir()
    (site / "book" / "leaves.html").write_text("<html></html>", encoding="utf-8")
    return site


@pytest.fixture(scope="module")
def branch(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("branch") / "tree"
    write_branch(site, target, CONFIG, "0123abcd")
    return target


def test_the_tree_holds_the_notebooks_a_readme_and_binders_environment_only(branch):
    assert _files(branch) == TREE


def test_binder_installs_the_libraries_the_notebooks_import_at_the_courses_pins(branch):
    requirements = (branch / ".binder" / "requirements.txt").read_text(encoding="utf-8")
    assert requirements == course_pins()
    assert "jax==0.10.2" in requirements.splitlines()
    assert not any(line.startswith(("-e", "-r", ".")) for line in requirements.splitlines())
    runtime = (branch / ".binder" / "runtime.txt").read_text(encoding="utf-8")
    assert runtime == (REPO_ROOT / ".binder" / "runtime.txt").read_text(encoding="utf-8")


def test_the_readme_says_what_the_branch_is_where_the_book_is_and_what_it_was_built_from(branch):
    readme = (branch / "README.md").read_text(encoding="utf-8")
    assert "<https://someone.github.io/course/>" in readme
    assert "0123abcd" in readme
    assert "notebooks/exercises/<exercise>.ipynb" in readme
    assert "first cell installs the course's checker" in readme


def test_without_the_packages_address_the_readme_says_the_notebooks_name_their_installation():
    readme = branch_readme({"title": "Pytrees Hands-On"})
    assert "first cell says how to install the course" in readme
    assert "installs the course's checker" not in readme


def test_a_site_with_no_notebooks_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="build the book first"):
        write_branch(tmp_path, tmp_path / "tree", CONFIG)


def _git(folder: Path, *arguments: str) -> str:
    done = subprocess.run(["git", *arguments], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_workflow_pushes_the_tree_as_one_commit_with_no_parent(branch, tmp_path):
    """The notebooks job's script, run in a clone of a course with solutions, tests and a
    grader, pushes to its origin a branch of the tree alone."""
    workflow = yaml.safe_load((REPO_ROOT / ".github/workflows/book.yml").read_text("utf-8"))
    script = "\n".join(step.get("run", "") for step in workflow["jobs"]["notebooks"]["steps"])
    origin, clone, runner = tmp_path / "origin.git", tmp_path / "clone", tmp_path / "runner"
    _git(tmp_path, "init", "--quiet", "--bare", str(origin))
    _git(tmp_path, "init", "--quiet", "-b", "main", str(clone))
    for name in ("solutions/leaves/leaves.ipynb", "tests/test_x.py", "autograder/grade.py"):
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text("course\n", encoding="utf-8")
    _git(clone, "add", "--all")
    _git(clone, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "--quiet", "-m", "c")
    _git(clone, "remote", "add", "origin", str(origin))
    (clone / "untracked.txt").write_text("left by the checkout\n", encoding="utf-8")
    runner.mkdir()
    subprocess.run(["cp", "-a", str(branch), str(runner / "notebooks-branch")], check=True)
    environment = {"RUNNER_TEMP": str(runner), "GITHUB_SHA": "0123abcd", "HOME": str(tmp_path)}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=clone,
        env={"PATH": "/usr/bin:/bin", **environment},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert set(_git(origin, "ls-tree", "-r", "--name-only", "notebooks").split()) == TREE
    assert _git(origin, "rev-list", "--parents", "notebooks").split() == [
        _git(origin, "rev-parse", "notebooks").strip()
    ]
