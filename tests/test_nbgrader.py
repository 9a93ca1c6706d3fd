"""nbgrader itself agrees: exercises/ is what it generates, and it grades like this grader does."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from traitlets.config import Config

from autograder.author.generate import generate_assignment, generate_exercises
from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS, load_course
from autograder.store.folder import cache_environment
from conftest import grade_with_cli, names, write_variant

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    release = tmp_path_factory.mktemp("release")
    generate_exercises(release)
    return release


def test_exercises_are_exactly_what_nbgrader_generates_from_solutions(regenerated, course):
    generated = sorted(p.relative_to(regenerated) for p in regenerated.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(EXERCISES) for p in EXERCISES.rglob("*") if p.is_file())
    assert generated == committed
    for relative in generated:
        assert (EXERCISES / relative).read_bytes() == (regenerated / relative).read_bytes(), (
            f"exercises/{relative} is not what nbgrader generates: "
            "run python -m autograder generate"
        )


def test_generated_notebooks_hide_solutions_and_hidden_tests(course):
    for notebook in course.notebooks:
        text = (EXERCISES / notebook.id / notebook.filename).read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        assert text.count("raise NotImplementedError()") >= len(notebook.functions)


@dataclass
class Scores:
    """One student's scores of one notebook: in all, and by test cell where nbgrader's."""

    score: float
    max_score: float
    by_cell: dict[str, float]


# No student hands in the solutions whole: every function is kept right in one of the
# partial submissions, where nbgrader's score of its test cells is checked, and a whole
# solutions notebook is what the graded_solutions fixture grades. The untouched exercises
# are this grader's to show at zero (test_grade_cli): under nbgrader they would only
# show that a NotImplementedError fails a test.
PARTIAL = ("partial-a", "partial-b")
STUDENTS = PARTIAL
ANOTHER_SEED = 20261123
"""This grader grades the partial submissions with another seed than nbgrader's kernels
use (the default): equal scores then also show that every function's solution earns its
points, and every case loses them, on other hidden inputs than the default ones."""


NOT_STARTED = ("treedef_api", "partial-a")
"""The chapter and learner whose first function is left as the released stub, not started:
that stub raises at the top level of its cell, which nbgrader runs."""


def _partial(notebook, student: str) -> dict[str, str]:
    """A partial submission made of misconception cases: ``partial-a`` gets the first case
    of every other function (from the first), ``partial-b`` the last case of the others,
    but for a function that a function kept right calls (its mistake would cost the caller
    points too); :data:`NOT_STARTED`'s function is the released stub instead."""
    cases = importlib.import_module(f"misconceptions.{notebook.id}").CASES
    first = student == "partial-a"
    replaced = {}
    for index, function in enumerate(notebook.functions):
        if (index % 2 == 0) == first:
            own = [case for case in cases if case["function"] == function.name]
            replaced[function.name] = own[0 if first else -1]["source"]
    kept = [f.source for f in notebook.functions if f.name not in replaced]
    for name in [name for name in replaced if names(kept, name)]:
        del replaced[name]
    if (notebook.id, student) == NOT_STARTED:
        stub = notebook.functions[0].name
        replaced[stub] = load_course(EXERCISES).notebook(notebook.id).functions[0].source
    return replaced


@pytest.fixture(scope="module")
def autograded(tmp_path_factory, course) -> dict[tuple[str, str], Scores]:
    """nbgrader autograde, where `partial-a`/`partial-b` handed in the solutions with some
    functions replaced by misconceptions; this grader grades them too, with
    :data:`ANOTHER_SEED`, under `<student>/grader` (by_cell then holds each function's score)."""
    root = tmp_path_factory.mktemp("nbgrader-course")
    submitted = root / "class" / "submitted"  # nbgrader's layout, as this grader reads it
    for notebook in course.notebooks:
        for student in STUDENTS:
            target = submitted / student / notebook.id / notebook.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            write_variant(notebook.path, target, _partial(notebook, student))
    # nbgrader grades one kernel after another, on one core: this grader meanwhile
    with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(max_workers=1) as pool:
        # nbgrader runs `alembic` from PATH to create its gradebook
        patch.setenv("PATH", _path_with_this_environment())
        ours = pool.submit(
            grade_with_cli, submitted.parent, root / "report.json", "--seed", str(ANOTHER_SEED)
        )
        scores = _autograde(root / "course", submitted, course)
        graded = ours.result()
    assert graded.report["seed"] == ANOTHER_SEED
    for student in PARTIAL:
        for exercise in graded.student(student)["exercises"]:
            key = (exercise["notebook"].removesuffix(".ipynb"), f"{student}/grader")
            found = scores.setdefault(key, Scores(0.0, 0.0, {}))
            found.score += exercise["score"]
            found.max_score += exercise["max_score"]
            found.by_cell[exercise["name"]] = exercise["score"]
    return scores


