"""Feedback inside an exercise notebook: ``check("fn")``, ``hint("fn")``, ``solution("fn")``.

``check`` runs the function's visible tests right in the learner's kernel (their
own code, on their own machine: nothing to protect), prints what failed with the
first hint, and records the result, with the notebook file it came from (see
:mod:`autograder.learner.notebook_file`), for ``python -m autograder status``.
``check()`` with no name does so for every function of the notebook, a line each.
``hint`` shows the opened hints with one more each time, and leaves in the
notebook's saved outputs a record of how many were opened (:data:`HINT_RECORD`), which
the instructor's reports count. ``solution`` shows the reference solution, but
only to a function that passes its visible tests, mechanism checks included, and
gives the reference's answers on the probes, which make the seal's key (see
:mod:`autograder.learner.sealing`). While the grader or nbgrader's autograde runs a
notebook all three are silent, so they never change a grade, never cost grading time
and never record a learner's progress on the grading machine.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

# read_notebook imports it when first called; imported here, with the setup cell, so
# that the notebook's first check() does not wait a third of a second for it
import nbformat  # noqa: F401

from autograder.compare.returned import Calls, short_repr
from autograder.compare.verdicts import mark, run_test_cell
from autograder.learner import progress, sealing
from autograder.learner.grading import under_a_grader
from autograder.learner.kernel_jax import refuse_if_stale
from autograder.learner.notebook_file import kernel_history, notebook_file
from autograder.learner.probes import label, probe_results
from autograder.learner.watchers import WATCHERS
from autograder.load.book import released_book_links
from autograder.load.course import (
    Course,
    ExerciseNotebook,
    GradedFunction,
    learner_course_folder,
    load_course,
)
from autograder.load.learner_notebook import (
    HINT_RECORD,
    NotebookUnreadable,
    chapter_of,
    read_notebook,
)
from autograder.load.names import no_such, sentence

_NO_SUCH_EXERCISE = "the exercises are the functions the notebook's check cells name"


def _function(name: str) -> GradedFunction | None:
    course = load_course(learner_course_folder())
    try:
        return course.function(name)
    except KeyError:
        names = [f.name for f in course.functions]
        print(sentence(no_such("exercise", name, names, _NO_SUCH_EXERCISE)))
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


_NOT_DEFINED = "is not defined yet: run the cell that defines it first."


def _defined(namespace: dict[str, Any], name: str) -> bool:
    """Whether the learner has run the cell that defines ``name``; says so when not."""
    if callable(namespace.get(name)):
        return True
    print(f"{mark('missing')} {name} {_NOT_DEFINED}")
    return False


def _notebook_file(namespace: dict[str, Any]) -> str:
    """The notebook file this kernel runs, or a name of its own where none can be told."""
    return notebook_file(namespace, kernel_history(), Path.cwd())


def _first_failure(function: GradedFunction, namespace: dict[str, Any]) -> str | None:
    """The message of the first visible test of ``function`` that fails, as ``check`` runs
    them; None when they all pass, the values and the mechanism checks alike."""
    for test in function.tests:
        calls = Calls(test.filename)
        verdict = run_test_cell(
            test, _recording(namespace, function.name, calls), f"{function.notebook}.ipynb",
            calls=calls,
        )  # fmt: skip
        if not verdict.passed:
            return verdict.message
    return None


def _recording(namespace: dict[str, Any], name: str, calls: Calls) -> dict[str, Any]:
    """A copy of ``namespace`` where the test's own calls of ``name`` are told to ``calls``.

    The watchers are handed the learner's function itself, as grading hands them the
    learner's name: they look at how it is jitted and what it calls.
    """
    learners = namespace[name]

    @functools.wraps(learners)
    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.started(name)
        value = learners(*args, **kwargs)
        calls.returned(lambda: short_repr(value))
        return value

    def unwrapped(watcher: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(watcher)
        def watching(*args: Any, **kwargs: Any) -> Any:
            given = [learners if arg is recorded else arg for arg in args]
            return watcher(*given, **kwargs)

        return watching

    copy = dict(namespace)
    for key, value in namespace.items():
        if any(value is watcher for watcher in WATCHERS.values()):
            copy[key] = unwrapped(value)
    copy[name] = recorded
    return copy


def check(name: str | None = None) -> None:
    """Run the visible tests of ``name`` against the learner's current definition.

    Without a name, run those of every function of the kernel's notebook, a line each.
    Where the kernel runs another JAX than the installed one, says to restart instead.
    """
    if under_a_grader() or refuse_if_stale():
        return
    namespace = dict(_learner_namespace())
    if name is None:
        _check_notebook(namespace)
        return
    function = _function(name)
    if function is None:
        return
    if not _defined(namespace, name):
        progress.record({name: False}, _notebook_file(namespace))
        return
    failure = _first_failure(function, namespace)
    progress.record({name: failure is None}, _notebook_file(namespace))
    if failure is None:
        print(
            f"{mark('passed')} {name} passes its visible tests. "
            "Grading adds hidden tests on other inputs."
        )
        return
    links = released_book_links()
    print(f"{mark('failed')} {name}: {links.annotate(failure) if links else failure}")
    if function.hints:
        count = len(function.hints)
        print(f'   Stuck? Run hint("{name}"): each run shows one more of its {count} hints.')


def _check_notebook(namespace: dict[str, Any]) -> None:
    """``check()``: every function of the kernel's notebook, one line each, and a total."""
    course = load_course(learner_course_folder())
    source = _notebook_file(namespace)
    notebook = _kernel_notebook(course, namespace, Path(source))
    if notebook is None:
        print(
            "check() cannot tell which exercise this notebook is: run its first cell, "
            'or name a function, as in check("function_name").'
        )
        return
    results = {}
    for function in notebook.functions:
        if not callable(namespace.get(function.name)):
            results[function.name] = False
            print(f"{mark('missing')} {function.name} {_NOT_DEFINED}")
            continue
        failure = _first_failure(function, namespace)
        results[function.name] = failure is None
        if failure is None:
            print(f"{mark('passed')} {function.name}")
        else:
            print(f"{mark('failed')} {function.name}: {_first_line(failure)}")
    progress.record(results, source)
    passing = sum(results.values())
    total = f"{passing} of {len(results)} functions of {notebook.id} pass their visible tests"
    if passing == len(results):
        print(f"{total}. Grading adds hidden tests on other inputs.")
    else:
        print(f'{total}. check("NAME") says more about one of them, and offers its hints.')


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    return lines[0] if lines else ""


