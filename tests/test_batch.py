"""Grading a class: parallel jobs, shards and their merge, the grades CSV, the result cache."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from autograder.cli import EXIT_NOT_WRITTEN
from autograder.execute.run import Limits
from autograder.grade.batch import ResultCache, shard
from autograder.isolate import processes
from autograder.load.submissions import Submission
from autograder.report import formats
from autograder.report.model import Report, StudentResult
from conftest import run_cli

STUDENTS = ("ada", "bob", "cleo", "dan")


@pytest.fixture(scope="module")
def small_class(tmp_path_factory, course) -> Path:
    """Four learners handing in the first notebook: two solved, two untouched."""
    root = tmp_path_factory.mktemp("class")
    notebook = course.notebooks[0]
    for index, student in enumerate(STUDENTS):
        source = notebook.path if index % 2 == 0 else notebook.released_path
        (root / student).mkdir()
        shutil.copy(source, root / student / notebook.filename)
    return root


def _grade(path: Path, report: Path, *extra: str | Path) -> tuple[dict, str]:
    done = run_cli("grade", path, "--json", report, *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text()), done.stderr


@pytest.fixture(scope="module")
def serial_report(small_class, tmp_path_factory) -> dict:
    report = tmp_path_factory.mktemp("serial") / "r.json"
    return _grade(small_class, report, "--jobs", "1", "--no-cache")[0]


def test_two_jobs_give_the_same_report_as_one(small_class, serial_report, tmp_path):
    parallel, _ = _grade(small_class, tmp_path / "r.json", "--jobs", "2", "--no-cache")
    assert parallel == serial_report


def test_grading_processes_close_their_process_caps_when_they_end(small_class, tmp_path):
    before = set(processes.stale_groups())
    _grade(small_class, tmp_path / "r.json", "--jobs", "2", "--no-cache")
    assert set(processes.stale_groups()) - before == set()


def test_shards_split_the_class_and_merge_back_into_the_whole_report(
    small_class, serial_report, tmp_path
):
    parts = []
    for index in (1, 2, 3):
        part = tmp_path / f"shard{index}.json"
        _grade(small_class, part, "--shard", f"{index}/3", "--no-cache")
        parts.append(part)
    graded = [s["student"] for p in parts for s in json.loads(p.read_text())["students"]]
    assert sorted(graded) == sorted(STUDENTS)
    merged = tmp_path / "all.json"
    done = run_cli("merge", *parts, "--json", merged)
    assert done.returncode == 0, done.stderr
    assert json.loads(merged.read_text()) == serial_report


def test_a_student_belongs_to_the_same_shard_whatever_else_is_in_the_class():
    alone = [Submission("ada", {})]
    crowd = [Submission(name, {}) for name in ("zoe", "ada", "max", "lin")]
    for index in (1, 2, 3):
        in_alone = [s.student for s in shard(alone, index, 3)]
        in_crowd = [s.student for s in shard(crowd, index, 3)]
        assert ("ada" in in_alone) == ("ada" in in_crowd)


def test_merge_refuses_a_student_graded_twice(serial_report, tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for path in (first, second):
        path.write_text(json.dumps(serial_report))
    done = run_cli("merge", first, second, "--json", tmp_path / "all.json")
    assert done.returncode == 2
    assert "ada is in both" in done.stderr


def test_merge_refuses_reports_graded_with_different_seeds(serial_report, tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps({**serial_report, "students": serial_report["students"][:1]}))
    second.write_text(
        json.dumps({**serial_report, "seed": 7, "students": serial_report["students"][1:]})
    )
    done = run_cli("merge", first, second, "--json", tmp_path / "all.json")
    assert done.returncode == 2 and "seed" in done.stderr


def test_the_grades_csv_has_nbgrader_exports_columns_then_its_own_and_a_row_per_student(
    small_class, course, tmp_path
):
    grades = tmp_path / "grades.csv"
    _grade(small_class, tmp_path / "r.json", "--csv", grades)
    with grades.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0].keys()) == (
        *formats.CSV_COLUMNS,
        formats.HINTS_COLUMN,
        formats.FILES_COLUMN,
        formats.NOT_STARTED_COLUMN,
    )
    notebook = course.notebooks[0]
    first = [row for row in rows if row["assignment"] == notebook.id]
    assert [row["student_id"] for row in first] == list(STUDENTS)
    scores = {row["student_id"]: float(row["score"]) for row in first}
    assert scores == {"ada": notebook.points, "bob": 0, "cleo": notebook.points, "dan": 0}
    assert {float(row["max_score"]) for row in first} == {notebook.points}


def test_an_unchanged_class_is_regraded_from_the_cache(small_class, serial_report, tmp_path):
    cache = tmp_path / "cache"
    first, log = _grade(small_class, tmp_path / "a.json", "--cache-dir", cache)
    assert "from the cache" not in log
    again, log = _grade(small_class, tmp_path / "b.json", "--cache-dir", cache)
    assert log.count("from the cache") == len(STUDENTS)
    assert first == again == serial_report


def test_a_changed_submission_or_seed_is_graded_again(small_class, tmp_path, course):
    cache = tmp_path / "cache"
    copy = tmp_path / "class"
    shutil.copytree(small_class, copy)
    _grade(copy, tmp_path / "a.json", "--cache-dir", cache)
    notebook = course.notebooks[0]
    shutil.copy(notebook.path, copy / "bob" / notebook.filename)
    report, log = _grade(copy, tmp_path / "b.json", "--cache-dir", cache)
    assert log.count("from the cache") == len(STUDENTS) - 1
    assert next(s for s in report["students"] if s["student"] == "bob")["score"] > 0
    _, log = _grade(copy, tmp_path / "c.json", "--cache-dir", cache, "--seed", "5")
    assert "from the cache" not in log


def test_no_cache_grades_everything_again(small_class, tmp_path):
    cache = tmp_path / "cache"
    _grade(small_class, tmp_path / "a.json", "--cache-dir", cache)
    _, log = _grade(small_class, tmp_path / "b.json", "--cache-dir", cache, "--no-cache")
    assert "from the cache" not in log


def test_scores_are_written_into_an_nbgrader_gradebook(small_class, course, tmp_path):
    from nbgrader.api import Gradebook

    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    _grade(small_class, tmp_path / "r.json", "--gradebook", url)
    notebook = course.notebooks[0]
    with Gradebook(url) as gradebook:
        scores = {
            student: gradebook.find_submission(notebook.id, student).score for student in STUDENTS
        }
        assert gradebook.find_assignment(notebook.id).max_score == notebook.points
    assert scores == {"ada": notebook.points, "bob": 0, "cleo": notebook.points, "dan": 0}


def test_a_cache_folder_that_cannot_be_written_is_said_once_and_grading_goes_on(
    small_class, serial_report, tmp_path
):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    report, log = _grade(small_class, tmp_path / "a.json", "--cache-dir", blocked / "cache")
    assert log.count("results are not kept for the next run") == 1
    assert report == serial_report


def test_a_result_the_cache_cannot_write_is_graded_again_and_leaves_no_file(
    tmp_path, course, monkeypatch
):
    said: list[str] = []
    cache = ResultCache(tmp_path / "cache", course, Limits(), seed=0, say=said.append)
    submission = Submission("ada", {})
    result = StudentResult("ada")
    # json fails half-way through the file, as any text it could not write would
    monkeypatch.setattr(result, "to_dict", lambda: {"student": "ada", "unwritable": {1}})
    cache.put(submission, result)
    assert cache.get(submission) is None
    assert list((tmp_path / "cache").iterdir()) == []
    assert len(said) == 1 and "not kept for the next run" in said[0]


def test_an_output_that_cannot_be_written_costs_none_of_the_others(tmp_path):
    report = Report([StudentResult("ada"), StudentResult("bob")], isolation="bubblewrap")
    (tmp_path / "r.json").write_text(report.to_json(), encoding="utf-8")
    (tmp_path / "a-file").write_text("not a folder")
    outputs = {
        "--json": tmp_path / "out" / "merged.json",
        "--junit": tmp_path / "a-file" / "junit.xml",
        "--csv": tmp_path / "out" / "grades.csv",
        "--markdown": tmp_path / "out" / "summary.md",
    }
    done = run_cli("merge", tmp_path / "r.json", *(str(a) for o in outputs.items() for a in o))
    assert done.returncode == EXIT_NOT_WRITTEN
    assert f"--junit {outputs['--junit']}" in done.stderr
    assert [option for option, path in outputs.items() if path.is_file()] == [
        "--json",
        "--csv",
        "--markdown",
    ]
