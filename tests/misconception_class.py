"""The misconception cases of ``tests/misconceptions/`` as a class: one learner a case.

Each learner hands in the solution notebook of their case's chapter with the case's
wrong function in place of the right one. ``test_misconceptions`` grades this class;
an instructor can grade it too, to see a class's page of insight on known mistakes::

    .venv/bin/python tests/misconception_class.py /tmp/misconceptions
    .venv/bin/python -m autograder grade /tmp/misconceptions --json report.json --html class.html
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # run as a script: the cases and conftest are imported from here
    sys.path.insert(0, str(TESTS))

from autograder.load.course import SOLUTIONS, load_course  # noqa: E402
from conftest import write_variant  # noqa: E402

COURSE = load_course(SOLUTIONS)
CASES = [
    (notebook, case)
    for notebook in COURSE.notebooks
    for case in importlib.import_module(f"misconceptions.{notebook.id}").CASES
]


def learner(index: int) -> str:
    """The learner who hands in case ``index``."""
    return f"case{index:03d}"


def write_class(folder: Path) -> Path:
    """Write every case as its learner's folder under ``folder``; return ``folder``."""
    for index, (notebook, case) in enumerate(CASES):
        target = folder / learner(index) / notebook.filename
        write_variant(notebook.path, target, {case["function"]: case["source"]})
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: python {sys.argv[0]} FOLDER")
    written = write_class(Path(sys.argv[1]))
    print(f"wrote {len(CASES)} learners, one misconception case each, to {written}")
