"""A pytest plugin that turns an exercise's test cells into pytest items run against a submission.

pytest collects the course's own exercise notebooks; each test cell becomes an
:class:`ExerciseItem`. The item runs the cell in this (the grader's) process, in a
namespace where every name of the learner's notebook that the cell uses (graded
functions, classes, helpers) is a :class:`RemoteFunction` that calls it in a
sandboxed worker and returns plain data, and every watcher of
:mod:`autograder.learner.watchers` is a :class:`RemoteWatcher` that runs it there.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

from autograder.compare.returned import Calls, one_line
from autograder.compare.verdicts import Verdict, cell_parts, run_test_cell
from autograder.devices import use_cpu_devices
from autograder.execute import wire
from autograder.execute.run import Limits, NotebookRun, ReferenceSeconds
from autograder.learner.watchers import WATCHERS
from autograder.load.course import CourseError, ExerciseNotebook, TestCell
from autograder.load.learner_notebook import (
    CourseCells,
    NotebookDamaged,
    NotebookUnreadable,
    cells_rebinding_given,
    cells_to_run,
    cells_touching_the_grader,
    course_cells,
    hints_opened,
    read_notebook,
    tampered_cells,
)
from autograder.load.stubs import not_started
from autograder.safe_text import clean

_TRUSTED_SETUP: dict[Path, dict[str, Any]] = {}


@functools.cache
def reference_notebooks(
    exercise: ExerciseNotebook,
) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """The learner's version of the notebook and the course's source, for tamper checks,
    from their bytes as the course was loaded (raises CourseChanged otherwise)."""
    released, source = exercise.released_bytes(), exercise.source_bytes()
    if released is None:
        raise CourseError(f"{exercise.released_path} is missing: the course has no released copy")
    return nbformat.reads(released.decode(), as_version=4), nbformat.reads(
        source.decode(), as_version=4
    )


@functools.cache
def course_copy(exercise: ExerciseNotebook) -> CourseCells:
    """What the course's own copy of ``exercise`` says its locked and given cells are."""
    return course_cells(*reference_notebooks(exercise))


def trusted_namespace(exercise: ExerciseNotebook) -> dict[str, Any]:
    """The course's setup cell, run once in the grader's process (it is the course's own code).

    Its source is the one :func:`~autograder.load.course.load_course` read at the start,
    never read again (see :class:`~autograder.load.course.CourseChanged`).
    """
    if exercise.path not in _TRUSTED_SETUP:
        use_cpu_devices()  # before the first setup cell's JAX operation, as in the worker
        namespace: dict[str, Any] = {"__name__": "__grader__"}
        # dont_inherit: run as in a kernel, without this module's __future__ imports
        code = compile(
            exercise.setup_source, f"<setup of {exercise.id}>", "exec", dont_inherit=True
        )
        exec(code, namespace)
        _TRUSTED_SETUP[exercise.path] = namespace
    return dict(_TRUSTED_SETUP[exercise.path])


class RemoteFunction(wire.LearnerRef):
    """Stands in for a name of the learner's notebook: calls it in the worker, returns
    plain data, and tells ``calls`` of each call. Handed to a watcher, it travels as the name."""

    def __init__(self, run: NotebookRun, name: str, calls: Calls) -> None:
        super().__init__(name)
        self._run = run
        self._calls = calls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._calls.started(self.__name__)
        value = self._run.call(self.__name__, args, kwargs)
        self._calls.returned(lambda: self._shown(value))
        return value

    def _shown(self, value: Any) -> str:
        """What the worker says the last call returned, cleaned (it is the learner's text);
        the name of the type it arrived as, where the worker does not say in time."""
        text = self._run.shown(self.__name__)
        return one_line(clean(text if text is not None else f"<{type(value).__name__}>"))

    def __repr__(self) -> str:
        return f"<the learner's {self.__name__}>"


class RemoteWatcher:
    """Stands in for a watcher: runs it in the learner's worker, returns its plain answer."""

    def __init__(self, run: NotebookRun, name: str) -> None:
        self._run = run
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        answer = self._run.watch(self.__name__, args, kwargs)
        if self.__name__ == "watch_calls":
            watched = kwargs.get("apis", args[2] if len(args) > 2 else ())
            return only_watched(answer, watched)
        return answer


def only_watched(records: Any, apis: Any) -> Any:
    """The records of ``watch_calls`` whose ``api`` is one the test asked about.

    The worker is the learner's, and a test may show the names of the APIs called in
    its message: a name the test did not ask about (a hidden input, say) is dropped.
    An answer that is not a list of records is left for the test to fail on.
    """
    if not isinstance(records, list):
        return records
    asked = {api for api in apis if isinstance(api, str)} if isinstance(apis, list | tuple) else ()
    return [r for r in records if not isinstance(r, dict) or r.get("api") in asked]


