"""`python -m autograder grade`: layouts, scores, report formats and exit codes."""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest

from autograder.execute.run import Limits
from autograder.isolate import bubblewrap, processes
from autograder.learner.seeding import DEFAULT_SEED
from autograder.load.course import EXERCISES, SOLUTIONS
from autograder.load.learner_notebook import HINT_RECORD
from conftest import run_cli, write_variant

REPORT_KEYS = {"score", "max_score", "students"}
STUDENT_KEYS = {"student", "score", "max_score", "exercises"}
EXERCISE_KEYS = {"notebook", "name", "score", "max_score", "status", "tests"}
TEST_KEYS = {"name", "outcome", "points", "message"}


def test_solutions_earn_full_marks(graded_solutions, course):
    graded = graded_solutions
    assert graded.returncode == 0, graded.stderr
    assert graded.report["score"] == graded.report["max_score"] == course.points
    assert {e["status"] for s in graded.report["students"] for e in s["exercises"]} == {"passed"}


def test_untouched_exercises_earn_zero_and_every_function_is_not_started(graded_exercises, course):
    graded = graded_exercises
    assert graded.returncode == 0, graded.stderr
    assert graded.report["score"] == 0
    assert graded.report["max_score"] == course.points
    statuses = {e["status"] for s in graded.report["students"] for e in s["exercises"]}
    assert statuses == {"not-started"}


def test_every_graded_function_of_the_course_is_in_the_report(graded_solutions, course):
    graded = graded_solutions
    names = [e["name"] for e in graded.report["students"][0]["exercises"]]
    assert names == [f.name for f in course.functions]


def test_report_has_the_documented_fields(graded_solutions):
    report = graded_solutions.report
    assert report.keys() >= REPORT_KEYS
    for student in report["students"]:
        assert student.keys() >= STUDENT_KEYS
        for exercise in student["exercises"]:
            assert exercise.keys() >= EXERCISE_KEYS
            for test in exercise["tests"]:
                assert test.keys() >= TEST_KEYS


def test_a_single_notebook_is_graded_alone(grade, course):
    notebook = course.notebooks[0]
    graded = grade(notebook.path)
    assert graded.returncode == 0, graded.stderr
    assert graded.report["max_score"] == notebook.points
    assert graded.report["score"] == notebook.points


def test_a_class_folder_gives_one_result_per_student(grade, course, tmp_path):
    # two chapters, the class's assignment: the whole course is graded by graded_solutions
    assigned = course.notebooks[:2]
    for student, source in (("ada", SOLUTIONS), ("bob", EXERCISES)):
        for notebook in assigned:
            target = tmp_path / "class" / student / notebook.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / notebook.id / notebook.filename, target)
    graded = grade(tmp_path / "class", "--assignment", *(n.id for n in assigned))
    assert [s["student"] for s in graded.report["students"]] == ["ada", "bob"]
    assert graded.student("ada")["score"] == sum(n.points for n in assigned)
    assert graded.student("bob")["score"] == 0


