"""The cell that installs the course where a notebook runs: what it installs in a kernel that
already runs on libraries of its own (Colab's), and how the grader knows it, from this
release or an earlier one."""

from __future__ import annotations

import hashlib
import importlib.metadata
import subprocess
from pathlib import Path

import nbformat
import pytest
from attack_cases import CASES, Attack, expected_score, expected_statuses, write_learners

from autograder.grade.plugin import course_copy
from autograder.load.install_cell import SHIPPED, _definition, install_course, is_install_cell
from autograder.load.learner_notebook import cells_to_run, cells_touching_the_grader
from conftest import VICTIM, grade_leaves_class

# An install cell as an earlier release shipped it: another install_course, the same call.
EARLIER = (Path(__file__).parent / "shipped" / "install_cell_2f0d1c52.txt").read_text()
NOT_READY = "0.0.0"  # a JAX version no kernel has, so install_course always installs


def test_the_install_cells_definition_is_among_those_the_course_has_shipped():
    """Changing install_course needs its digest added to SHIPPED, the older ones kept."""
    assert hashlib.sha256(_definition().encode()).hexdigest() in SHIPPED


def test_an_install_cell_from_an_earlier_release_is_the_courses():
    assert not EARLIER.startswith(_definition()) and is_install_cell(EARLIER)


def test_an_earlier_releases_install_cell_edited_in_its_body_is_the_learners():
    edited = EARLIER.replace("if ready:", "print(1)\n    if ready:")
    assert edited != EARLIER and not is_install_cell(edited)


def test_an_install_cell_whose_argument_is_nested_deeper_than_the_parsers_stack_is_not_it():
    # Python 3.11's parser raises MemoryError here, not RecursionError
    too_deep = EARLIER.replace("'Installing the course.'", "-" * 20000 + "1")
    assert too_deep != EARLIER and not is_install_cell(too_deep)


def test_the_grader_neither_runs_nor_reports_an_earlier_releases_install_cell(released_course):
    exercise = released_course.notebooks[0]
    nb = nbformat.read(exercise.path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(EARLIER))
    course = course_copy(exercise)
    assert [number for number, _ in cells_to_run(nb, exercise, course)][0] > 1
    assert cells_touching_the_grader(nb, course) == []


INSTALL_CELL_ATTACKS = {a.name: a for a in CASES if a.name.startswith("install_cell")}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[dict[str, dict], dict[str, dict]]:
    """The install cell's attacks graded in one batch with a correct victim; the victim alone."""
    learners = {**INSTALL_CELL_ATTACKS, VICTIM: Attack("correct")}
    together = write_learners(tmp_path_factory.mktemp("class"), learners)
    alone = write_learners(tmp_path_factory.mktemp("alone"), {VICTIM: Attack("correct")})
    reports = tmp_path_factory.mktemp("reports")
    return (
        grade_leaves_class(together, reports / "together.json", 1),
        grade_leaves_class(alone, reports / "alone.json", 1),
    )


@pytest.mark.slow
def test_a_victim_graded_next_to_install_cell_attacks_gets_the_report_it_gets_alone(graded):
    together, alone = graded
    assert together[VICTIM] == alone[VICTIM]


@pytest.mark.slow
@pytest.mark.parametrize("name", INSTALL_CELL_ATTACKS)
def test_an_install_cell_attacker_earns_exactly_what_its_functions_earn(graded, name):
    student, attack = graded[0][name], INSTALL_CELL_ATTACKS[name]
    statuses = {exercise["name"]: exercise["status"] for exercise in student["exercises"]}
    assert (statuses, student["score"]) == (expected_statuses(attack), expected_score(attack))


@pytest.mark.slow
def test_install_cells_as_shipped_with_hostile_arguments_are_neither_run_nor_reported(graded):
    assert graded[0]["install_cell_hostile_arguments"]["notes"] == []


@pytest.mark.slow
def test_an_edited_install_cell_runs_pip_in_the_worker_and_its_failure_is_a_note(graded):
    notes = [
        note["message"] for note in graded[0]["install_cell_edited_runs_pip_in_the_worker"]["notes"]
    ]
    assert any("raised RuntimeError: pip could not install the course" in note for note in notes)


def _pip(monkeypatch: pytest.MonkeyPatch, installs: dict[str, str] | None = None) -> list[str]:
    """Stand in for pip: record the constraints it is given, and make the distributions of
    ``installs`` report their new versions once it has run; the constraints' lines."""
    seen: list[str] = []
    ran = []
    real = importlib.metadata.distributions

    class Replaced:
        """A distribution as it reads once pip has run."""

        def __init__(self, dist: importlib.metadata.Distribution) -> None:
            self.dist = dist

        def __getattr__(self, name: str) -> object:
            return getattr(self.dist, name)

        @property
        def version(self) -> str:
            name = self.dist.metadata["Name"]
            return (installs or {}).get(name, self.dist.version) if ran else self.dist.version

    def distributions():
        return (Replaced(dist) for dist in real())

    def run(command, **kwargs):
        seen.extend(Path(command[command.index("-c") + 1]).read_text().split())
        ran.append(True)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(importlib.metadata, "distributions", distributions)
    monkeypatch.setattr(subprocess, "run", run)
    return seen


def test_the_install_cell_leaves_the_libraries_the_kernel_has_imported_unpinned(monkeypatch):
    # this process has imported numpy and pytest; a kernel, IPython and ipykernel
    seen = _pip(monkeypatch)
    pins = ["numpy==0.0.1", "pytest==0.0.1", "not-imported-here==1.0"]
    install_course("course-package", None, pins, NOT_READY, "Installing.")
    assert seen == ["not-imported-here==1.0"]


def test_the_install_cell_holds_jax_to_its_pin_even_where_the_kernel_has_imported_it(
    monkeypatch,
):
    seen = _pip(monkeypatch)
    install_course("course-package", None, ["jax==0.0.1", "jaxlib==0.0.1"], NOT_READY, "")
    assert seen == ["jax==0.0.1", "jaxlib==0.0.1"]


def test_the_install_cell_says_to_restart_when_pip_replaced_a_library_the_kernel_imported(
    monkeypatch, capsys
):
    _pip(monkeypatch, installs={"jax": "0.0.1"})
    install_course("course-package", None, ["jax==0.0.1"], NOT_READY, "Installing.")
    said = capsys.readouterr().out.splitlines()
    assert said[0] == "Installing."
    assert said[1].startswith("pip replaced jax, which this kernel had imported: restart")


def test_the_install_cell_says_nothing_more_when_pip_replaced_nothing_imported(monkeypatch, capsys):
    _pip(monkeypatch, installs={"not-imported-here": "1.0"})
    install_course("course-package", None, ["not-imported-here==1.0"], NOT_READY, "Installing.")
    assert capsys.readouterr().out == "Installing.\n"
