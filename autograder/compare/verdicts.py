"""Running one test cell and turning what happened into a message a learner can act on."""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
import traceback
from dataclasses import dataclass, replace
from typing import Any

from autograder.compare.explain import Pointer, explain
from autograder.compare.failures import CallTimeout, FunctionMissing, LearnerError, WorkerCrashed
from autograder.compare.returned import Calls
from autograder.load.book import REREAD
from autograder.load.course import TestCell

OUTCOMES = (
    "passed",
    "failed",
    "error",
    "timeout",
    "memory",
    "crashed",
    "corrupt",
    "not-started",
    "missing",
)
"""How a test cell can end, from best to worst: ``error``, the learner's code raised;
``memory``, it ran out of memory; ``crashed``, its worker process died (a signal or
an exit code); ``corrupt``, the notebook file is damaged, so nothing in it could run;
``not-started``, the function's cell still holds the released stub, so its tests were
not run; ``missing``, the function or the notebook is not there. A function's status
is the worst outcome of its tests."""

MARKS = {
    "passed": "✅",
    "failed": "❌",
    "error": "⚠️",
    "missing": "❔",
    "timeout": "⏱️",
    "memory": "💾",
    "crashed": "💥",
    "corrupt": "🩹",
    "not-started": "⏸️",
}
"""The mark each outcome is shown with, in every report and in ``check``."""

WORDS = {
    "passed": "PASS",
    "failed": "FAIL",
    "error": "ERROR",
    "missing": "MISSING",
    "timeout": "TIMEOUT",
    "memory": "OUT OF MEMORY",
    "crashed": "CRASHED",
    "not-started": "NOT STARTED",
}
"""The word each outcome is shown with beside its mark where a learner reads it: a
browser or terminal without an emoji font shows the marks as empty boxes."""


def mark(outcome: str) -> str:
    """``outcome``'s mark and word, e.g. ``"✅ PASS"``; an unknown outcome is shown as itself."""
    if outcome not in WORDS:
        return outcome
    return f"{MARKS[outcome]} {WORDS[outcome]}"


# What the course says when a watcher finds the notebook lacking, by the type of the
# WatcherError (autograder.learner.watchers). Its message comes from the learner's
# worker and is never shown: {helper} is a name the learner can already read in the
# test (see _public_name), else the words after "or".
_WATCHER_TEMPLATES = {
    "HelperMissing": (
        "{function}: {helper} is not defined: keep the helper the exercise gives, by its name.",
        "a helper the exercise gives",
    ),
    "HelperNotJitted": (
        "{function}: {helper} is not a jitted function: keep its @jax.jit decorator.",
        "the jitted helper the test watches",
    ),
    "HelperStatic": (
        "{function}: {helper} keeps some arguments static: keep its plain @jax.jit.",
        "the jitted helper the test watches",
    ),
    "NotANotebookFunction": ("{function} is not a function defined in the notebook.", ""),
    "WatchUntrusted": (
        "{function}: the notebook's code changed how Python runs it (a profile hook, ctypes, "
        "or threads left running), so the calls it makes could not be checked: leave them out "
        "of the exercise.",
        "",
    ),
    "WatcherError": (
        "{function}: the notebook lacks something the test watches for: keep the "
        "helpers the exercise gives, by their names and decorators.",
        "",
    ),
}

KINDS = {
    "failed-check": "a test's check failed (its assertion)",
    "not-written": "the function still raises NotImplementedError",
    "unsendable": "the function returned a value that cannot leave its worker",
    "error": "the learner's code raised",
    "test-stopped": "the test could not check the returned value",
    "watcher": "the notebook lacks a helper the test watches",
    "timeout": "a call did not return in time",
    "memory": "the worker ran out of memory",
    "crashed": "the worker process died",
    "missing": "the function or the notebook is not there",
    "corrupt": "the notebook file is damaged",
    "not-graded": "the grader could not run the test (an unreadable notebook, say)",
    "not-started": "the function's cell still holds the released stub: its tests did not run",
}
"""The kinds of failure a report records for each test, beside its outcome: stable ids
that a class's results can be counted by."""