def test_pytest_settings_in_the_environment_change_no_grade(course, tmp_path):
    notebook = course.notebooks[0]
    shutil.copy(notebook.path, tmp_path / notebook.filename)
    junit = tmp_path / "addopts.xml"
    settings = {"PYTEST_ADDOPTS": f"-x --junitxml={junit}", "PYTEST_PLUGINS": "no_such_plugin"}
    report = tmp_path / "r.json"
    done = run_cli(
        "grade", tmp_path / notebook.filename, "--json", report, env={**os.environ, **settings}
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["score"] == notebook.points
    assert not junit.exists()


def test_nbgrader_submitted_layout_is_understood_and_says_what_was_assigned(
    grade, course, tmp_path
):
    notebook = course.notebooks[0]
    target = tmp_path / "course" / "submitted" / "cleo" / notebook.id / notebook.filename
    target.parent.mkdir(parents=True)
    shutil.copy(notebook.path, target)
    graded = grade(tmp_path / "course")
    student = graded.student("cleo")
    assert {e["notebook"]: e["status"] for e in student["exercises"]} == {
        notebook.filename: "passed"
    }


def test_junit_and_markdown_reports_are_written(grade, tmp_path, course):
    junit, markdown = tmp_path / "r.xml", tmp_path / "r.md"
    graded = grade(EXERCISES, "--junit", str(junit), "--markdown", str(markdown))
    assert graded.returncode == 0
    suites = ET.parse(junit).getroot()
    cases = suites.findall("./testsuite/testcase")
    assert len(cases) == sum(len(f.tests) for f in course.functions)
    assert all(case.find("skipped") is not None for case in cases)  # nothing started
    text = markdown.read_text()
    assert "## Grading report" in text and "0 / " in text


def test_markdown_summary_is_appended_to_github_step_summary(tmp_path, course):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    import os

    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    done = run_cli("grade", course.notebooks[0].path, env=env)
    assert done.returncode == 0, done.stderr
    text = summary.read_text()
    assert text.startswith("earlier step\n") and "## Grading report" in text


def test_fail_under_exits_1_below_the_threshold(grade, course):
    notebook = course.notebooks[0]
    assert grade(EXERCISES / notebook.id / notebook.filename, "--fail-under", "50").returncode == 1
    assert grade(notebook.path, "--fail-under", "100").returncode == 0


def test_a_path_that_does_not_exist_exits_2_with_a_reason(tmp_path):
    done = run_cli("grade", tmp_path / "nowhere")
    assert done.returncode == 2
    assert "nowhere does not exist" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_notebook_that_is_not_part_of_the_course_exits_2(tmp_path):
    stray = tmp_path / "homework.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), stray)
    done = run_cli("grade", stray)
    assert done.returncode == 2
    assert "homework.ipynb is not one of the course's exercises" in done.stderr


def test_a_folder_with_no_notebook_anywhere_below_it_exits_2(tmp_path):
    (tmp_path / "nonb" / "sub").mkdir(parents=True)
    (tmp_path / "nonb" / "sub" / "readme.txt").write_text("hi")
    done = run_cli("grade", tmp_path / "nonb")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nonb'} holds no notebook (.ipynb file) anywhere below it"
    ]


def test_a_renamed_copy_is_graded_and_the_learners_row_says_which_files(
    grade, course, tmp_path, monkeypatch
):
    """One learner worked in a copy beside the untouched original; another handed in nothing."""
    monkeypatch.setenv("COLUMNS", "400")  # the table's rows unwrapped
    notebook = course.notebooks[0]
    carol = tmp_path / "class" / "carol" / "exercises" / notebook.id
    carol.mkdir(parents=True)
    shutil.copy(notebook.released_path, carol / notebook.filename)
    shutil.copy(notebook.path, carol / f"{notebook.id}-Copy1.ipynb")
    (tmp_path / "class" / "dan" / "sub").mkdir(parents=True)
    (tmp_path / "class" / "dan" / "sub" / "readme.txt").write_text("hi")
    markdown = tmp_path / "summary.md"
    graded = grade(tmp_path / "class", "--assignment", notebook.id, "--markdown", markdown)
    assert graded.returncode == 0, graded.stderr
    assert graded.student("carol")["score"] == notebook.points
    said = (
        f"graded exercises/{notebook.id}/{notebook.id}-Copy1.ipynb as {notebook.id}; not graded "
        f"exercises/{notebook.id}/{notebook.filename} (fewer answered cells)"
    )
    rows = {line.split()[1]: line for line in graded.stdout.splitlines() if "│" in line}
    assert said in rows["carol"]
    assert "no notebook to grade" in rows["dan"]
    assert graded.student("dan")["score"] == 0
    summary_row = next(line for line in markdown.read_text().splitlines() if "| carol |" in line)
    assert "Copy1.ipynb" in summary_row and "fewer answered cells" in summary_row


def test_unusable_arguments_exit_2():
    assert run_cli("grade").returncode == 2
    assert run_cli("grade", ".", "--call-timeout", "-1").returncode == 2


def test_an_empty_folder_exits_2(tmp_path):
    done = run_cli("grade", tmp_path)
    assert done.returncode == 2
    assert "holds no notebook" in done.stderr


def test_the_console_table_names_each_function(graded_solutions, course):
    for function in course.functions:
        assert function.name in graded_solutions.stdout
    assert "Total:" in graded_solutions.stdout


def test_the_same_submission_gets_the_same_report(grade, course):
    notebook = course.notebooks[0]
    first = grade(EXERCISES / notebook.id / notebook.filename)
    second = grade(EXERCISES / notebook.id / notebook.filename)
    assert first.report == second.report


def test_the_report_says_which_isolation_was_used(graded_solutions):
    assert graded_solutions.report["isolation"] == bubblewrap.isolation(sandbox=True)


