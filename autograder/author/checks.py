"""The course's consistency checks: each problem names the file to write or fix.

A chapter ``<id>`` is the files AUTHORING.md lists: ``book/<id>.md``, its entry in
``_toc.yml``, ``solutions/<id>/<id>.ipynb``, the generated
``exercises/<id>/<id>.ipynb`` and ``tests/misconceptions/<id>.py``. The solution
notebooks say which chapters exist; everything else is checked against them.
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

from autograder.load.course import (
    EXERCISES,
    REPO_ROOT,
    SOLUTIONS,
    Course,
    CourseError,
    ExerciseNotebook,
    load_course,
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


def stale_exercises(exercises: Course, solutions: Course) -> list[str]:
    """Where ``exercises`` is not what ``python -m autograder generate`` makes of ``solutions``.

    Compared: the notebooks, their setup cells, and each function's hints, probes,
    and visible tests with their points. (The seals are compared by the tests,
    which run the reference solutions.)
    """
    released = {notebook.id: _learner_view(notebook) for notebook in exercises.notebooks}
    problems = []
    for notebook in solutions.notebooks:
        view = released.pop(notebook.id, None)
        if view is None:
            problems.append(
                f"exercises/{notebook.id}/{notebook.filename} is missing: "
                "run python -m autograder generate"
            )
        elif view != _learner_view(notebook):
            problems.append(
                f"exercises/{notebook.id} is out of date with solutions/{notebook.id}: "
                "run python -m autograder generate"
            )
    problems += [
        f"exercises/{chapter} has no solutions/{chapter}: delete it, or restore the solution"
        for chapter in sorted(released)
    ]
    return problems


def _learner_view(notebook: ExerciseNotebook) -> tuple[object, ...]:
    functions = tuple(
        (
            function.name,
            function.hints,
            function.probes,
            tuple((t.grade_id, t.points, t.visible_source.strip()) for t in function.tests),
        )
        for function in notebook.functions
    )
    return notebook.setup_source, functions


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