# Exceptions that mean "not an answer yet" or "an answer that cannot be read",
# rather than the learner's code going wrong while it ran.
_FAILED_TYPES = {"NotImplementedError", "UnsendableResult"}


@dataclass(frozen=True)
class Verdict:
    """How one test cell ended: ``outcome`` is one of :data:`OUTCOMES`.

    ``hidden`` is true when the verdict tells something about the cell's hidden
    tests: they all passed, or the cell stopped inside them. A cell that stopped
    before reaching them, or never ran, says nothing the visible tests do not.
    """

    outcome: str
    message: str = ""
    hidden: bool = False
    kind: str = ""
    """What happened, one of :data:`KINDS` (empty for a pass)."""
    reread: str = ""
    """The course's own words after ``Reread`` that the message sends the learner
    to (``<Chapter> → <Section>…``, maybe followed by more), or empty."""
    idea: str = ""
    """The id of :mod:`~autograder.compare.explain`'s pointer for an error it explains."""

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @classmethod
    def not_started(cls) -> Verdict:
        """The verdict of every test of a function whose cell still holds the released
        stub: no message, no section to reread, whatever the stub would do when run."""
        return cls("not-started", kind="not-started")

    @property
    def visible_passed(self) -> bool:
        """Whether the cell's visible tests all passed, which is what ``check`` reports:
        the cell passed, or it stopped inside its hidden tests, which run after them."""
        return self.passed or self.hidden


def run_test_cell(
    test: TestCell,
    namespace: dict[str, Any],
    notebook: str,
    after_hidden: bool = False,
    calls: Calls | None = None,
    part: str | None = None,
) -> Verdict:
    """Run ``test`` in ``namespace`` and judge it by its assertions alone.

    A failure inside a hidden region is described only by the assertion's
    authored message: never by the test's code, its inputs or expected values.
    ``after_hidden`` says that the learner's worker has already been given hidden
    inputs (an earlier cell's hidden tests ran in it): its code could have kept
    them, so then a visible test's failure, too, shows no text of the worker's.
    ``calls``, told of the cell's calls of the learner's functions, gives what the
    function returned in a visible statement that failed, which its message then shows.
    ``part``, one of :func:`cell_parts`, runs only that part of the cell.
    """
    source = test.source if part is None else part
    code = compile(source, test.filename, "exec", dont_inherit=True)
    try:
        exec(code, namespace)
    except AssertionError as exc:
        message = _assertion_message(exc, test)
        reread = _authored_reread(exc, test, message)
        hidden = _in_hidden(exc, test)
        if not hidden and not after_hidden and calls is not None:
            message = _with_returned(message, _returned(exc, test, calls))
        return Verdict("failed", message, hidden, "failed-check", reread)
    except CallTimeout as exc:
        return Verdict(
            "timeout",
            f"{test.function} did not return within its time limit"
            + (f" ({exc.why})" if exc.why else "")
            + ": look for a loop that never ends.",
            _in_hidden(exc, test),
            "timeout",
        )
    except WorkerCrashed as exc:
        hidden = _in_hidden(exc, test)
        # An exit code is the learner's to choose (os._exit(n)): with hidden inputs in
        # the worker's hands, it could carry one out, so then only the fact is told.
        said = "the worker ended" if hidden or after_hidden else str(exc)
        return Verdict("crashed", f"{said} while {test.function} was running.", hidden, "crashed")
    except FunctionMissing as exc:
        hidden = _in_hidden(exc, test)
        message = _missing_message(exc, test, notebook, hidden or after_hidden)
        return Verdict("missing", message, hidden, "missing")
    except LearnerError as exc:
        hidden = _in_hidden(exc, test)
        pointer = _pointer(exc.type, exc.message, notebook)
        if hidden:
            message = _learner_error_message(exc, test, True, pointer)
        elif after_hidden:
            message = _learner_error_message(exc, test, True, pointer, visible=True)
            message += _called_in(exc, test)
        else:
            message = _learner_error_message(exc, test, False, pointer) + _called_in(exc, test)
        return _pointed(
            Verdict(_learner_error_outcome(exc), message, hidden, _learner_error_kind(exc)),
            pointer,
        )
    except Exception as exc:  # noqa: BLE001 - the learner's own code, when run in-process
        pointer = _pointer(type(exc).__name__, str(exc), notebook)
        message = _local_error_message(exc, test, pointer)
        kind = "not-written" if isinstance(exc, NotImplementedError) else "test-stopped"
        return _pointed(Verdict("failed", message, _in_hidden(exc, test), kind), pointer)
    return Verdict("passed", hidden=bool(test.hidden_lines))


