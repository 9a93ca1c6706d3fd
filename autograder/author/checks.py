"""The course's consistency checks: each problem names the file to write or fix.

A chapter ``<id>`` is the files AUTHORING.md lists: ``book/<id>.md``, its entry in
``_toc.yml``, ``solutions/<id>/<id>.ipynb``, the generated
``exercises/<id>/<id>.ipynb`` and ``tests/misconceptions/<id>.py``. The solution
notebooks say which chapters exist; everything else is checked against them.
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import nbformat

from autograder.author.seal import MARKERS as SOLUTION_MARKERS
from autograder.author.seal import reference_seals, seals_kept
from autograder.load.course import (
    EXERCISES,
    REPO_ROOT,
    SOLUTIONS,
    Course,
    CourseError,
    ExerciseNotebook,
    hidden_lines,
    load_course,
    region_lines,
    toc_order,
)

MISCONCEPTIONS = REPO_ROOT / "tests" / "misconceptions"
CASES_PER_FUNCTION = 3


def course_problems() -> list[str]:
    """Everything that is missing or out of date in the course, one line per problem."""
    try:
        solutions = load_course(SOLUTIONS)
    except CourseError as exc:
        return [str(exc)]
    toc = toc_order()
    problems = []
    for notebook in solutions.notebooks:
        page = REPO_ROOT / "book" / f"{notebook.id}.md"
        if not page.is_file():
            problems.append(f"book/{notebook.id}.md is missing: write the chapter's lesson")
        if notebook.id not in toc:
            problems.append(f"_toc.yml does not list book/{notebook.id}")
        problems += misconception_problems(notebook)
    try:
        exercises = load_course(EXERCISES)
    except CourseError as exc:
        return [*problems, str(exc)]
    return problems + stale_exercises(exercises, solutions)


def stale_exercises(
    exercises: Course, solutions: Course, say: Callable[[str], None] | None = None
) -> list[str]:
    """Where ``exercises`` is not what ``python -m autograder generate`` makes of ``solutions``.

    Compared cell by cell, as a learner sees them: the text, the setup, each
    solution cell around its solution region, the visible tests, the hints and
    probes. A notebook whose answer cells are not the stubs (a learner's answers) is
    told from one the course changed. Only when all of that holds, each function's
    seal, which must open with its reference solution's answers: that runs the
    reference solutions, seconds a chapter unless kept from an earlier run, and
    ``say`` is told of each chapter that runs them.
    """
    released = {notebook.id: notebook for notebook in exercises.notebooks}
    problems = []
    for notebook in solutions.notebooks:
        mine = released.pop(notebook.id, None)
        if mine is None:
            problems.append(
                f"exercises/{notebook.id}/{notebook.filename} is missing: "
                "run python -m autograder generate"
            )
        elif answered := answered_cells(mine.path, notebook.path, source=True):
            problems.append(
                f"exercises/{notebook.id}/{notebook.filename} has answers in it "
                f"({', '.join(answered)}): release from a clean clone, or run "
                "python -m autograder generate --force to discard them"
            )
        elif _learner_view(notebook.path, source=True) != _learner_view(mine.path, source=False):
            problems.append(
                f"exercises/{notebook.id} is out of date with solutions/{notebook.id}: "
                "run python -m autograder generate"
            )
    problems += [
        f"exercises/{chapter} has no solutions/{chapter}: delete it, or restore the solution"
        for chapter in sorted(released)
    ]
    if problems:
        return problems
    for notebook in solutions.notebooks:
        mine = exercises.notebook(notebook.id)
        if say is not None and not seals_kept(notebook):
            say(f"checking the seals of exercises/{notebook.id}: running its reference solutions")
        if stale := stale_seals(mine, notebook):
            problems.append(
                f"exercises/{notebook.id} has a stale seal for {', '.join(stale)}: "
                "run python -m autograder generate"
            )
    return problems


def answered_cells(exercise: Path, reference: Path, source: bool) -> list[str]:
    """The grade ids of the answer cells of the generated notebook at ``exercise`` that are
    not the stubs ``generate`` makes of ``reference``: what a learner answered there.

    ``reference`` is the course's notebook in ``solutions/`` when ``source``, else one
    ``generate`` wrote. A stub the course has changed since counts as answered too: only
    the stub written now is known.
    """
    stubs = _answer_views(reference, source)
    return [
        grade_id
        for grade_id, view in _answer_views(exercise, source=False).items()
        if grade_id in stubs and view != stubs[grade_id]
    ]


def _answer_views(path: Path, source: bool) -> dict[str, tuple[str, ...]]:
    """Each solution cell's lines as a learner's copy shows them, by grade id."""
    return {
        cell.metadata["nbgrader"]["grade_id"]: _cell_lines(cell, source)
        for cell in nbformat.read(path, as_version=4).cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }


def stale_seals(released: ExerciseNotebook, source: ExerciseNotebook) -> list[str]:
    """The functions of ``released`` whose seal does not open with the reference's answers,
    or that carry a seal where none is made (see :func:`autograder.author.seal.sealable`).

    A seal is the same for the same solution and key, so a current one is equal to
    the seal made now (:func:`autograder.author.seal.reference_seals`).
    """
    sealed = {function.name: function.sealed for function in released.functions}
    seals = reference_seals(source)
    return [
        function.name
        for function in source.functions
        if sealed.get(function.name) != seals.get(function.name, "")
    ]


# What nbgrader puts where it removed a solution region.
_STUB = {"# YOUR CODE HERE", "raise NotImplementedError()"}


def _learner_view(path: Path, source: bool) -> list[tuple[object, ...]]:
    """Each cell of the notebook at ``path`` as a learner's copy shows it."""
    view = []
    for cell in nbformat.read(path, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        course = {k: v for k, v in cell.metadata.get("course", {}).items() if k != "sealed"}
        lines = _cell_lines(cell, source)
        view.append((cell.cell_type, meta.get("grade_id"), meta.get("points"), course, lines))
    return view


def _cell_lines(cell: nbformat.NotebookNode, source: bool) -> tuple[str, ...]:
    """The cell's non-blank lines as a learner's copy shows them, right-stripped.

    For the course's ``source``, solution regions and hidden tests are taken out,
    as nbgrader does; for a generated notebook, the stub nbgrader left in their place.
    """
    meta = cell.metadata.get("nbgrader", {})
    lines = cell.source.splitlines()
    removed: frozenset[int] = frozenset()
    if source and meta.get("solution"):
        removed = region_lines(cell.source, *SOLUTION_MARKERS)
    elif source and meta.get("grade"):
        removed = hidden_lines(cell.source)
    lines = [line for number, line in enumerate(lines, start=1) if number not in removed]
    if not source and meta.get("solution"):
        lines = [line for line in lines if line.strip() not in _STUB]
    return tuple(line.rstrip() for line in lines if line.strip())


def misconception_cases(chapter: str) -> list[dict[str, str]] | None:
    """The ``CASES`` of ``tests/misconceptions/<chapter>.py``; None when there is no such file."""
    path = MISCONCEPTIONS / f"{chapter}.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"misconceptions.{chapter}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(getattr(module, "CASES", []))


def misconception_problems(notebook: ExerciseNotebook) -> list[str]:
    """Whether each graded function has its wrong-but-plausible versions to lose points on."""
    relative = Path("tests", "misconceptions", f"{notebook.id}.py").as_posix()
    cases = misconception_cases(notebook.id)
    if cases is None:
        return [f"{relative} is missing: python -m autograder chapter {notebook.id} writes it"]
    counts = Counter(case.get("function") for case in cases)
    names = {function.name for function in notebook.functions}
    problems = [
        f"{relative} has {counts[function.name]} case(s) for {function.name}; "
        f"write at least {CASES_PER_FUNCTION}"
        for function in notebook.functions
        if counts[function.name] < CASES_PER_FUNCTION
    ]
    problems += [
        f"{relative} has cases for {name}, which {notebook.filename} does not grade"
        for name in sorted(set(counts) - names, key=str)
    ]
    return problems
