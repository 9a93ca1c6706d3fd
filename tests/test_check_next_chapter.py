"""Which notebook's zygote a check that lives on starts for the learner's next check:
the next chapter's, in the file they checked it from, else where the course keeps it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.grade import check
from autograder.learner import progress
from autograder.load.course import EXERCISES, load_course

COURSE = load_course(EXERCISES)
FIRST, SECOND = COURSE.notebooks[:2]


@pytest.fixture
def started(monkeypatch, tmp_path) -> list[dict[str, Path | None]]:
    """The notebooks each zygote the check starts is for (no zygote is started)."""
    monkeypatch.setenv("PYTREES_PROGRESS", str(tmp_path / "progress.json"))
    calls: list[dict[str, Path | None]] = []
    monkeypatch.setattr(check, "_run_limits", lambda notebooks, course, limits: notebooks)
    monkeypatch.setattr(check, "start_zygote", lambda notebooks: calls.append(notebooks))
    return calls


def placed(notebook, folder: Path) -> Path:
    """The exercise notebook of ``notebook`` where the course keeps it below ``folder``."""
    (folder / notebook.id).mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(notebook.released_path, folder / notebook.id / notebook.filename))


def test_the_next_chapters_notebook_beside_the_checked_one_gets_a_zygote(tmp_path, started):
    first, second = placed(FIRST, tmp_path), placed(SECOND, tmp_path)
    check.start_next_chapters_zygote(FIRST.id, first, COURSE, None)
    assert started == [{SECOND.id: second.resolve()}]


def test_the_file_the_next_chapter_was_checked_from_comes_first(tmp_path, started):
    first = placed(FIRST, tmp_path)
    placed(SECOND, tmp_path)
    elsewhere = Path(shutil.copy(SECOND.released_path, tmp_path / "mine.ipynb"))
    progress.record({SECOND.functions[0].name: False}, str(elsewhere))
    check.start_next_chapters_zygote(FIRST.id, first, COURSE, None)
    assert started == [{SECOND.id: elsewhere}]


def test_a_recorded_file_that_is_gone_gives_way_to_the_one_beside(tmp_path, started):
    first, second = placed(FIRST, tmp_path), placed(SECOND, tmp_path)
    progress.record({SECOND.functions[0].name: False}, str(tmp_path / "deleted.ipynb"))
    check.start_next_chapters_zygote(FIRST.id, first, COURSE, None)
    assert started == [{SECOND.id: second.resolve()}]


def test_no_zygote_is_started_where_the_next_chapter_has_no_notebook(tmp_path, started):
    check.start_next_chapters_zygote(FIRST.id, placed(FIRST, tmp_path), COURSE, None)
    assert started == []


def test_the_last_chapter_starts_no_zygote(tmp_path, started):
    last = COURSE.notebooks[-1]
    check.start_next_chapters_zygote(last.id, placed(last, tmp_path), COURSE, None)
    assert started == []
