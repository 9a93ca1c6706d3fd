"""A damaged notebook file gets one plain line that names it and says to re-save or
re-download it, and its functions are ``corrupt``."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.execute.run import Limits
from autograder.grade.submission import grade_submission
from autograder.load.course import SOLUTIONS, load_course
from autograder.load.learner_notebook import NotebookUnreadable, read_notebook
from autograder.load.submissions import Submission

COURSE = load_course(SOLUTIONS)
CHAPTER = COURSE.notebook("aux_data")

DAMAGED = {
    "cut off": ('{"cells": [', "its JSON is cut off or broken at line 1, column 12"),
    "empty": ("", "it is empty"),
    "JSON of something else": ("{}", "it is JSON, but not a notebook: it holds no cells"),
    "a JSON list": ("[1, 2]", "it is JSON, but not a notebook: it holds no cells"),
    "cells that are not cells": (
        '{"cells": [1], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
        "it is JSON, but its cells are not notebook cells",
    ),
}


@pytest.mark.parametrize(("text", "why"), DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_file_is_one_plain_line_naming_it(tmp_path, text, why):
    path = tmp_path / "notnb.ipynb"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(NotebookUnreadable) as raised:
        read_notebook(path)
    assert str(raised.value) == (
        f"the notebook file notnb.ipynb is damaged ({why}): re-save or re-download it"
    )


def test_a_damaged_notebooks_functions_are_corrupt_with_one_note_and_no_hint(tmp_path: Path):
    damaged = tmp_path / "aux_data.ipynb"
    damaged.write_text('{"cells": [', encoding="utf-8")
    result = grade_submission(Submission("eve", {CHAPTER.id: damaged}), COURSE, Limits())
    assert {e.status for e in result.exercises} == {"corrupt"}
    assert all(not e.hint and not e.first_message for e in result.exercises)
    assert [note.text for note in result.notes] == [
        "aux_data.ipynb: the notebook file aux_data.ipynb is damaged (its JSON is cut off or "
        "broken at line 1, column 12): re-save or re-download it"
    ]
