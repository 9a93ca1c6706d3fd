"""Grading what was assigned: ``--assignment``, or the assignments of nbgrader's layout."""

from __future__ import annotations

import shutil
from pathlib import Path

from autograder.load.course import SOLUTIONS, load_course
from autograder.load.submissions import nbgrader_assignments

COURSE = load_course(SOLUTIONS)
ASSIGNED = COURSE.notebooks[0]


def nbgrader_class(root: Path, notebook=ASSIGNED) -> Path:
    """Two learners' ``submitted/<student>/<assignment>/<notebook>.ipynb``: one solved, one not."""
    for student, source in (("ada", notebook.path), ("bob", notebook.released_path)):
        folder = root / "submitted" / student / notebook.id
        folder.mkdir(parents=True)
        shutil.copy(source, folder / notebook.filename)
    return root


def test_nbgrader_layout_tells_the_assignment(tmp_path):
    assert nbgrader_assignments(nbgrader_class(tmp_path), COURSE) == [ASSIGNED.id]


def test_a_plain_class_layout_tells_nothing(tmp_path):
    (tmp_path / "ada").mkdir()
    assert nbgrader_assignments(tmp_path, COURSE) == []


def test_a_learners_total_is_over_what_was_assigned(grade, tmp_path):
    graded = grade(nbgrader_class(tmp_path))
    assert graded.returncode == 0, graded.stderr
    assert graded.student("ada")["max_score"] == ASSIGNED.points == graded.student("ada")["score"]
    statuses = {e["status"] for s in graded.report["students"] for e in s["exercises"]}
    assert "missing" not in statuses
    assert f"note: grading {ASSIGNED.id} (from the folders of nbgrader's submitted/)" in (
        graded.stderr
    )


def test_assignment_option_picks_the_chapters_of_a_plain_class(grade, tmp_path):
    for student in ("ada", "bob"):
        (tmp_path / student).mkdir()
        shutil.copy(ASSIGNED.path, tmp_path / student / ASSIGNED.filename)
    graded = grade(tmp_path, "--assignment", ASSIGNED.id)
    assert graded.returncode == 0, graded.stderr
    assert graded.report["max_score"] == 2 * ASSIGNED.points == graded.report["score"]


def test_an_unknown_assignment_exits_2_naming_it(grade, tmp_path):
    (tmp_path / "ada").mkdir()
    graded = grade(tmp_path, "--assignment", "no_such_chapter")
    assert graded.returncode == 2 and "no_such_chapter" in graded.stderr


def test_an_assignment_notes_a_copy_of_its_chapter_and_not_the_chapters_nobody_was_given(
    grade, tmp_path, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "400")
    alice = tmp_path / "class" / "alice"
    alice.mkdir(parents=True)
    for notebook in COURSE.notebooks:
        shutil.copy(notebook.released_path, alice / notebook.filename)
    shutil.copy(ASSIGNED.path, alice / f"{ASSIGNED.id}-Copy1.ipynb")
    markdown = tmp_path / "summary.md"
    graded = grade(tmp_path / "class", "--assignment", ASSIGNED.id, "--markdown", markdown)
    assert graded.returncode == 0, graded.stderr
    assert graded.student("alice")["score"] == ASSIGNED.points
    shown = graded.stdout + graded.stderr + markdown.read_text()
    assert f"not graded {ASSIGNED.filename} (fewer answered cells)" in graded.stdout
    others = [n.filename for n in COURSE.notebooks if n is not ASSIGNED]
    assert not [name for name in others if name in shown]
