"""Gradescope: results.json from a one-learner report, and the autograder zip."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.author.gradescope_try import describe_results
from autograder.load.course import REPO_ROOT, SOLUTIONS
from autograder.report import formats
from autograder.report.model import Report
from conftest import run_cli, write_variant

TEST_FIELDS = {"name", "score", "max_score", "output", "visibility"}

# Passes count_leaves' visible tests, then fails its first hidden one.
NONE_IS_A_LEAF = """
def count_leaves(tree, *, none_is_leaf=False):
    return len(jax.tree.leaves(tree, is_leaf=lambda node: node is None))
"""
# Fails is_leaf_type's visible tests.
ALWAYS_A_LEAF = """
def is_leaf_type(value):
    return True
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[dict, dict, Path]:
    """One learner's folder: leaves.ipynb with one hidden and one visible failure, a
    notebook that is not the course's, and no other chapter.

    Returns the JSON report, the results.json and the report's path.
    """
    root = tmp_path_factory.mktemp("gradescope")
    learner = root / "learner"
    leaves = SOLUTIONS / "leaves" / "leaves.ipynb"
    replacements = {"count_leaves": NONE_IS_A_LEAF, "is_leaf_type": ALWAYS_A_LEAF}
    write_variant(leaves, learner / "leaves.ipynb", replacements)
    shutil.copy(leaves, learner / "scratch.ipynb")
    report, results = root / "report.json", root / "results.json"
    done = run_cli("grade", learner, "--json", report, "--gradescope", results)
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text()), json.loads(results.read_text()), report


def _report_tests(report: dict) -> dict[str, dict]:
    """The report's tests by their Gradescope name."""
    return {
        f"{e['notebook']} › {e['name']} › {t['name']}": t
        for s in report["students"]
        for e in s["exercises"]
        for t in e["tests"]
    }


def _result(results: dict, function: str) -> dict:
    return next(t for t in results["tests"] if f"leaves.ipynb › {function} ›" in t["name"])


def test_the_score_is_the_reports_and_the_sum_of_its_tests(graded, course):
    report, results, _ = graded
    assert results["score"] == report["score"] == course.function("leaves_in_order").points
    assert sum(test["score"] for test in results["tests"]) == results["score"]


def test_every_test_cell_is_one_test_with_the_fields_gradescope_reads(graded):
    report, results, _ = graded
    assert [test["name"] for test in results["tests"]] == list(_report_tests(report))
    for test in results["tests"]:
        assert test.keys() >= TEST_FIELDS
        assert test["status"] == ("passed" if test["score"] == test["max_score"] else "failed")


def test_results_that_depend_on_hidden_tests_wait_until_grades_are_published(graded):
    report, results, _ = graded
    expected = {name: t["hidden"] for name, t in _report_tests(report).items()}
    for test in results["tests"]:
        waits = test["visibility"] == "after_published"
        assert waits == expected[test["name"]], test["name"]
        assert test["visibility"] in ("visible", "after_published")
    assert _result(results, "count_leaves")["visibility"] == "after_published"
    assert _result(results, "leaves_in_order")["visibility"] == "after_published"
    assert _result(results, "is_leaf_type")["visibility"] == "visible"
    missing = next(t for t in results["tests"] if t["name"].startswith("structure.ipynb"))
    assert missing["visibility"] == "visible"


def test_the_total_waits_for_publication_exactly_when_a_result_does(graded):
    report, results, _ = graded
    assert results["visibility"] == "after_published"
    shown = copy.deepcopy(report)
    for test in _report_tests(shown).values():
        test["hidden"] = False
    at_once = json.loads(formats.to_gradescope(Report.from_dict(shown)))
    assert at_once["visibility"] == "visible"


def test_a_failed_hidden_test_shows_only_its_authored_message(graded):
    report, results, _ = graded
    failed = _result(results, "count_leaves")
    authored = _report_tests(report)[failed["name"]]["message"]
    assert failed["output"] == authored
    assert authored.startswith("By default None is a node with no children")


