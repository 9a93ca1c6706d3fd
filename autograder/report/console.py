"""What the grader prints on a terminal (rich), and as plain text in CI logs."""

from __future__ import annotations

import time
from collections.abc import Mapping

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from autograder.compare.verdicts import mark
from autograder.report.checking import NotebookState
from autograder.report.model import SUMMARY_COLUMNS, Report, StudentResult, not_passed_cell
from autograder.safe_text import clean, points

INDENT = 3
"""How far a function's messages, hints and notes stand in from its line."""
UNREMARKABLE = ("passed", "not-started")
"""The statuses of functions that a summary of several notebooks details no further."""

_STYLE = {
    "passed": "green",
    "failed": "red",
    "error": "yellow",
    "missing": "magenta",
    "timeout": "yellow",
    "memory": "yellow",
    "crashed": "red",
    "corrupt": "red",
    "not-started": "dim",
}


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def print_report(out: Console, report: Report) -> None:
    """A table per learner when there is one; for a class, its chapters (handed in,
    started, mean of those who started), then a summary row per learner. How the
    grader ran is said only where an instructor must act on it (:attr:`Report.caveats`):
    the JSON report has it all."""
    if len(report.students) == 1:
        print_student(out, report.students[0])
    else:
        print_chapters(out, report)
        table = Table(title="Grades")
        for column in SUMMARY_COLUMNS:
            # folded, never cut: a file's name is what the Files column is there to say
            justify = "right" if column in ("Score", "Passed") else "left"
            table.add_column(column, justify=justify, overflow="fold")
        for student in report.students:
            others = not_passed_cell(student, lambda e: f"{e.name} ({e.status})")
            table.add_row(
                escape(student.student),
                f"{points(student.score)} / {points(student.max_score)}",
                f"{student.passed} / {len(student.exercises)}",
                others or "-",
                escape(clean(student.files_summary(), limit=None)) or "-",
            )
        out.print(table)
    out.print(f"Total: {points(report.score)} / {points(report.max_score)} ({report.percent:.1f}%)")
    if report.caveats:
        out.print(f"[yellow]Graded with {escape(report.caveats)}.[/yellow]")


def print_chapters(out: Console, report: Report) -> None:
    """The class's chapters in a table, for a class of two learners or more."""
    # imported here: the class's numbers are not needed by check, which prints with this module
    from autograder.report.class_summary import CHAPTER_COLUMNS, chapter_rows

    rows = chapter_rows(report)
    if not rows:
        return
    table = Table(title="Chapters")
    for column in CHAPTER_COLUMNS:
        table.add_column(column, justify="left" if column == "Chapter" else "right")
    for row in rows:
        table.add_row(*map(escape, row))
    out.print(table)


def print_gradescope_log(out: Console, report: Report) -> None:
    """What Gradescope's instructors read for one submission: the learner's table, then the
    total and the isolation the workers ran in (the limits and the seed are in the JSON
    report; a worker's processes left uncapped gets a note of its own)."""
    print_student(out, report.students[0])
    out.print(
        f"Total: {points(report.score)} / {points(report.max_score)} ({report.percent:.1f}%), "
        f"isolation: {report.isolation}"
    )


def print_student(out: Console, student: StudentResult) -> None:
    """A table of the learner's functions; the chapters not started only named, in one line."""
    score = f"{points(student.score)} / {points(student.max_score)}"
    for said in (student.files_summary(), student.not_started_line()):
        if said:
            out.print(f"[bold]{escape(student.student)}[/bold]: {escape(clean(said, limit=None))}")
    table = Table(title=f"{escape(student.student)}: {score}")
    for column in ("Notebook", "Function", "Score", "Status", "Feedback"):
        # a function name is read whole (to search for it); the other columns give way first
        table.add_column(
            column,
            justify="right" if column == "Score" else "left",
            overflow="fold",
            no_wrap=column == "Function",
        )
    not_started = student.chapters_not_started()
    for exercise in student.exercises:
        if exercise.notebook.removesuffix(".ipynb") in not_started:
            continue
        message = exercise.first_message
        style = _STYLE.get(exercise.status, "")
        table.add_row(
            exercise.notebook,
            exercise.name,
            f"{points(exercise.score)} / {points(exercise.max_score)}",
            f"[{style}]{exercise.status}[/{style}]",
            escape(message),
        )
    if table.row_count:
        out.print(table)
    for note in student.notes:
        # notes are cleaned where they are made; a report read back from a cache or a
        # JSON file may come from elsewhere
        out.print(f"[dim]note[/dim] {escape(clean(note.text, limit=None))}", markup=True)