def _course(root: Path) -> dict[str, str]:
    """nbgrader's CourseDirectory settings of the course at ``root``."""
    return {"root": str(root), "source_directory": "source", "release_directory": "release"}


def _autograde(root: Path, submitted: Path, course) -> dict[tuple[str, str], Scores]:
    """nbgrader's scores of every chapter for every student, in one nbgrader course at
    ``root`` whose source is the solutions and whose submissions are those in ``submitted``.

    ``nbgrader generate_assignment`` puts each chapter, its cells and points into the
    course's gradebook; one ``nbgrader autograde "*"`` then grades every chapter (each
    command's start-up is seconds). Needs this environment's commands first on PATH.
    """
    config = [f"--CourseDirectory.{name}={value}" for name, value in _course(root).items()]
    for notebook in course.notebooks:
        shutil.copytree(SOLUTIONS / notebook.id, root / "source" / notebook.id)
        generate_assignment(Config(CourseDirectory={**_course(root), "assignment_id": notebook.id}))
    (root / "submitted").symlink_to(submitted)
    # Kernels on Unix sockets: over TCP, a kernel can pick a port that another process of
    # the test run (a kernel of the book's build) takes first, and then dies ("Address
    # already in use"). (the sockets' path is absolute: the kernel runs in the notebook's
    # folder, nbgrader not)
    kernels = ["--KernelManager.transport=ipc", f"--KernelManager.ip={root / 'kernel'}"]
    nbgrader(
        "autograde", "*", "--create", "--log-level=WARN", *kernels, *config,
        jax_cache=root / "jax",
    )  # fmt: skip
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {
            (notebook.id, student): Scores(
                submission.score,
                submission.max_score,
                {g.name: g.score for nb in submission.notebooks for g in nb.grades},
            )
            for notebook in course.notebooks
            for student in STUDENTS
            for submission in [gradebook.find_submission(notebook.id, student)]
        }


def nbgrader(*args: str, jax_cache: Path | None = None) -> None:
    """Run nbgrader's command ``args``; its kernels share JAX's compilation cache ``jax_cache``.

    The cache is JAX's documented persistent one, set as the grader sets its own, by
    environment variables the kernels inherit; it holds only what the course's own
    notebooks compile. The students of a chapter run mostly the same operations, so each
    kernel after the first reads them instead of compiling: nbgrader's autograde of the
    libraries chapter, then with four students, took 96 s without it, 50 s with it.
    """
    env = {**os.environ, "PATH": _path_with_this_environment()}
    if jax_cache is not None:
        env |= cache_environment(str(jax_cache))
    subprocess.run([sys.executable, "-m", "nbgrader", *args], check=True, cwd=REPO_ROOT, env=env)


def _path_with_this_environment() -> str:
    """PATH with this environment's commands first: nbgrader runs `alembic` from PATH to
    create its database."""
    return f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def _kept(notebook, student: str) -> list:
    """The functions ``student``'s partial submission of ``notebook`` has right."""
    return [f for f in notebook.functions if f.name not in _partial(notebook, student)]


def test_nbgrader_gives_every_functions_solution_its_points(autograded, course):
    for notebook in course.notebooks:
        for student in PARTIAL:
            by_cell = autograded[(notebook.id, student)].by_cell
            for function in _kept(notebook, student):
                for test in function.tests:
                    assert by_cell[test.grade_id] == test.points, (notebook.id, test.grade_id)


def test_with_another_seed_this_grader_gives_every_functions_solution_its_points(
    autograded, course
):
    for notebook in course.notebooks:
        for student in PARTIAL:
            by_function = autograded[(notebook.id, f"{student}/grader")].by_cell
            for function in _kept(notebook, student):
                assert by_function[function.name] == function.points, (notebook.id, function.name)


def test_every_function_is_kept_right_in_one_partial_submission(course):
    for notebook in course.notebooks:
        replaced = [set(_partial(notebook, student)) for student in PARTIAL]
        assert set.intersection(*replaced) == set(), notebook.id


@pytest.mark.parametrize("student", PARTIAL)
def test_nbgrader_and_this_grader_give_partial_submissions_the_same_score(
    autograded, course, student
):
    for notebook in course.notebooks:
        nbgrader_scores = autograded[(notebook.id, student)]
        graders = autograded[(notebook.id, f"{student}/grader")]
        assert 0 < nbgrader_scores.score < nbgrader_scores.max_score, notebook.id
        assert nbgrader_scores.max_score == graders.max_score == notebook.points, notebook.id
        assert graders.score == nbgrader_scores.score, notebook.id