def test_notes_on_the_notebooks_go_to_the_top_level_output(graded):
    _, results, _ = graded
    assert "not graded scratch.ipynb (" in results["output"]
    assert "structure.ipynb: structure.ipynb was not found" in results["output"]
    assert results["stdout_visibility"] == "hidden"


def test_the_gradescope_log_opens_with_the_learners_table_and_names_only_the_isolation(
    tmp_path, course
):
    shutil.copy(course.notebook("leaves").path, tmp_path / "leaves.ipynb")
    results = tmp_path / "results.json"
    done = run_cli("grade", tmp_path / "leaves.ipynb", "--no-cache", "--gradescope", results)
    assert done.returncode == 0, done.stderr
    log = done.stderr + done.stdout  # what run_autograder prints (2>&1), notes first
    assert log.lstrip().startswith("leaves: 7 / 7"), log
    total = log.strip().splitlines()[-1]
    assert total.startswith("Total: 7 / 7 (100.0%), isolation: ") and "seed" not in total
    assert "compile store" not in log and "call limit" not in log


def test_merge_writes_the_same_results_for_one_learner(graded, tmp_path):
    _, results, report = graded
    done = run_cli("merge", report, "--gradescope", tmp_path / "results.json")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "results.json").read_text()) == results


def test_grade_refuses_several_learners_with_exit_2(tmp_path):
    leaves = SOLUTIONS / "leaves" / "leaves.ipynb"
    for student in ("ada", "bob"):
        (tmp_path / "class" / student).mkdir(parents=True)
        shutil.copy(leaves, tmp_path / "class" / student / "leaves.ipynb")
    results = tmp_path / "results.json"
    done = run_cli("grade", tmp_path / "class", "--gradescope", results)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --gradescope writes one learner's results, but there are 2 here "
        "(Gradescope grades each submission on its own)"
    ]
    assert not results.exists()


def test_merge_refuses_several_learners_with_exit_2(graded, tmp_path):
    report, _, _ = graded
    parts = []
    for name in ("ada", "bob"):
        student = {**report["students"][0], "student": name}
        parts.append(tmp_path / f"{name}.json")
        parts[-1].write_text(json.dumps({**report, "students": [student]}))
    done = run_cli("merge", *parts, "--gradescope", tmp_path / "results.json")
    assert done.returncode == 2 and "there are 2 here" in done.stderr
    assert not (tmp_path / "results.json").exists()


def test_a_report_that_predates_the_hidden_flag_shows_nothing_before_publication(graded):
    report = copy.deepcopy(graded[0])
    for student in report["students"]:
        for exercise in student["exercises"]:
            for test in exercise["tests"]:
                del test["hidden"]
    results = json.loads(formats.to_gradescope(Report.from_dict(report)))
    assert {test["visibility"] for test in results["tests"]} == {"after_published"}


def _bundle(tmp_path: Path, *chapters: str) -> Path:
    out = tmp_path / "autograder.zip"
    words = [c if c.startswith("--") else f"--chapter={c}" for c in chapters]
    done = run_cli("gradescope-bundle", out, *words)
    assert done.returncode == 0, done.stderr
    return out


def test_the_bundle_holds_setup_sh_and_an_executable_run_autograder(tmp_path):
    with zipfile.ZipFile(_bundle(tmp_path)) as archive:
        names = set(archive.namelist())
        assert {"setup.sh", "run_autograder", "requirements-grading.txt"} <= names
        assert "autograder/cli.py" in names and "requirements.txt" not in names
        setup = archive.read("setup.sh").decode()
        assert "-r requirements-grading.txt" in setup and "requirements.txt" not in setup
        mode = archive.getinfo("run_autograder").external_attr >> 16
        assert mode & 0o111 == 0o111
        for script in ("setup.sh", "run_autograder"):
            syntax = subprocess.run(["bash", "-n"], input=archive.read(script), check=False)
            assert syntax.returncode == 0, script