def cell_parts(test: TestCell) -> tuple[str, str]:
    """``test``'s source cut in two, to run one after the other in one namespace: its
    visible prefix, the top-level statements before its first hidden line, and the rest.

    A top-level statement that holds a hidden line goes whole into the rest; a cell
    without hidden lines is all prefix. Each part keeps the cell's line numbers (the
    other part's lines are left blank), so that a traceback, a hidden line and a
    recorded call name the same lines as in the whole cell.
    """
    lines = test.source.splitlines(keepends=True)
    tree = _parsed(test)
    if tree is None:  # run whole, to fail as a cell that cannot be parsed fails
        return "", test.source
    if not test.hidden_lines:
        return test.source, ""
    first = min(test.hidden_lines)
    holding = [
        _first_line(statement)
        for statement in tree.body
        if _first_line(statement) <= first <= (statement.end_lineno or statement.lineno)
    ]
    cut = min([first, *holding]) - 1  # the lines before the rest
    return "".join(lines[:cut]), "\n" * cut + "".join(lines[cut:])


def _first_line(statement: ast.stmt) -> int:
    """The first line of ``statement``, its decorators included."""
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def _chapter(notebook: str) -> str:
    """The chapter id of a notebook's file name (``control_flow.ipynb``)."""
    return notebook.removesuffix(".ipynb")


def _pointer(error_type: str, message: str, notebook: str) -> Pointer | None:
    """The course's pointer for an error, unless the error is one the course words
    otherwise (not written yet, out of memory, a watcher's complaint)."""
    if error_type in ("NotImplementedError", "MemoryError") or error_type in _WATCHER_TEMPLATES:
        return None
    return explain(error_type, message, _chapter(notebook))


def _pointed(verdict: Verdict, pointer: Pointer | None) -> Verdict:
    """``verdict`` with the section and idea ``pointer`` names, if any."""
    if pointer is None:
        return verdict
    return replace(verdict, reread=pointer.section, idea=pointer.id)


def _authored_reread(exc: AssertionError, test: TestCell, message: str) -> str:
    """The words after ``Reread`` in the course's own text that a failed assertion shows.

    Read from the test's source, never from the message alone: a message may quote
    what the learner's code returned. First the string literals of the statement that
    failed; else the first ``Reread`` of the message whose words a literal of the
    cell also holds.
    """
    tree = _parsed(test)
    if tree is None:
        return ""
    statement = _statement_at(tree, _failing_line(exc, test))
    for text in _literals(statement) if statement else []:
        if REREAD in text:
            return text.split(REREAD, 1)[1]
    cell_text = "\0".join(_literals(tree))
    for said in message.split(REREAD)[1:]:
        words = said.split(". ", 1)[0]
        if words and f"{REREAD}{words}" in cell_text:
            return said
    return ""


def _parsed(test: TestCell) -> ast.Module | None:
    try:
        return ast.parse(test.source)
    except SyntaxError:
        return None


def _statement_at(tree: ast.Module, line: int | None) -> ast.stmt | None:
    """The simple statement of ``tree`` that spans ``line`` (not the loop around it)."""
    if line is None:
        return None
    return next(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.stmt)
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            and not hasattr(node, "body")
        ),
        None,
    )


def _failing_statement(exc: BaseException, test: TestCell) -> tuple[int, int, str] | None:
    """The first and last line of the statement of the cell that raised ``exc``, and its
    source, whole however many lines it spans (but for any hidden line)."""
    line = _failing_line(exc, test)
    if line is None:
        return None
    tree = _parsed(test)
    statement = _statement_at(tree, line) if tree else None
    first, last = (
        (statement.lineno, statement.end_lineno or statement.lineno) if statement else (line, line)
    )
    lines = [
        text
        for number, text in enumerate(test.source.splitlines()[first - 1 : last], start=first)
        if number not in test.hidden_lines
    ]
    source = textwrap.dedent("\n".join(lines)).strip()
    return (first, last, source) if source else None


