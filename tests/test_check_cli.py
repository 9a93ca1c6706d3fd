"""`python -m autograder check`: which notebooks it checks, and how it names them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from autograder.load.course import EXERCISES, SOLUTIONS, load_course
from conftest import run_cli, write_variant

COURSE = load_course(EXERCISES)
FIRST, SECOND = COURSE.notebooks[:2]


@pytest.fixture
def env(tmp_path):
    return {**os.environ, "PYTREES_PROGRESS": str(tmp_path / "progress.json"), "COLUMNS": "300"}


def copy(source_folder: Path, notebook, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(source_folder / notebook.id / notebook.filename, target))


def test_check_takes_several_notebooks_and_names_each_file(tmp_path, env):
    first = copy(SOLUTIONS, FIRST, tmp_path / f"{FIRST.id}-Copy1.ipynb")
    second = copy(SOLUTIONS, SECOND, tmp_path / "my work.ipynb")
    done = run_cli("check", first, second, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert first.name in done.stdout and second.name in done.stdout
    assert "All visible tests pass, in all 2 notebooks" in done.stdout


def test_two_copies_of_one_chapter_are_each_checked(tmp_path, env):
    solved = copy(SOLUTIONS, FIRST, tmp_path / f"{FIRST.id}-Copy1.ipynb")
    untouched = copy(EXERCISES, FIRST, tmp_path / FIRST.filename)
    done = run_cli("check", solved, untouched, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith(f"Not started: {untouched}.")


def test_the_closing_line_names_the_file_that_was_checked(tmp_path, env):
    untouched = copy(EXERCISES, FIRST, tmp_path / f"{FIRST.id}-Copy1.ipynb")
    done = run_cli("check", untouched, env=env)
    assert done.returncode == 1
    assert done.stdout.strip().splitlines()[-1].startswith(f"Not started: {untouched}.")


def test_a_notebook_path_that_does_not_exist_says_no_such_file(env):
    done = run_cli("check", "exercises/aux_data/nothere.ipynb", env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: exercises/aux_data/nothere.ipynb: no such file"


def test_a_mistyped_notebook_file_suggests_the_closest_in_its_folder(env):
    done = run_cli("check", "exercises/mapping/maping.ipynb", env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: exercises/mapping/maping.ipynb: no such file "
        "(did you mean exercises/mapping/mapping.ipynb?)"
    )


def test_a_mistyped_chapter_suggests_the_closest(env):
    done = run_cli("check", "auxdata", env=env)
    assert done.returncode == 2
    assert "did you mean aux_data?" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_notebook_argument_says_a_chapter_name_works(env):
    done = run_cli("check", "--help", env={**env, "COLUMNS": "1000"})
    line = next(line for line in done.stdout.splitlines() if line.strip().startswith("NOTEBOOK"))
    assert "chapter" in line


def test_a_damaged_notebook_is_one_line_and_exit_2(tmp_path, env):
    damaged = tmp_path / "aux_data-Copy1.ipynb"
    damaged.write_text('{"cells": [', encoding="utf-8")
    done = run_cli("check", damaged, env=env)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: the notebook file aux_data-Copy1.ipynb is damaged (its JSON is cut off or "
        "broken at line 1, column 12): re-save or re-download it"
    ]


def test_all_finds_each_chapters_notebook_by_its_cells(tmp_path, monkeypatch):
    from autograder.grade import check

    monkeypatch.setattr(check, "EXERCISES", tmp_path / "exercises")
    copy(EXERCISES, FIRST, tmp_path / "exercises" / FIRST.id / FIRST.filename)
    work = copy(SOLUTIONS, FIRST, tmp_path / "exercises" / FIRST.id / f"{FIRST.id}-Copy1.ipynb")
    other = copy(SOLUTIONS, SECOND, tmp_path / "exercises" / "mine.ipynb")
    targets, files = check.chapters_under_exercises(COURSE, [n.id for n in COURSE.notebooks])
    found = {chapter: (path, name) for chapter, path, name in targets}
    assert found[FIRST.id] == (work, work.name) and found[SECOND.id] == (other, other.name)
    assert [(f.path, f.why) for f in files if not f.graded] == [
        (f"{FIRST.id}/{FIRST.filename}", "fewer answered cells")
    ]


def wrong(notebook, target: Path) -> Path:
    """``notebook`` with every function answered by one that returns None."""
    answers = {
        f.name: f"def {f.name}(*args, **kwargs):\n    return None" for f in notebook.functions
    }
    return write_variant(notebook.released_path, target, answers)


def test_several_notebooks_lead_with_the_table_and_detail_only_what_fails(tmp_path, env):
    solved = copy(SOLUTIONS, FIRST, tmp_path / "solved.ipynb")
    untouched = copy(EXERCISES, SECOND, tmp_path / "untouched.ipynb")
    failing = wrong(COURSE.notebooks[2], tmp_path / "wrong.ipynb")
    done = run_cli("check", solved, untouched, failing, env=env)
    lines = done.stdout.splitlines()
    assert "Your notebooks" in lines[0], done.stdout
    details = "\n".join(lines[next(i for i, line in enumerate(lines) if "└" in line) + 1 :])
    assert [f.name for f in FIRST.functions if f"{f.name} (" in details] == []
    assert [f.name for f in SECOND.functions if f"{f.name} (" in details] == []
    assert all(f"{f.name} (" in details for f in COURSE.notebooks[2].functions)


def test_a_message_wrapped_at_the_terminals_width_stays_indented(tmp_path, env):
    done = run_cli("check", wrong(SECOND, tmp_path / "wrong.ipynb"), env={**env, "COLUMNS": "60"})
    lines = done.stdout.splitlines()
    while lines and not lines[-1].startswith(" "):
        lines.pop()  # the closing lines stand on their own
    assert len(lines) > 3 * len(SECOND.functions), "no message was wrapped"
    assert [line for line in lines if line[:1] not in ("", " ") and "FAIL" not in line] == []


def test_several_notebooks_name_those_not_started_once_after_the_table(tmp_path, env):
    solved = copy(SOLUTIONS, FIRST, tmp_path / "solved.ipynb")
    untouched = copy(EXERCISES, SECOND, tmp_path / "untouched.ipynb")
    done = run_cli("check", solved, untouched, env=env)
    below_the_table = done.stdout.split("┘", 1)[1].splitlines()
    assert len([line for line in below_the_table if untouched.name in line]) == 1, done.stdout