def test_a_chapter_bundle_holds_only_that_chapters_notebooks(tmp_path, course):
    with zipfile.ZipFile(_bundle(tmp_path, "leaves")) as archive:
        notebooks = sorted(n for n in archive.namelist() if n.endswith(".ipynb"))
    assert notebooks == ["exercises/leaves/leaves.ipynb", "solutions/leaves/leaves.ipynb"]


def test_an_unknown_chapter_exits_2(tmp_path):
    done = run_cli("gradescope-bundle", tmp_path / "a.zip", "--chapter", "nowhere")
    assert done.returncode == 2 and "'nowhere' is not a chapter" in done.stderr


def _run_autograder(
    tmp_path: Path,
    submitted: dict[str, Path],
    links: dict[str, str] | None = None,
    bundled: tuple[str, ...] = ("leaves",),
    path: str | None = None,
) -> dict:
    """Unpack a one-chapter bundle as Gradescope does and run its run_autograder.

    ``links`` are symbolic links handed in: name → target, relative to the autograder's
    root (``/autograder`` on Gradescope). ``bundled`` are ``_bundle``'s arguments;
    ``path`` replaces the ``PATH`` the script runs with.
    """
    root = tmp_path / "autograder"
    with zipfile.ZipFile(_bundle(tmp_path, *bundled)) as archive:
        archive.extractall(root / "source")
    (root / "source" / ".venv").symlink_to(sys.prefix)
    (root / "submission").mkdir()
    for name, source in submitted.items():
        shutil.copy(source, root / "submission" / name)
    for name, target in (links or {}).items():
        (root / "submission" / name).symlink_to(root / target)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        ["bash", root / "source" / "run_autograder"],
        env={**env, "AUTOGRADER_ROOT": str(root), "PATH": path or env["PATH"]},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_run_autograder_grades_the_submitted_notebook(tmp_path, course):
    leaves = course.notebook("leaves")
    results = _run_autograder(tmp_path, {"leaves.ipynb": leaves.path})
    assert results["score"] == leaves.points
    assert {t["name"].split(" › ")[0] for t in results["tests"]} == {"leaves.ipynb"}


def test_run_autograder_without_a_notebook_says_so(tmp_path):
    results = _run_autograder(tmp_path, {"notes.txt": SOLUTIONS.parent / "LICENSE"})
    assert results["score"] == 0 and "No notebook" in results["output"]


def test_run_autograder_grades_no_link_to_the_reference_solution_and_says_so(tmp_path):
    solution = "source/solutions/leaves/leaves.ipynb"
    links = {"leaves.ipynb": solution, "mine": "source/solutions/leaves"}
    results = _run_autograder(tmp_path, {}, links)
    assert results["score"] == 0
    assert "leaves.ipynb is a symbolic link, not a file: it was not graded" in results["output"]
    assert "mine is a symbolic link" in results["output"]


def test_run_autograder_grades_the_files_handed_in_next_to_a_refused_link(tmp_path, course):
    leaves = course.notebook("leaves")
    links = {"other.ipynb": "source/solutions/leaves/leaves.ipynb"}
    results = _run_autograder(tmp_path, {"leaves.ipynb": leaves.path}, links)
    assert results["score"] == leaves.points
    assert results["output"].startswith("other.ipynb is a symbolic link")


