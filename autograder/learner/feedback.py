"""Feedback inside an exercise notebook: ``check("fn")``, ``hint("fn")``, ``solution("fn")``.

``check`` runs the function's visible tests right in the learner's kernel (their
own code, on their own machine: nothing to protect), prints what failed with the
first hint, and records the result for ``python -m autograder status``.
``hint`` shows the opened hints with one more each time, and leaves in the
notebook's saved outputs a record of how many were opened (:data:`HINT_RECORD`), which
the instructor's reports count. ``solution`` shows the reference solution, but
only to a function that passes its visible tests, mechanism checks included, and
gives the reference's answers on the probes, which make the seal's key (see
:mod:`autograder.learner.sealing`). While the grader runs a notebook all three are silent,
so they never change a grade.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

from autograder.compare.verdicts import MARKS, run_test_cell
from autograder.learner import progress, sealing
from autograder.learner.probes import label, probe_results
from autograder.load.course import GradedFunction, learner_course_folder, load_course
from autograder.load.learner_notebook import HINT_RECORD


def _grading() -> bool:
    return os.environ.get("PYTREES_GRADING") == "1"


def _function(name: str) -> GradedFunction | None:
    course = load_course(learner_course_folder())
    try:
        return course.function(name)
    except KeyError:
        names = ", ".join(f.name for f in course.functions)
        print(f"There is no exercise called {name!r}. The exercises are: {names}.")
        return None


def _learner_namespace() -> dict[str, Any]:
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None:
        return shell.user_ns
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return frame.f_globals if frame is not None else {}


def _defined(namespace: dict[str, Any], name: str) -> bool:
    """Whether the learner has run the cell that defines ``name``; says so when not."""
    if callable(namespace.get(name)):
        return True
    print(f"{MARKS['missing']} {name} is not defined yet: run the cell that defines it first.")
    return False


def _notebook_file(function: GradedFunction) -> str:
    """The notebook this kernel runs, as Jupyter names it; else the exercise's file name."""
    session = os.environ.get("JPY_SESSION_NAME")
    return str(Path(session).resolve()) if session else f"{function.notebook}.ipynb"


def check(name: str) -> None:
    """Run the visible tests of ``name`` against the learner's current definition."""
    if _grading():
        return
    function = _function(name)
    if function is None:
        return
    namespace = dict(_learner_namespace())
    if not _defined(namespace, name):
        progress.record({name: False}, _notebook_file(function))
        return
    failures = [
        verdict.message
        for test in function.tests
        if not (
            verdict := run_test_cell(test, dict(namespace), f"{function.notebook}.ipynb")
        ).passed
    ]
    progress.record({name: not failures}, _notebook_file(function))
    if not failures:
        print(
            f"{MARKS['passed']} {name} passes its visible tests. "
            "Grading adds hidden tests on other inputs."
        )
        return
    print(f"{MARKS['failed']} {name}: {failures[0]}")
    if function.hints:
        count = len(function.hints)
        print(f'   Stuck? Run hint("{name}"): each run shows one more of its {count} hints.')


def hint(name: str) -> None:
    """Show the hints of ``name`` opened so far, and one more."""
    if _grading():
        return
    function = _function(name)
    if function is None:
        return
    if not function.hints:
        print(f"{name} has no hints.")
        return
    shown = progress.open_hint(name, len(function.hints))
    lines = [
        f"💡 Hint {number}/{len(function.hints)}: {text}"
        for number, text in enumerate(function.hints[:shown], start=1)
    ]
    if shown == len(function.hints):
        lines.append(
            "That was the last hint. The sections named in the test messages help too; "
            f'once {name} passes, solution("{name}") shows the reference solution.'
        )
    _show("\n".join(lines), {"function": name, "opened": shown})


def _show(text: str, record: dict[str, Any]) -> None:
    """Print ``text``; in a notebook, also keep ``record`` in the cell's saved output."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None  # noqa: N806 - stands for the imported function
    if get_ipython is None or get_ipython() is None:
        print(text)
        return
    display({"text/plain": text, HINT_RECORD: record}, raw=True)


def _first_visible_failure(function: GradedFunction, namespace: dict[str, Any]) -> str | None:
    """The message of the first visible test of ``function`` that fails, as ``check`` runs them.

    None when they all pass: the values and the mechanism checks alike.
    """
    for test in function.tests:
        verdict = run_test_cell(test, dict(namespace), f"{function.notebook}.ipynb")
        if not verdict.passed:
            return verdict.message
    return None


def solution(name: str) -> None:
    """Show the reference solution of ``name``, once the learner's own version is right.

    Right means: its visible tests pass, run as ``check`` runs them, and its answers
    on the probes open the seal. A failing visible test is named, and nothing opens.
    """
    if _grading():
        return
    function = _function(name)
    if function is None:
        return
    if not function.sealed:
        print(f"{name} has no reference solution to reveal.")
        return
    namespace = dict(_learner_namespace())
    if not _defined(namespace, name):
        return
    locked = f"🔒 The reference solution of {name} opens once your {name} is right."
    failure = _first_visible_failure(function, namespace)
    if failure is not None:
        print(f'{locked} check("{name}") does not pass yet: {failure}')
        return
    try:
        key = sealing.fingerprint(label(function), probe_results(function, namespace))
        text = sealing.unseal(function.sealed, key)
    except sealing.SealError:
        print(f'{locked} On some inputs it still answers differently: check("{name}") first.')
        return
    except Exception as exc:  # noqa: BLE001 - the learner's function may raise anything
        print(f"{locked} It raised {type(exc).__name__} on one of the inputs tried.")
        return
    print(f"📖 The reference solution of {name}:\n\n{text}")