def _kernel_notebook(
    course: Course, namespace: dict[str, Any], file: Path
) -> ExerciseNotebook | None:
    """The exercise the kernel works on: its notebook file's chapter where the file is
    known, else the one whose functions the namespace defines most of (then whose setup
    cell ran); None when nothing points at any."""
    if file.is_file():
        try:
            chapter = chapter_of(read_notebook(file), course)
        except NotebookUnreadable:
            chapter = None
        if chapter is not None:
            return course.notebook(chapter)
    ran = {source.strip() for source in kernel_history()}

    def evidence(notebook: ExerciseNotebook) -> tuple[int, bool]:
        defined = sum(callable(namespace.get(f.name)) for f in notebook.functions)
        return defined, notebook.setup_source.strip() in ran

    best = max(course.notebooks, key=evidence)
    return best if any(evidence(best)) else None


def hint(name: str) -> None:
    """Show the hints of ``name`` opened so far, and one more."""
    if under_a_grader():
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
        then = f'; once {name} passes, solution("{name}") shows the reference solution'
        lines.append(
            "That was the last hint. The sections named in the test messages help too"
            + (then if function.sealed else "")
            + "."
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


SEALS_SECTION = "the course's book, Grading untrusted notebooks → The sealed solutions"


def unsealed_reason(function: GradedFunction) -> str:
    """What ``solution()`` says of a function whose reference solution is not shipped."""
    if function.withheld:
        return (
            f"The reference solution of {function.name} is not shipped: this course's "
            "release holds no reference solutions."
        )
    if function.answered_by:
        return (
            f"The reference solution of {function.name} is not shipped: {function.answered_by} "
            "computes its answers, and a sealed solution opens for anyone who has the answers "
            f"(see {SEALS_SECTION})."
        )
    return f"{function.name} has no reference solution to reveal."


def solution(name: str) -> None:
    """Show the reference solution of ``name``, once the learner's own version is right.

    Right means: its visible tests pass, run as ``check`` runs them, and its answers
    on the probes open the seal. A failing visible test is named, and nothing opens.
    Where the kernel runs another JAX than the installed one, says to restart instead.
    """
    if under_a_grader() or refuse_if_stale():
        return
    function = _function(name)
    if function is None:
        return
    if not function.sealed:
        print(unsealed_reason(function))
        return
    namespace = dict(_learner_namespace())
    if not _defined(namespace, name):
        return
    locked = f"🔒 The reference solution of {name} opens once your {name} is right."
    failure = _first_failure(function, namespace)
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