def print_feedback(
    out: Console,
    student: StudentResult,
    names: Mapping[str, str] | None = None,
    failed_only: bool = False,
) -> None:
    """One paragraph per function, with its message and first hint: what ``check`` shows.

    When ``student`` holds several notebooks, each notebook's functions follow its name:
    the file checked, as ``names`` gives it by the exercise's file name. With
    ``failed_only``, functions that pass or are not started are left out (a table above
    says how each notebook stands), and so are notebooks left with nothing to show;
    without it, several notebooks' chapters not started are named in one line.
    """
    names = names or {}
    shown = [e for e in student.exercises if not failed_only or e.status not in UNREMARKABLE]
    several = len({exercise.notebook for exercise in student.exercises}) > 1
    not_started = student.chapters_not_started() if several and not failed_only else []
    if not_started:
        named = [names.get(f"{chapter}.ipynb", f"{chapter}.ipynb") for chapter in not_started]
        out.print(f"{mark('not-started')} {', '.join(named)}", markup=False)
    notebook = None
    for exercise in shown:
        if exercise.notebook.removesuffix(".ipynb") in not_started:
            continue
        if several and exercise.notebook != notebook:
            notebook = exercise.notebook
            out.print(f"[bold]{escape(names.get(notebook, notebook))}[/bold]")
        score = f"{points(exercise.score)} / {points(exercise.max_score)}"
        out.print(f"{mark(exercise.status)} {exercise.name} ({score})")
        for test in exercise.tests:
            if test.message:
                _print_indented(out, test.message)
        if exercise.hint:
            _print_indented(out, f"Hint: {exercise.hint}")
    for note in student.notes:
        _print_indented(out, f"note: {clean(note.message, limit=None)}")


def _print_indented(out: Console, text: str) -> None:
    """``text`` under the line above it, every line of it indented, those the terminal's
    width wraps included, so that a message reads as one block."""
    for line in Text(text).wrap(out, max(out.width - INDENT, 20)):
        line.rstrip()
        out.print(Text(" " * INDENT) + line)


def print_check_summary(out: Console, states: list[NotebookState]) -> None:
    """One row per checked notebook: how many functions pass, and whether it is solved."""
    table = Table(title="Your notebooks")
    for column in ("Notebook", "Functions passing", "State"):
        table.add_column(column, justify="right" if column == "Functions passing" else "left")
    for state in states:
        style = "green" if state.solved else "red" if state.begun else "dim"
        table.add_row(
            state.notebook,
            f"{state.passing} / {state.functions}",
            f"[{style}]{state.state}[/{style}]",
        )
    out.print(table)


class BatchProgress:
    """Progress of a batch on stderr: a bar with the time left on a terminal, plain lines in logs.

    Use as a context manager; call it with each learner's result as it arrives,
    and :meth:`notebook_done` as each of the ``notebooks`` to grade is done (the
    bar and its estimate count notebooks; the lines name learners).
    """

    def __init__(self, total: int, notebooks: dict[str, int] | None = None) -> None:
        self.total = total
        self._notebooks = notebooks or {}  # per learner
        self.notebooks = sum(self._notebooks.values())
        self.done = 0
        self._graded_notebooks = 0
        self._started = time.monotonic()
        self._out = console(stderr=True)
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> BatchProgress:
        if self._out.is_terminal and not self._out.is_dumb_terminal and self.total > 1:
            self._bar = Progress(
                TextColumn("grading"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=self._out,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("grading", total=self.notebooks or self.total)
        return self

    def notebook_done(self) -> None:
        self._graded_notebooks += 1
        if self._bar is not None and self._task is not None and self.notebooks:
            self._bar.advance(self._task)
        elif self.total > 1 and self.notebooks:
            self._log_every_tenth()

    def _log_every_tenth(self) -> None:
        """In logs, a line at each tenth of the notebooks, with the time left."""
        done, total = self._graded_notebooks, self.notebooks
        if done * 10 // total == (done - 1) * 10 // total:
            return
        elapsed = time.monotonic() - self._started
        left = elapsed * (total - done) / done
        self._out.print(f"graded {done}/{total} notebooks, about {left:.0f} s left", markup=False)

    def __call__(self, student: StudentResult, cached: bool) -> None:
        self.done += 1
        if cached:
            self._graded_notebooks += self._notebooks.get(student.student, 0)
        if self._bar is not None and self._task is not None:
            if not self.notebooks:
                self._bar.advance(self._task)
            elif cached:  # its notebooks were never graded
                self._bar.advance(self._task, self._notebooks.get(student.student, 0))
        elif self.total > 1:
            self._out.print(
                f"[{self.done}/{self.total}] {student.student}: "
                f"{points(student.score)} / {points(student.max_score)}"
                + (" (unchanged, from the cache)" if cached else ""),
                markup=False,
            )

    def __exit__(self, *exc_info: object) -> None:
        if self._bar is not None:
            self._bar.stop()