as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root is refused without bubblewrap")
NO_BUBBLEWRAP = {**os.environ, "PATH": "/nonexistent"}


@as_root
def test_as_root_without_bubblewrap_grading_refuses(tmp_path):
    done = run_cli("grade", EXERCISES / "leaves", "--json", tmp_path / "r.json", env=NO_BUBBLEWRAP)
    assert done.returncode == 3
    assert "--allow-unsandboxed" in done.stderr and "as root" in done.stderr
    assert not (tmp_path / "r.json").exists()


@as_root
def test_as_root_without_bubblewrap_every_result_can_be_marked_not_isolated(tmp_path):
    report = tmp_path / "r.json"
    done = run_cli(
        "grade", EXERCISES / "leaves", "--json", report, "--allow-unsandboxed", env=NO_BUBBLEWRAP
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["isolation"] == bubblewrap.NOT_ISOLATED
    assert bubblewrap.NOT_ISOLATED in done.stdout


def test_neither_the_solutions_nor_the_exercises_count_as_tampered(
    graded_solutions, graded_exercises
):
    for graded in (graded_solutions, graded_exercises):
        assert not any(e["tampered"] for s in graded.report["students"] for e in s["exercises"])


def test_the_report_records_the_default_seed(graded_solutions):
    assert graded_solutions.report["seed"] == DEFAULT_SEED


def test_the_report_says_how_worker_processes_were_capped(graded_solutions):
    assert graded_solutions.report["processes"] == processes.describe(Limits().processes)


def _with_hint_outputs(source, target, opened: dict[str, list[int]]):
    """Copy notebook ``source`` with cells whose saved outputs are ``hint``'s records."""
    nb = nbformat.read(source, as_version=4)
    for name, counts in opened.items():
        cell = nbformat.v4.new_code_cell(f"hint({name!r})")
        cell.outputs = [
            nbformat.v4.new_output(
                "display_data",
                data={"text/plain": "💡 ...", HINT_RECORD: {"function": name, "opened": count}},
            )
            for count in counts
        ]
        nb.cells.append(cell)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def test_reports_show_the_hints_a_learners_notebook_records_opened(grade, course, tmp_path):
    notebook = course.notebooks[0]
    first, second = (f.name for f in notebook.functions[:2])
    submission = tmp_path / "ada" / notebook.filename
    _with_hint_outputs(notebook.path, submission, {first: [1, 2], second: [1]})
    csv_path, markdown = tmp_path / "g.csv", tmp_path / "r.md"
    graded = grade(submission, "--csv", csv_path, "--markdown", markdown)
    opened = {e["name"]: e["hints_opened"] for e in graded.report["students"][0]["exercises"]}
    assert opened[first] == 2 and opened[second] == 1
    assert "learner can clear or edit" in graded.report["hints_opened"]
    assert f"{first}=2 {second}=1" in csv_path.read_text()
    text = markdown.read_text()
    assert f"`{first}`: 2, `{second}`: 1" in text and "learner can clear or edit" in text


def test_the_report_points_to_a_learners_cell_that_imports_the_grader(grade, course, tmp_path):
    notebook = course.notebooks[0]
    submission = write_variant(
        notebook.path,
        tmp_path / notebook.filename,
        {},
        append=("import autograder.watchers",),
    )
    graded = grade(submission)
    notes = [note["message"] for note in graded.report["students"][0]["notes"]]
    assert any("reach into the grader or JAX" in note for note in notes)
    assert graded.report["score"] == notebook.points


def test_grading_lists_no_folder_above_the_notebooks_it_runs(tmp_path, monkeypatch):
    """pytest lists the folders from its confcutdir down to each notebook: from / by default,
    where a crowded /tmp cost a fresh clone there a second a notebook."""
    import _pytest.main

    from autograder.grade.submission import grade_submission
    from autograder.load.course import load_course
    from autograder.load.submissions import Submission

    notebook = shutil.copy(SOLUTIONS / "leaves" / "leaves.ipynb", tmp_path / "leaves.ipynb")
    listed: list[str] = []
    scandir = _pytest.main.scandir
    monkeypatch.setattr(
        _pytest.main, "scandir", lambda path: listed.append(str(path)) or scandir(path)
    )
    result = grade_submission(Submission("learner", {"leaves": notebook}), load_course(), Limits())
    assert result.score == result.max_score
    assert listed and all(Path(p).is_relative_to(SOLUTIONS / "leaves") for p in listed), listed