def _returned(exc: AssertionError, test: TestCell, calls: Calls) -> str | None:
    """What the tested function returned in the statement that failed, if it was called
    there, or in the statement that last bound a name the failing one reads
    (``out = f(x)``, then ``assert out == ...``), if that is where it was called last."""
    statement = _failing_statement(exc, test)
    if statement is None:
        return None
    first, last, _ = statement
    spans = [(first, last), *_bindings_read(test, first, last)]
    return next(
        (text for start, end in spans if (text := calls.shown(test.function, start, end))), None
    )


def _bindings_read(test: TestCell, first: int, last: int) -> list[tuple[int, int]]:
    """The lines of each top-level assignment that last bound, before line ``first``, a name
    that lines ``first`` to ``last`` read; only assignments before the cell's first hidden
    line, so that a value a hidden input gave is never one of them."""
    tree = _parsed(test)
    if tree is None:
        return []
    read = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and first <= node.lineno <= last
    }
    hidden_from = min(test.hidden_lines, default=first)
    bound: dict[str, tuple[int, int]] = {}
    for node in tree.body:
        end = node.end_lineno or node.lineno
        if end >= min(first, hidden_from):
            break
        for target in node.targets if isinstance(node, ast.Assign) else []:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    bound[name.id] = (node.lineno, end)
    return [bound[name] for name in read if name in bound]


def _with_returned(message: str, returned: str | None) -> str:
    """``message`` with what the function returned after its first line, as data only."""
    if not returned:
        return message
    first, newline, rest = message.partition("\n")
    said = " It returned" if first.rstrip().endswith(".") else "; it returned"
    return f"{first}{said} {returned}{newline}{rest}"


def _literals(node: ast.AST) -> list[str]:
    """The string literals in ``node``; an f-string's literal parts joined by a NUL."""
    found = []
    for child in ast.walk(node):
        if isinstance(child, ast.JoinedStr):
            found.append(
                "\0".join(
                    part.value
                    for part in child.values
                    if isinstance(part, ast.Constant) and isinstance(part.value, str)
                )
            )
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            found.append(child.value)
    return found


def _cell_frames(exc: BaseException, test: TestCell) -> list[traceback.FrameSummary]:
    """The frames of ``exc``'s traceback in the test cell's code, outermost first."""
    return [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == test.filename]


def _failing_line(exc: BaseException, test: TestCell) -> int | None:
    frames = _cell_frames(exc, test)
    return frames[-1].lineno if frames else None


def _in_hidden(exc: BaseException, test: TestCell) -> bool:
    """Whether the cell's hidden tests were running: the statement of the cell itself
    (the outermost frame of the cell) that raised is hidden, whatever helper it called,
    as one defined among the visible tests."""
    frames = _cell_frames(exc, test)
    return bool(frames) and frames[0].lineno in test.hidden_lines


def _called_in(exc: BaseException, test: TestCell) -> str:
    """The visible test's statement that made the failing call: the input it was given."""
    statement = _failing_statement(exc, test)
    return f"\nCalled in the test: {statement[2]}" if statement else ""


def _assertion_message(exc: AssertionError, test: TestCell) -> str:
    authored = str(exc).strip()
    if authored:
        return authored
    if _in_hidden(exc, test):
        return f"A hidden test of {test.function} failed."
    statement = _failing_statement(exc, test)
    return f"This check failed: {statement[2] if statement else ''}"


def _missing_message(exc: FunctionMissing, test: TestCell, notebook: str, hidden: bool) -> str:
    """What is missing; the names the notebook defines only for a visible test.

    Both the missing name and the list come from the learner's worker: for a hidden
    test the name is shown only when the learner can read it in the test already.
    """
    function = _public_name(exc.function, test, exc.function if not hidden else test.function)
    missing = function or f"A function the tests of {test.function} call"
    found = ""
    if not hidden:
        others = [n for n in exc.names if n.isidentifier() and n not in {"check", "hint"}]
        found = f" It defines: {', '.join(others)}." if others else ""
    return (
        f"{missing} is not defined in {notebook}: was it renamed, deleted, or is its "
        f"cell failing?{found}"
    )


