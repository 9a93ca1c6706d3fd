"""Finding submissions: a notebook is known by its cells whatever its file is called, and one
of several copies of a chapter is picked by a stated rule."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from autograder.load.course import COURSE_COPY, REPO_ROOT, SOLUTIONS, load_course
from autograder.load.submissions import UnusableInput, find_submissions

COURSE = load_course(SOLUTIONS)
CHAPTER = COURSE.notebook("aux_data")
OTHER = COURSE.notebook("key_paths")


def solved(target: Path, notebook=CHAPTER) -> Path:
    """The reference solutions of ``notebook``, as a learner's file at ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(notebook.path, target))


def untouched(target: Path, notebook=CHAPTER) -> Path:
    """The exercise as released, unanswered, at ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(notebook.released_path, target))


def graded_file(submission, chapter=CHAPTER.id) -> str:
    return next(f.path for f in submission.files if f.chapter == chapter and f.graded)


def not_graded(submission) -> dict[str, str]:
    return {f.path: f.why for f in submission.files if not f.graded}


@pytest.mark.parametrize("name", ["aux_data-Copy1.ipynb", "my work.ipynb", "aux_data (1).ipynb"])
def test_a_learners_notebook_is_graded_as_its_chapter_whatever_its_name(tmp_path, name):
    solved(tmp_path / "class" / "carol" / name)
    untouched(tmp_path / "class" / "dan" / "aux_data.ipynb")
    carol = find_submissions(tmp_path / "class", COURSE)[0]
    assert carol.notebooks[CHAPTER.id] == tmp_path / "class" / "carol" / name
    assert graded_file(carol) == name


LAYOUTS = {
    "one notebook file": ("notes.ipynb", "notes.ipynb"),
    "one learner's folder": ("work/notes.ipynb", "work"),
    "a learners' repository": ("repo/exercises/aux_data/notes.ipynb", "repo"),
    "a class": ("class/carol/deep/notes.ipynb", "class"),
    "nbgrader's layout": ("course/submitted/carol/aux_data/notes.ipynb", "course"),
}


@pytest.mark.parametrize(("file", "given"), LAYOUTS.values(), ids=LAYOUTS.keys())
def test_every_layout_knows_a_notebook_by_its_cells(tmp_path, file, given):
    solved(tmp_path / file)
    if given == "work":
        untouched(tmp_path / "work" / "leaves.ipynb", COURSE.notebook("leaves"))
    (submission,) = find_submissions(tmp_path / given, COURSE)
    assert submission.notebooks[CHAPTER.id] == tmp_path / file


def test_a_release_s_course_copy_is_never_graded(tmp_path):
    repo = tmp_path / "repo"
    untouched(repo / "exercises" / "leaves" / "leaves.ipynb", COURSE.notebook("leaves"))
    solved(repo / COURSE_COPY.relative_to(REPO_ROOT) / CHAPTER.id / "anything.ipynb")
    (submission,) = find_submissions(repo, COURSE)
    assert submission.notebooks[CHAPTER.id] is None
    assert not any(f.chapter == CHAPTER.id for f in submission.files)


def test_a_notebook_of_another_name_is_graded_only_as_a_regular_file(tmp_path):
    solved(tmp_path / "class" / "ann" / "mine.ipynb")
    (tmp_path / "class" / "bob").mkdir()
    os.symlink(CHAPTER.path, tmp_path / "class" / "bob" / "mine.ipynb")
    ann, bob = find_submissions(tmp_path / "class", COURSE)
    assert ann.notebooks[CHAPTER.id] == tmp_path / "class" / "ann" / "mine.ipynb"
    assert bob.notebooks[CHAPTER.id] is None
    assert any("mine.ipynb is a symbolic link" in note for note in bob.notes)


def test_of_two_copies_the_one_with_more_answered_cells_is_graded(tmp_path):
    """The original left untouched beside the copy the learner worked in."""
    repo = tmp_path / "frank"
    untouched(repo / "exercises" / "aux_data" / "aux_data.ipynb")
    solved(repo / "exercises" / "aux_data" / "aux_data-Copy1.ipynb")
    os.utime(repo / "exercises" / "aux_data" / "aux_data.ipynb", (2e9, 2e9))  # newer
    (frank,) = find_submissions(repo, COURSE)
    assert frank.notebooks[CHAPTER.id].name == "aux_data-Copy1.ipynb"
    assert not_graded(frank) == {"exercises/aux_data/aux_data.ipynb": "fewer answered cells"}


def test_of_copies_as_answered_the_one_modified_last_is_graded(tmp_path):
    older, newer = (solved(tmp_path / "eve" / name) for name in ("b.ipynb", "a.ipynb"))
    os.utime(older, (1.7e9, 1.7e9))
    os.utime(newer, (1.8e9, 1.8e9))
    (eve,) = find_submissions(tmp_path / "eve", COURSE)
    assert eve.notebooks[CHAPTER.id] == newer
    assert not_graded(eve) == {"b.ipynb": "as many answered cells, modified earlier"}


def test_of_copies_as_answered_and_modified_in_the_same_second_the_first_by_path_wins(tmp_path):
    copies = [solved(tmp_path / "eve" / name) for name in ("b.ipynb", "a.ipynb", "c.ipynb")]
    for number, copy in enumerate(copies):
        os.utime(copy, (1.8e9 + number / 10, 1.8e9 + number / 10))
    (eve,) = find_submissions(tmp_path / "eve", COURSE)
    assert eve.notebooks[CHAPTER.id].name == "a.ipynb"
    assert set(not_graded(eve)) == {"b.ipynb", "c.ipynb"}
    assert find_submissions(tmp_path / "eve", COURSE) == [eve]


def test_a_damaged_copy_beside_a_readable_one_is_not_graded_and_says_so(tmp_path):
    untouched(tmp_path / "eve" / "aux_data-Copy1.ipynb")
    (tmp_path / "eve" / "aux_data.ipynb").write_text('{"cells": [', encoding="utf-8")
    (eve,) = find_submissions(tmp_path / "eve", COURSE)
    assert eve.notebooks[CHAPTER.id].name == "aux_data-Copy1.ipynb"
    assert "re-save or re-download it" in not_graded(eve)["aux_data.ipynb"]


def test_a_damaged_notebook_alone_is_its_named_chapter_s(tmp_path):
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / "aux_data-Copy1.ipynb").write_text('{"cells": [', encoding="utf-8")
    (eve,) = find_submissions(tmp_path / "eve", COURSE)
    assert eve.notebooks[CHAPTER.id] == tmp_path / "eve" / "aux_data-Copy1.ipynb"


def test_a_notebook_of_no_chapter_is_listed_as_not_graded_by_its_name(tmp_path):
    from nbformat import v4, write

    solved(tmp_path / "eve" / "aux_data.ipynb")
    write(v4.new_notebook(cells=[v4.new_code_cell("print(1)")]), tmp_path / "eve" / "scratch.ipynb")
    (eve,) = find_submissions(tmp_path / "eve", COURSE)
    assert not_graded(eve) == {"scratch.ipynb": "not one of the course's exercises"}


def test_a_learner_folder_with_no_notebook_gets_one_note_and_nothing_to_grade(tmp_path):
    solved(tmp_path / "class" / "ann" / "aux_data.ipynb")
    (tmp_path / "class" / "bob" / "sub").mkdir(parents=True)
    (tmp_path / "class" / "bob" / "sub" / "readme.txt").write_text("hi")
    bob = find_submissions(tmp_path / "class", COURSE)[1]
    assert set(bob.notebooks.values()) == {None} and bob.files == []
    assert bob.notes == ["no notebook (.ipynb file) anywhere in bob/"]


def test_a_path_with_no_notebook_anywhere_below_it_is_unusable(tmp_path):
    (tmp_path / "nonb" / "sub").mkdir(parents=True)
    (tmp_path / "nonb" / "sub" / "readme.txt").write_text("hi")
    with pytest.raises(UnusableInput, match="holds no notebook"):
        find_submissions(tmp_path / "nonb", COURSE)


def test_an_assignment_leaves_the_other_chapters_notebooks_out_without_a_word(tmp_path):
    alice = tmp_path / "class" / "alice"
    for notebook in COURSE.notebooks:
        untouched(alice / notebook.filename, notebook)
    (submission,) = find_submissions(tmp_path / "class", COURSE, [CHAPTER.id])
    assert list(submission.notebooks) == [CHAPTER.id]
    assert [(f.path, f.chapter, f.graded) for f in submission.files] == [
        (CHAPTER.filename, CHAPTER.id, True)
    ]
    assert submission.notes == []


def test_an_assignment_still_lists_a_copy_of_an_assigned_chapter_not_graded(tmp_path):
    untouched(tmp_path / "class" / "carol" / "aux_data.ipynb")
    solved(tmp_path / "class" / "carol" / "aux_data-Copy1.ipynb")
    untouched(tmp_path / "class" / "carol" / "key_paths.ipynb", OTHER)
    (carol,) = find_submissions(tmp_path / "class", COURSE, [CHAPTER.id])
    assert carol.notebooks == {CHAPTER.id: tmp_path / "class" / "carol" / "aux_data-Copy1.ipynb"}
    assert not_graded(carol) == {"aux_data.ipynb": "fewer answered cells"}


def test_nbgrader_s_layout_lists_only_copies_of_its_assignments(tmp_path):
    folder = tmp_path / "course" / "submitted" / "cleo" / CHAPTER.id
    untouched(folder / "aux_data.ipynb")
    solved(folder / "aux_data-Copy1.ipynb")
    untouched(folder / "key_paths.ipynb", OTHER)
    (cleo,) = find_submissions(tmp_path / "course", COURSE, [CHAPTER.id])
    assert cleo.notebooks[CHAPTER.id] == folder / "aux_data-Copy1.ipynb"
    assert not_graded(cleo) == {"aux_data/aux_data.ipynb": "fewer answered cells"}


def test_a_single_notebook_of_a_chapter_not_assigned_is_unusable(tmp_path):
    untouched(tmp_path / "mine.ipynb", OTHER)
    with pytest.raises(UnusableInput, match="is the key_paths exercise, which is not among"):
        find_submissions(tmp_path / "mine.ipynb", COURSE, [CHAPTER.id])
