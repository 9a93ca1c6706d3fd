"""A learner's notebook is read against the course's own copy: which cells are the course's,
which are the learner's, and what runs again after the learner's last cell."""

from __future__ import annotations

import nbformat
import pytest

from autograder import notebook
from autograder.load.course import EXERCISES, SOLUTIONS, load_notebook
from autograder.load.learner_notebook import (
    LEARNER_TOOLS,
    cells_rebinding_given,
    cells_to_run,
    cells_touching_the_grader,
    course_cells,
    tampered_cells,
)

AUX_DATA = "aux_data"


def _read(folder, chapter: str = AUX_DATA) -> nbformat.NotebookNode:
    return nbformat.read(folder / chapter / f"{chapter}.ipynb", as_version=4)


@pytest.fixture
def course():
    return course_cells(_read(EXERCISES), _read(SOLUTIONS))


@pytest.fixture
def learner() -> nbformat.NotebookNode:
    """The reference solution, as a learner hands it in."""
    return _read(SOLUTIONS)


def _code(source: str, **nbgrader) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    if nbgrader:
        cell.metadata["nbgrader"] = nbgrader
    return cell


def test_the_course_s_locked_cells_unchanged_are_the_course_s(course, learner):
    assert cells_touching_the_grader(learner, course) == []
    assert tampered_cells(learner, course) == {}


def test_a_cell_that_claims_to_be_locked_is_the_learner_s(course, learner):
    learner.cells.append(
        _code("import autograder.learner.watchers as w", locked=True, grade_id="helpers")
    )
    assert cells_touching_the_grader(learner, course) == [
        'the cell "import autograder.learner.watchers as w"'
    ]


def test_a_locked_cell_whose_source_changed_is_the_learner_s(course, learner):
    setup = next(
        c for c in learner.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup"
    )
    setup.source += "\nimport sys; sys.modules['x'] = None"
    assert len(cells_touching_the_grader(learner, course)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nw = sys.modules['auto' + 'grader.learner.watchers']",
        "from jax._src import tree_util",
        "import jax\njax.tree.leaves = lambda tree: []",
        "import jax\nsetattr(jax.tree_util, 'tree_leaves', len)",
        "import importlib\nm = importlib.import_module('x')",
        # more than an import of the learner's tools, each under its own name
        "from autograder.notebook import status\nstatus()",
        "from autograder.notebook import status; import sys",
        "from autograder.notebook import status as progress",
        "from autograder.notebook import *",
        "import autograder.notebook as tools",
        "import autograder.notebook\nautograder.notebook.status()",
        "from autograder.learner.feedback import check",
        # full-width letters, which Python reads as the ASCII names (NFKC)
        "import \uff41\uff55\uff54\uff4f\uff47\uff52\uff41\uff44\uff45\uff52.learner.grading as g",
        "import sys\nm = sys.\uff4d\uff4f\uff44\uff55\uff4c\uff45\uff53",
    ],
)
def test_a_learner_cell_that_reaches_into_the_grader_or_jax_is_reported(course, learner, source):
    learner.cells.append(_code(source))
    assert len(cells_touching_the_grader(learner, course)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "from autograder.notebook import status",
        "from autograder.notebook import check, hint, solution, status",
        "# my progress\nfrom autograder.notebook import (\n    hint,\n    status,\n)\n",
    ],
)
def test_a_learner_cell_that_only_imports_the_learner_s_tools_is_not_reported(
    course, learner, source
):
    learner.cells.append(_code(source))
    assert cells_touching_the_grader(learner, course) == []


def test_the_learner_s_tools_are_what_autograder_notebook_offers():
    assert set(notebook.__all__) == LEARNER_TOOLS


def test_a_learner_s_own_variable_called_tree_is_not_reported(course, learner):
    learner.cells.append(_code("def relabel(tree):\n    tree.name = 'x'\n    return tree"))
    assert cells_touching_the_grader(learner, course) == []


def test_the_given_cells_run_again_from_the_course_s_copy_after_the_last_cell(course, learner):
    exercise = load_notebook(SOLUTIONS / AUX_DATA / f"{AUX_DATA}.ipynb")
    learner.cells.append(_code("def doubled_layer(weight, bias, name):\n    return None"))
    cells = cells_to_run(learner, exercise, course)
    last = len(learner.cells)
    rerun = [source for number, source in cells if number > last]
    assert rerun == [source for _, source in course.given]
    assert any("def doubled_layer" in source for source in rerun)
    assert max(number for number, _ in cells if number <= last) == last


def test_a_re_run_leaves_the_names_the_learner_writes_alone():
    released = nbformat.v4.new_notebook()
    source = nbformat.v4.new_notebook()
    source.cells = [
        _code(
            "import jax\nLIMIT = 3\n\ndef graded(x):\n    return x\n", locked=True, grade_id="setup"
        ),
        _code("def graded(x):\n    return x + 1", solution=True, grade_id="graded"),
    ]
    course = course_cells(released, source)
    exercise = load_notebook(SOLUTIONS / AUX_DATA / f"{AUX_DATA}.ipynb")
    ((_, rerun),) = [cell for cell in cells_to_run(nbformat.v4.new_notebook(), exercise, course)]
    assert "LIMIT = 3" in rerun and "def graded" not in rerun
    assert rerun.count("\n") == source.cells[0].source.count("\n")


def test_a_learner_cell_that_redefines_a_given_helper_is_reported(course, learner):
    learner.cells.append(_code("def doubled_layer(weight, bias, name):\n    return None"))
    assert cells_rebinding_given(learner, course) == [
        'the cell "def doubled_layer(weight, bias, name):" (doubled_layer)'
    ]


def test_importing_what_the_setup_cell_imports_again_is_no_redefinition(course, learner):
    learner.cells.append(
        _code("import jax\nimport numpy as np\nfrom collections import namedtuple")
    )
    assert cells_rebinding_given(learner, course) == []