@dataclass(frozen=True)
class _Begun:
    """A test cell whose visible prefix has run: the namespace and calls the rest of the
    cell runs with, the rest's source, and the prefix's verdict where it failed (the rest
    is then not run)."""

    namespace: dict[str, Any]
    calls: Calls
    rest: str
    failed: Verdict | None


class NotebookContext:
    """One exercise notebook of one submission: either runnable, or a reason it is not.

    Each test cell runs in two parts (:func:`~autograder.compare.verdicts.cell_parts`):
    :meth:`run_visible_tests` runs every cell's visible prefix before any hidden line
    of the notebook runs, so that a failing visible test can show what the function
    returned (after hidden inputs, the learner's code could return them); :meth:`verdict`
    runs the rest of the cell.
    """

    def __init__(
        self,
        exercise: ExerciseNotebook,
        path: Path | None,
        limits: Limits,
        reference: ReferenceSeconds | None = None,
    ) -> None:
        self.exercise = exercise
        self.run: NotebookRun | None = None
        self.problem: Verdict | None = None
        self.damage = ""
        self.tampered: dict[str, str] = {}
        self.hints_opened: dict[str, int] = {}
        self.naming_the_grader: list[str] = []
        self.rebinding_given: list[str] = []
        self.not_started: frozenset[str] = frozenset()
        self.stub_cells: frozenset[int] = frozenset()
        self._begun: dict[str, _Begun] = {}
        self._visible_run = False
        exercise.check_unchanged()  # raises, out of pytest: the run stops
        if path is None:
            self.problem = Verdict(
                "missing", f"{exercise.filename} was not found in the submission."
            )
            return
        try:
            nb = read_notebook(path)
        except NotebookDamaged as exc:
            # one line for the notebook (a note), not the same message under every function
            self.problem = Verdict("corrupt")
            self.damage = str(exc)
            return
        except NotebookUnreadable as exc:
            self.problem = Verdict("error", f"{exc}.", kind="not-graded")
            return
        course = course_copy(exercise)
        self.not_started = not_started(nb, exercise)
        self.stub_cells = frozenset(
            number
            for number, cell in enumerate(nb.cells, start=1)
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") in self.not_started
        )
        # a notebook with nothing started has no test to run: no worker is started for it
        if self.not_started != {function.name for function in exercise.functions}:
            self.run = NotebookRun(cells_to_run(nb, exercise, course), limits, reference)
        self.tampered = tampered_cells(nb, course)
        self.hints_opened = hints_opened(nb)
        self.naming_the_grader = cells_touching_the_grader(nb, course)
        self.rebinding_given = cells_rebinding_given(nb, course)

    def run_visible_tests(self) -> None:
        """Run the visible prefix of each test cell of a started function, in the report's
        order, once: none has hidden inputs, so none needs the grader's words only."""
        if self._visible_run:
            return
        self._visible_run = True
        for function in self.exercise.functions:
            if function.name not in self.not_started:
                for test in function.tests:
                    self.run_visible_prefix(test)

    def run_visible_prefix(self, test: TestCell) -> None:
        """Run ``test``'s visible prefix now; :meth:`verdict` then runs the rest."""
        if self.problem is None and self.run is not None:
            self._begun[test.grade_id] = self._begin(self.run, test)

    def verdict(self, test: TestCell) -> Verdict:
        """``test``'s verdict: its visible prefix's where that failed, else that of the rest
        of the cell. The prefix runs first here unless :meth:`run_visible_tests` ran it."""
        if test.function in self.not_started:
            return Verdict.not_started()  # whatever the stub would do, it is not run
        if self.problem is not None or self.run is None:
            return self.problem or Verdict("error", "not graded", kind="not-graded")
        begun = self._begun.pop(test.grade_id, None) or self._begin(self.run, test)
        if begun.failed is not None:
            return begun.failed
        self.run.start_test(test.grade_id, hidden=bool(test.hidden_lines))
        # The rest begins with the cell's hidden lines: the worker may hold hidden inputs
        # (this cell's, or an earlier one's) when a visible line among them runs.
        after_hidden = self.run.hidden_inputs_given
        filename = self.exercise.filename
        return run_test_cell(test, begun.namespace, filename, after_hidden, begun.calls, begun.rest)

    def _begin(self, run: NotebookRun, test: TestCell) -> _Begun:
        """Run ``test``'s visible prefix in a namespace of its own."""
        after_hidden = run.hidden_inputs_given
        run.start_test(test.grade_id)
        namespace = trusted_namespace(self.exercise)
        for name, value in list(namespace.items()):
            if any(value is watcher for watcher in WATCHERS.values()):
                namespace[name] = RemoteWatcher(run, value.__name__)
        calls = Calls(test.filename)
        for name in test.free_names - namespace.keys():
            namespace[name] = RemoteFunction(run, name, calls)
        prefix, rest = cell_parts(test)
        filename = self.exercise.filename
        verdict = run_test_cell(test, namespace, filename, after_hidden, calls, prefix)
        return _Begun(namespace, calls, rest, None if verdict.passed else verdict)

    def close(self) -> None:
        if self.run is not None:
            self.run.close()


