"""Readings of the book's questions (booktools/question_readings.py)."""

from __future__ import annotations

import pytest

from booktools.question_readings import Reading, digest, read_file, read_folder


def test_a_reading_line_may_record_the_digest_of_the_question_read(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("# a reader\npage-1 prediction 0123abcd4567\npage-2 recall  # shown\n")
    assert read_file(path) == {
        "page-1": Reading("prediction", "0123abcd4567"),
        "page-2": Reading("recall"),
    }


@pytest.mark.parametrize("line", ["page-1", "page-1 maybe", "page-1 recall abc extra"])
def test_a_line_that_is_not_a_key_a_label_and_a_digest_is_refused(tmp_path, line):
    path = tmp_path / "a.txt"
    path.write_text(f"{line}\n")
    with pytest.raises(ValueError, match="is not KEY recall|prediction"):
        read_file(path)


def test_a_reading_that_reads_a_question_twice_is_refused(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("page-1 prediction d1\npage-1 recall d1\n")
    with pytest.raises(ValueError, match="page-1 is read twice"):
        read_file(path)


def test_every_file_of_a_folder_adds_its_readings(tmp_path):
    (tmp_path / "a.txt").write_text("page-1 prediction d1\n")
    (tmp_path / "b.txt").write_text("page-1 recall d1\npage-2 prediction d2\n")
    assert read_folder(tmp_path) == {
        "page-1": [Reading("prediction", "d1"), Reading("recall", "d1")],
        "page-2": [Reading("prediction", "d2")],
    }


def test_a_question_read_again_after_any_change_has_another_digest():
    read = digest("f(1)", ["1", "2"], 0)
    assert digest("f(1)\n", ["1", "2"], 0) == read  # spacing aside
    assert digest("f(2)", ["1", "2"], 0) != read
    assert digest("f(1)", ["1", "3"], 0) != read
    assert digest("f(1)", ["1", "2"], 1) != read
