"""What ``check`` concludes about each of a learner's notebooks: solved, or not yet solved.

A notebook is solved when every one of its graded functions passes its visible
tests. Grading adds hidden tests, so "solved" here is the learner's milestone,
not a grade.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from autograder.compare.verdicts import MARKS, mark
from autograder.load.book import BookLinks
from autograder.report.model import ExerciseResult, StudentResult
from autograder.report.text import markdown_cell

SOLVED = "solved"
NOT_YET_SOLVED = "not yet solved"
NOT_STARTED = "not started"


@dataclass(frozen=True)
class NotebookState:
    """One checked notebook: how many of its functions pass their visible tests, and how
    many are started (their cell no longer the exercise's stub)."""

    notebook: str
    passing: int
    functions: int
    started: int | None = None
    """None: counted as all started."""

    @property
    def solved(self) -> bool:
        return self.passing == self.functions

    @property
    def begun(self) -> bool:
        return self.started != 0

    @property
    def failing(self) -> int:
        """The functions started that do not pass their visible tests."""
        return (self.functions if self.started is None else self.started) - self.passing

    @property
    def state(self) -> str:
        if self.solved:
            return SOLVED
        return NOT_YET_SOLVED if self.begun else NOT_STARTED


def notebook_states(
    result: StudentResult, names: Mapping[str, str] | None = None
) -> list[NotebookState]:
    """Each notebook of ``result``, in the order it was checked, with its functions counted,
    named as ``names`` says (the file checked, by the exercise's file name) or as the
    exercise's file is."""
    names = names or {}
    functions: dict[str, int] = {}
    passing: dict[str, int] = {}
    started: dict[str, int] = {}
    for exercise in result.exercises:
        name = exercise.notebook
        functions[name] = functions.get(name, 0) + 1
        passing[name] = passing.get(name, 0) + (exercise.status == "passed")
        started[name] = started.get(name, 0) + exercise.started
    return [
        NotebookState(names.get(name, name), passing[name], total, started[name])
        for name, total in functions.items()
    ]


def conclusion(states: list[NotebookState]) -> str:
    """The last line ``check`` prints: whether everything passes, and what to do next."""
    waiting = [state.notebook for state in states if not state.solved and state.begun]
    idle = [state.notebook for state in states if not state.begun]
    if idle and not waiting:
        return (
            f"{NOT_STARTED.capitalize()}: {', '.join(idle)}. Answer one of the functions "
            f"in {idle[0]}, then check it again."
        )
    later = f" {NOT_STARTED.capitalize()}: {', '.join(idle)}." if idle else ""
    if not waiting:
        where = f" in {states[0].notebook}" if len(states) == 1 else ""
        where = f", in all {len(states)} notebooks" if len(states) > 1 else where
        return f"All visible tests pass{where}. The graded run adds hidden tests on other inputs."
    if any(state.failing for state in states):
        advice = (
            "read the feedback and hints above, then check again; "
            "python -m autograder hint FUNCTION shows one more hint"
        )
    else:  # nothing above to read: what is left is not started
        advice = "every function you started passes: write the next one, then check again"
    if len(states) == 1:
        return f"{waiting[0]} is {NOT_YET_SOLVED}: {advice}.{later}"
    return (
        f"{len(waiting)} of {len(states)} notebooks are {NOT_YET_SOLVED}: "
        f"{', '.join(waiting)}. {advice[0].upper()}{advice[1:]}.{later}"
    )


def to_markdown(
    result: StudentResult,
    names: Mapping[str, str] | None = None,
    links: BookLinks | None = None,
) -> str:
    """The check's result as Markdown tables, for GitHub's job summary (``names`` as
    :func:`notebook_states` takes them); with ``links``, each section to reread is a link."""
    states = notebook_states(result, names)
    lines = [
        "## Visible tests",
        "",
        f"**{sum(s.solved for s in states)} of {len(states)}** notebook(s) solved; "
        f"{sum(s.passing for s in states)} of {sum(s.functions for s in states)} functions "
        "pass their visible tests. Grading adds hidden tests on other inputs.",
        "",
        "| Notebook | Functions passing | State |",
        "| --- | ---: | --- |",
    ]
    for state in states:
        mark = MARKS["passed" if state.solved else "failed" if state.begun else "not-started"]
        lines.append(
            f"| {markdown_cell(state.notebook)} | {state.passing} / {state.functions} "
            f"| {mark} {state.state} |"
        )
    waiting = [e for e in result.exercises if e.status != "passed" and e.started]
    if waiting:
        lines += ["", "| Notebook | Function | Status | Feedback |", "| --- | --- | --- | --- |"]
        lines += [_function_row(exercise, names or {}, links) for exercise in waiting]
    return "\n".join(lines) + "\n"


def _function_row(
    exercise: ExerciseResult, names: Mapping[str, str], links: BookLinks | None
) -> str:
    message = exercise.first_message
    # A traceback's first line says what went wrong; the rest does not fit a table cell.
    first_line = message.strip().splitlines()[0] if message.strip() else ""
    status = mark(exercise.status)
    notebook = markdown_cell(names.get(exercise.notebook, exercise.notebook))
    written = markdown_cell(first_line)
    if links:
        written = links.markdown(written, markdown_cell)
    return f"| {notebook} | `{exercise.name}` | {status} | {written} |"
