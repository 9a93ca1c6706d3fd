"""The stubs a learner is given, and which graded functions of their notebook are not started.

A graded function is *not started* when its answer cell (found by its nbgrader grade_id)
still holds the released stub's source, whitespace at the ends aside, and no other cell of
the notebook defines it. That is decided here, in the grading process, from the notebook's
text alone: whatever the stub does when run (raise NotImplementedError in the function, or
at the top level of the cell, as a stub under a given class does), it is not run for it.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from autograder.load.course import (
    EXERCISES,
    SOLUTIONS,
    CourseError,
    ExerciseNotebook,
    read_course_cells,
)
from autograder.load.learner_notebook import parsed, to_python, top_level_names

if TYPE_CHECKING:
    import nbformat

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
"""What nbgrader puts in place of a solution region (``nbgrader_config.py``'s code_stub)."""


@functools.cache
def released_stubs(exercise: ExerciseNotebook) -> dict[str, str]:
    """Each solution cell's source as the learner is given it, by grade_id (stripped).

    Read from the released notebook as the course was loaded: ``exercises/`` when grading
    in the course's repository, a release's own course copy for its ``check``. Where
    that notebook is the very file the learner works in (``check`` in the course's own
    repository reads the course from ``exercises/``), its cells say nothing of the stubs:
    they are made from the reference solutions in ``solutions/`` as nbgrader makes them,
    or there are none.
    """
    names = {function.name for function in exercise.functions}
    if EXERCISES in exercise.path.parents:
        solutions = SOLUTIONS / exercise.id / exercise.filename
        if not solutions.is_file():
            return {}
        return {
            grade_id: stub_of(cell.source).strip()
            for cell in read_course_cells(solutions.read_bytes())
            if (grade_id := cell.metadata.get("nbgrader", {}).get("grade_id")) in names
        }
    data = exercise.released_bytes()
    if data is None:
        raise CourseError(f"{exercise.released_path} is missing: the course has no released copy")
    return {
        grade_id: cell.source.strip()
        for cell in read_course_cells(data)
        if (grade_id := cell.metadata.get("nbgrader", {}).get("grade_id")) in names
    }


def stub_of(solution: str) -> str:
    """``solution`` with each solution region replaced by the code stub, indented as its
    ``### BEGIN SOLUTION`` line: what ``nbgrader generate_assignment`` gives the learner."""
    lines: list[str] = []
    inside = False
    for line in solution.split("\n"):
        if BEGIN_SOLUTION in line:
            inside = True
            indent = re.match(r"\s*", line).group(0)  # type: ignore[union-attr]
            lines += [indent + stub for stub in CODE_STUB.split("\n")]
        elif END_SOLUTION in line:
            inside = False
        elif not inside:
            lines.append(line)
    return "\n".join(lines)


def cell_source(cell: nbformat.NotebookNode) -> str:
    """A cell's source as one string (a notebook file may store it as a list of lines)."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(map(str, source))


def not_started(nb: nbformat.NotebookNode, exercise: ExerciseNotebook) -> frozenset[str]:
    """The graded functions of ``exercise`` that ``nb`` has not started: their cell still
    holds the released stub and no other code cell of ``nb`` binds their name."""
    stubs = released_stubs(exercise)
    untouched: set[str] = set()
    bound: set[str] = set()  # what the other cells define: a function written elsewhere
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        source = cell_source(cell)
        if grade_id in stubs and grade_id not in untouched and source.strip() == stubs[grade_id]:
            untouched.add(grade_id)
        else:
            bound |= _names_bound(source)
    return frozenset(untouched - bound)


def nothing_started(nb: nbformat.NotebookNode, exercise: ExerciseNotebook) -> bool:
    """Whether ``nb`` has started none of ``exercise``'s graded functions (see
    :func:`not_started`): grading runs none of its code."""
    return not_started(nb, exercise) == {function.name for function in exercise.functions}


def _names_bound(source: str) -> set[str]:
    """The names a code cell binds as the worker runs it: a cell led by a magic
    (``%time``, ``!pip``) does not parse as Python until IPython has turned it into Python.
    It is turned only then, so that grading imports IPython (0.1 s) only for such a cell."""
    if parsed(source) is None:
        source = to_python(source)
    return top_level_names(source)
