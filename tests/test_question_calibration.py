"""The calibration of the question audit against a reading of the book
(booktools/question_calibration.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_question_audit import ASKED, SHOWN, _page, _question, _shown

from booktools.question_calibration import calibration, read_labels


def test_labels_are_read_one_question_a_line_with_comments(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("# a reading\npage-1 recall\npage-2 prediction  # borderline\n")
    assert read_labels(labels) == {"page-1": "recall", "page-2": "prediction"}


def test_a_label_other_than_recall_or_prediction_is_refused(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("page-1 recal\n")
    with pytest.raises(ValueError, match="'page-1 recal' is not KEY recall|prediction"):
        read_labels(labels)


def test_the_calibration_counts_recall_caught_and_predictions_flagged(tmp_path: Path):
    pages = _page(tmp_path, _shown(SHOWN), _question(ASKED))
    text = calibration(pages, {"page-1": "prediction", "page-9": "recall"})
    assert text.splitlines()[:2] == [
        "recall flagged: 0/1; missed: page-9",
        "predictions flagged: 1/1: page-1",
    ]


def test_a_question_without_its_own_code_cell_counts_as_flagged(tmp_path: Path):
    pages = _page(tmp_path, _shown(SHOWN), _question(ASKED).replace("tag_hide-output", ""))
    text = calibration(pages, {"page-1": "recall"})
    assert text.splitlines()[0] == "recall flagged: 1/1; missed: none"
