"""The grader's copy of nbgrader's cell checksum gives nbgrader's answer."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from autograder.load.checksum import cell_checksum
from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS


def graded_cells() -> list[nbformat.NotebookNode]:
    paths = sorted(SOLUTIONS.glob("*/*.ipynb")) + sorted(EXERCISES.glob("*/*.ipynb"))
    return [
        cell
        for path in paths
        for cell in nbformat.read(path, as_version=4).cells
        if "nbgrader" in cell.metadata
    ]


def test_every_course_cell_gets_nbgraders_checksum() -> None:
    cells = graded_cells()
    assert len(cells) > 100
    assert [cell_checksum(c) for c in cells] == [compute_checksum(c) for c in cells]


def test_released_locked_cells_match_the_checksum_nbgrader_stored() -> None:
    stored = [c for c in graded_cells() if "checksum" in c.metadata["nbgrader"]]
    assert stored
    assert all(cell_checksum(c) == c.metadata["nbgrader"]["checksum"] for c in stored)


@pytest.mark.parametrize(
    "meta",
    [
        {"grade": True, "solution": False, "grade_id": "t", "points": 2},
        {"grade": False, "solution": True, "grade_id": "s"},
        {"grade": False, "solution": False, "locked": True, "grade_id": "l"},
        {"grade": True, "solution": True, "locked": True, "grade_id": "b", "points": "1.5"},
    ],
)
def test_each_kind_of_cell_gets_nbgraders_checksum(meta: dict) -> None:
    cell = nbformat.v4.new_code_cell("x = 1\n", metadata={"nbgrader": meta})
    assert cell_checksum(cell) == compute_checksum(cell)


def test_grading_does_not_import_nbgrader() -> None:
    code = (
        "import sys, autograder.grade.submission, autograder.cli; print('nbgrader' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