class GradingFailed(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


class ExerciseItem(pytest.Item):
    def __init__(self, *, test: TestCell, context: NotebookContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test = test
        self.context = context

    def runtest(self) -> None:
        self.context.run_visible_tests()
        verdict = self.context.verdict(self.test)
        self.user_properties.append(("verdict", verdict))
        if not verdict.passed:
            raise GradingFailed(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GradingFailed):
            return excinfo.value.verdict.message
        return f"internal grader error: {excinfo.exconly()}"

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"{self.context.exercise.filename}::{self.test.grade_id}"


class NotebookTests(pytest.File):
    def __init__(self, *, context: NotebookContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.context = context

    def collect(self) -> Iterator[ExerciseItem]:
        for function in self.context.exercise.functions:
            for test in function.tests:
                yield ExerciseItem.from_parent(
                    self, name=test.grade_id, test=test, context=self.context
                )


class GradingPlugin:
    """Collects the tests of the given exercise notebooks and records each one's verdict."""

    def __init__(self, contexts: list[NotebookContext]) -> None:
        self.contexts = {context.exercise.path.resolve(): context for context in contexts}
        self.verdicts: dict[tuple[str, str], Verdict] = {}

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> NotebookTests | None:
        context = self.contexts.get(file_path.resolve())
        if context is None:
            return None
        return NotebookTests.from_parent(parent, path=file_path, context=context)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and not report.failed:
            return
        notebook, _, grade_id = report.nodeid.rpartition("::")
        recorded = dict(report.user_properties).get("verdict")
        verdict = (
            recorded
            if isinstance(recorded, Verdict)
            else Verdict("error", str(report.longrepr), kind="not-graded")
        )
        self.verdicts[(Path(notebook).stem, grade_id)] = verdict

    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        if (
            isinstance(item, ExerciseItem)
            and getattr(nextitem, "context", None) is not item.context
        ):
            item.context.close()


def run_pytest(contexts: list[NotebookContext]) -> dict[tuple[str, str], Verdict]:
    """Run the tests of ``contexts``' notebooks under pytest.

    Returns each test cell's verdict, keyed by (notebook id, test grade id).
    """
    plugin = GradingPlugin(contexts)
    folder = os.path.commonpath([Path(context.exercise.path).parent for context in contexts])
    args = [
        "-p", "no:cacheprovider",
        "-p", "no:terminal",
        # both call gc.collect() at the end of every session: 0.1 s each with JAX loaded
        "-p", "no:unraisableexception",
        "-p", "no:threadexception",
        "--noconftest",
        # no third-party plugins (anyio's imports its event loops: 0.4 s a fresh process),
        # and no assertion rewriting: test cells are exec'd by the plugin, not imported
        "--disable-plugin-autoload",
        "--assert=plain",
        "-c", os.devnull,
        "--rootdir", str(Path(contexts[0].exercise.path).parent.parent),
        # pytest lists every folder from the confcutdir down to each file it is given, by
        # default from /: 0.2 to 0.6 s a run where /tmp holds a few thousand entries
        "--confcutdir", folder,
        *[str(context.exercise.path) for context in contexts],
    ]  # fmt: skip
    try:
        with _without_pytest_environment():
            pytest.main(args, plugins=[plugin])
    finally:
        for context in contexts:
            context.close()
    return plugin.verdicts


# pytest reads these from the environment on every run, after the arguments above: an
# instructor's PYTEST_ADDOPTS="-x" would stop grading at a learner's first failing test.
PYTEST_ENVIRONMENT = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")


@contextlib.contextmanager
def _without_pytest_environment() -> Iterator[None]:
    """Run the block with none of :data:`PYTEST_ENVIRONMENT` set."""
    saved = {name: os.environ.pop(name) for name in PYTEST_ENVIRONMENT if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)