def _public_names(test: TestCell) -> frozenset[str]:
    """The names a learner can read in ``test`` (its visible lines), and its function's."""
    names = {test.function}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(test.visible_source).readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    for token in tokens:
        if token.type == tokenize.NAME:
            names.add(token.string)
        elif token.type == tokenize.STRING:
            names.update(re.findall(r"[A-Za-z_]\w*", token.string))
    return frozenset(names)


def _public_name(name: str, test: TestCell, known: str = "") -> str | None:
    """``name`` when the learner can already read it in the test (or it is ``known``)."""
    return name if name == known or name in _public_names(test) else None


def _learner_error_kind(exc: LearnerError) -> str:
    if exc.type == "NotImplementedError":
        return "not-written"
    if exc.type == "MemoryError":
        return "memory"
    if exc.type == "UnsendableResult":
        return "unsendable"
    return "watcher" if exc.type in _WATCHER_TEMPLATES else "error"


def _learner_error_outcome(exc: LearnerError) -> str:
    if exc.type == "MemoryError":
        return "memory"
    return "failed" if exc.type in _FAILED_TYPES else "error"


def _learner_error_message(
    exc: LearnerError,
    test: TestCell,
    hidden: bool,
    pointer: Pointer | None,
    visible: bool = False,
) -> str:
    """What the learner reads of an error their code raised.

    ``hidden``: course-written words only, on the input of a hidden test, or (with
    ``visible``) of a visible test run after hidden inputs reached the worker.
    """
    if exc.type == "NotImplementedError":
        return f"{exc.function} is not written yet: it still raises NotImplementedError."
    if exc.type == "MemoryError":
        return (
            f"{exc.function} ran out of memory: it tried to use more than the worker's "
            "memory limit."
        )
    if exc.type in _WATCHER_TEMPLATES:
        return _watcher_message(exc, test)
    said = f" {pointer.text()}" if pointer else ""
    if hidden:
        # course-written text only: the type from the known list, the pointer's own words
        raised = "an exception" if exc.type == "Exception" != exc.learner_type else exc.type
        if visible:
            return (
                f"{exc.function} raised {raised}.{said} Its message is not shown here, once "
                "hidden tests have run: `check` shows it."
            )
        return f"{exc.function} raised {raised} on the input of a hidden test.{said}"
    trace = f"\n{exc.traceback.rstrip()}" if exc.traceback else ""
    if pointer:
        # the course's words first, JAX's own message under them
        return (
            f"{exc.function} raised {exc.learner_type}.{said}\n"
            f"{exc.learner_type}: {exc.message}{trace}"
        )
    detail = f": {exc.message}" if exc.message else ""
    return f"{exc.function} raised {exc.learner_type}{detail}{trace}"


def _watcher_message(exc: LearnerError, test: TestCell) -> str:
    """The course's text for a watcher's complaint, hidden test or not.

    The helper's name is taken from the worker's message only when the learner can
    read it in the test anyway: a name chosen by the learner's code is never shown.
    """
    template, otherwise = _WATCHER_TEMPLATES[exc.type]
    words = exc.message.split(maxsplit=1)
    named = _public_name(words[0], test, exc.function) if words else None
    return template.format(function=exc.function, helper=named or otherwise)


def _local_error_message(exc: Exception, test: TestCell, pointer: Pointer | None) -> str:
    name = type(exc).__name__
    if isinstance(exc, NotImplementedError):
        return f"{test.function} is not written yet: it still raises NotImplementedError."
    said = f" {pointer.text()}" if pointer else ""
    if _in_hidden(exc, test):
        return (
            f"A hidden test of {test.function} could not check the value it returned "
            f"({name}).{said}"
        )
    called = _called_in(exc, test)
    if pointer:
        return f"{test.function}'s test stopped with {name}.{said}\n{name}: {exc}{called}"
    return f"{test.function}'s test stopped with {name}: {exc}{called}"