def _without_bubblewrap(tmp_path: Path) -> str:
    """A PATH whose ``bwrap`` cannot run, as in a container that forbids namespaces."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "bwrap").write_text("#!/bin/sh\nexit 1\n")
    (folder / "bwrap").chmod(0o755)
    return f"{folder}:{os.environ['PATH']}"


@pytest.mark.skipif(os.geteuid() != 0, reason="only root is refused without bubblewrap")
def test_run_autograder_as_root_without_bubblewrap_refuses_and_tells_the_learner(tmp_path, course):
    leaves = course.notebook("leaves")
    results = _run_autograder(
        tmp_path, {"leaves.ipynb": leaves.path}, path=_without_bubblewrap(tmp_path)
    )
    assert results["score"] == 0 and "could not be graded safely" in results["output"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root is refused without bubblewrap")
def test_a_bundle_built_to_allow_it_grades_without_bubblewrap_marked_not_isolated(tmp_path, course):
    leaves = course.notebook("leaves")
    results = _run_autograder(
        tmp_path,
        {"leaves.ipynb": leaves.path},
        bundled=("leaves", "--allow-unsandboxed"),
        path=_without_bubblewrap(tmp_path),
    )
    assert results["score"] == leaves.points


def _run_setup(tmp_path: Path, extra_env: dict[str, str]) -> list[str]:
    """Run the bundle's setup.sh unpacked outside ``/autograder``, with ``apt-get``,
    ``add-apt-repository`` and Python replaced by programs that only write down how they
    were called; returns those calls."""
    source, tools, calls = tmp_path / "source", tmp_path / "tools", tmp_path / "calls"
    shutil.copytree(REPO_ROOT / "gradescope", source)
    tools.mkdir()
    record = f'#!/bin/sh\necho "$(basename "$0") $*" >> {calls}\n'
    for tool in ("apt-get", "add-apt-repository"):
        (tools / tool).write_text(record)
    # "python -m venv DIR" makes DIR/bin/python, another such program
    (tools / "python").write_text(
        record + '[ "$1 $2" = "-m venv" ] && mkdir -p "$3/bin" && cp "$0" "$3/bin/python"\nexit 0\n'
    )
    for tool in tools.iterdir():
        tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}"}
    env |= {"AUTOGRADER_PYTHON": str(tools / "python"), **extra_env}
    done = subprocess.run(
        ["bash", source / "setup.sh"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return calls.read_text().splitlines()


def test_setup_installs_system_packages_only_in_gradescopes_folder_or_when_told(tmp_path):
    untold = _run_setup(tmp_path / "untold", {})
    assert not [call for call in untold if not call.startswith("python")], untold
    assert "python -m venv .venv" in untold
    told = _run_setup(tmp_path / "told", {"AUTOGRADER_SYSTEM_PACKAGES": "1"})
    assert "apt-get install -y -qq bubblewrap" in told


def test_the_dry_run_says_when_the_learner_sees_the_total_and_each_result(graded, course):
    _, results, _ = graded
    lines = describe_results(results)
    total = f"3 / {course.points:g}"
    assert lines[0] == f"  Score {total}; the learner sees the total once grades are published."
    rows = {
        line.split(" › ")[1]: (line.split()[0], line.split()[1], line.split("(shown ")[1])
        for line in lines
        if "leaves.ipynb ›" in line
    }
    assert rows == {
        "count_leaves": ("failed", "0", "once grades are published)"),
        "leaves_in_order": ("passed", "3", "once grades are published)"),
        "is_leaf_type": ("failed", "0", "at once)"),
    }


def test_the_dry_run_refuses_a_file_that_is_not_an_autograder_zip_with_exit_2():
    notebook = SOLUTIONS / "leaves" / "leaves.ipynb"
    done = run_cli("gradescope-try", notebook, notebook)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: {notebook} is not a zip file: give the zip gradescope-bundle wrote"
    )


@pytest.mark.slow
def test_the_dry_run_grades_a_submission_with_the_bundles_own_scripts(tmp_path):
    submitted = tmp_path / "mine.ipynb"
    leaves = SOLUTIONS / "leaves" / "leaves.ipynb"
    write_variant(leaves, submitted, {"count_leaves": NONE_IS_A_LEAF})
    root = tmp_path / "root"
    done = run_cli("gradescope-try", _bundle(tmp_path, "leaves"), submitted, "--keep", root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Score 5 / 7; the learner sees the total once grades are published." in done.stdout
    assert "Total: 5 / 7 (71.4%), isolation: " in done.stdout
    assert (root / "source" / ".venv" / "bin" / "python").exists()
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 5
    assert (root / "submission" / "mine.ipynb").is_file()
