"""Finding a class's submissions: symbolic links are never followed."""

from __future__ import annotations

import os
import shutil

import pytest

from autograder.load.submissions import UnusableInput, find_submissions


@pytest.fixture
def two_learners(tmp_path, course):
    first = course.notebooks[0]
    for name in ("ann", "bob"):
        (tmp_path / name).mkdir()
    shutil.copy(first.released_path, tmp_path / "ann" / first.filename)
    return tmp_path, first, course


def test_a_notebook_that_links_to_the_solutions_is_not_graded(two_learners):
    root, first, course = two_learners
    os.symlink(first.path, root / "bob" / first.filename)
    bob = find_submissions(root, course)[1]
    assert bob.notebooks[first.id] is None
    assert any("is a symbolic link" in note for note in bob.notes)


def test_a_notebook_in_a_linked_folder_is_not_graded(two_learners):
    root, first, course = two_learners
    os.symlink(first.path.parent, root / "bob" / "work")
    bob = find_submissions(root, course)[1]
    assert bob.notebooks[first.id] is None


def test_a_learner_folder_that_is_a_link_hands_in_nothing(two_learners):
    root, first, course = two_learners
    os.symlink(first.path.parent, root / "cat")
    cat = find_submissions(root, course)[2]
    assert cat.student == "cat" and set(cat.notebooks.values()) == {None}
    assert any("is a symbolic link" in note for note in cat.notes)


def test_a_linked_notebook_given_alone_is_refused(tmp_path, course):
    first = course.notebooks[0]
    os.symlink(first.path, tmp_path / first.filename)
    with pytest.raises(UnusableInput, match="symbolic link"):
        find_submissions(tmp_path / first.filename, course)


def test_regular_notebooks_are_still_found(two_learners):
    root, first, course = two_learners
    ann = find_submissions(root, course)[0]
    assert ann.notebooks[first.id] == root / "ann" / first.filename
