"""Grading a class: several submissions at once, one shard of a class, results reused.

- :func:`grade_all` grades every submission into a :class:`~autograder.report.model.Report`.
- :func:`grade_many` grades notebooks in ``jobs`` trusted grading processes at
  once; each still runs every notebook in its own fresh, limited worker. Results
  come back in the submissions' order, so the report does not depend on ``jobs``.
  A grading process that dies costs only the notebook it was grading.
- :func:`shard` picks a deterministic share of a class for one CI runner.
- :class:`ResultCache` keeps each submission's result under a key made of
  everything that can change it: the submission's files, the course's notebooks,
  the grader's own code, the seed and the limits.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path

from autograder.cache import cache_root
from autograder.execute import wire
from autograder.execute.run import Limits
from autograder.grade.submission import grade_submission
from autograder.isolate import processes
from autograder.isolate.bubblewrap import isolation
from autograder.learner.seeding import DEFAULT_SEED, seeded
from autograder.load.course import Course, CourseError, course_fingerprint
from autograder.load.submissions import Submission
from autograder.report.model import (
    ExerciseResult,
    NotebookNote,
    Report,
    StudentResult,
    TestResult,
)
from autograder.safe_text import clean

# Raised whenever a result gains fields, so that results cached before are graded again.
CACHE_FORMAT = "2"  # 2: each test records its kind and the section it points to

OnGraded = Callable[[StudentResult, bool], None]
OnNotebook = Callable[[], None]


def shard(submissions: Sequence[Submission], index: int, count: int) -> list[Submission]:
    """The submissions of shard ``index`` (1-based) of ``count``.

    A student's shard depends only on their name, so adding a student to the
    class does not move the others between runners.
    """
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: the index must be between 1 and {count}")
    return [s for s in submissions if _shard_of(s.student, count) == index - 1]


def _shard_of(student: str, count: int) -> int:
    digest = hashlib.sha256(student.encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


def default_cache_folder() -> Path:
    return cache_root() / "grades"


class ResultCache:
    """Stored results, one JSON file per key, in ``folder``.

    When the folder cannot be written, ``say`` is told once and no more are tried; a
    result that cannot be stored for another reason is left out, and ``say`` told. Either
    way grading goes on, and the next run grades those submissions again.
    """

    def __init__(
        self,
        folder: Path,
        course: Course,
        limits: Limits,
        seed: int,
        say: Callable[[str], None] = print,
    ) -> None:
        self.folder = folder
        self.say = say
        self.unwritable = False
        common = hashlib.sha256()
        # where compiled operations are read from changes no result
        for part in (CACHE_FORMAT, repr(replace(limits, compile_store=None)), str(seed)):
            common.update(part.encode() + b"\0")
        common.update(course_fingerprint(course))
        self._common = common.digest()

    def key(self, submission: Submission) -> str:
        digest = hashlib.sha256(self._common)
        digest.update(submission.student.encode() + b"\0")
        for note in submission.notes:
            digest.update(note.encode() + b"\0")
        # which copy was chosen can turn on modification times, which no file's bytes hold
        for found in submission.files or []:
            digest.update(repr(found).encode() + b"\0")
        for notebook_id, path in sorted(submission.notebooks.items()):
            digest.update(notebook_id.encode() + b"\0")
            digest.update(_read(path) + b"\0")
        return digest.hexdigest()

    def get(self, submission: Submission) -> StudentResult | None:
        try:
            path = self.folder / f"{self.key(submission)}.json"
            return StudentResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, submission: Submission, result: StudentResult) -> None:
        """Keep ``result``. Whatever goes wrong, the run goes on: the submission is graded
        again next run, and no half-written file is left."""
        if self.unwritable:
            return
        temporary = None
        try:
            target = self.folder / f"{self.key(submission)}.json"
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(result.to_dict(), out)  # ASCII, json's default: nothing to mis-encode
            os.replace(temporary, target)
            temporary = None
        except OSError as exc:
            self.unwritable = True
            self.say(
                f"note: results are not kept for the next run: {exc.filename or self.folder}: "
                f"{exc.strerror} (--cache-dir chooses another folder)"
            )
        except Exception as exc:  # noqa: BLE001 - a result not kept is only graded again
            self.say(f"note: {result.student}'s result is not kept for the next run ({exc!r})")
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)


def _read(path: Path | None) -> bytes:
    if path is None:
        return b"<not handed in>"
    try:
        return path.read_bytes()
    except OSError as exc:
        return f"<unreadable: {exc.strerror}>".encode()


def grade_all(
    submissions: Sequence[Submission],
    course: Course,
    limits: Limits,
    seed: int = DEFAULT_SEED,
    jobs: int = 1,
    cache: ResultCache | None = None,
    on_graded: OnGraded | None = None,
    on_notebook: OnNotebook | None = None,
) -> Report:
    """Grade every submission; one learner's failure never stops the batch.

    Hidden tests draw their generated inputs from ``seed``. ``jobs`` submissions
    are graded at once; the report is the same for any ``jobs``.
    """
    students = grade_many(submissions, course, limits, seed, jobs, cache, on_graded, on_notebook)
    return Report(
        students=students,
        isolation=isolation(limits.sandbox),
        processes=processes.describe(limits.processes),
        seed=seed,
        call_limit=limits.call_rule,
    )


def grade_many(
    submissions: Sequence[Submission],
    course: Course,
    limits: Limits,
    seed: int,
    jobs: int = 1,
    cache: ResultCache | None = None,
    on_graded: OnGraded | None = None,
    on_notebook: OnNotebook | None = None,
) -> list[StudentResult]:
    """Every submission's result, in the submissions' order.

    The unit of work is one notebook of one submission, so a single learner's
    notebooks are graded ``jobs`` at a time too. Hidden inputs are drawn per test
    (see :mod:`autograder.learner.seeding`), so grading notebooks apart changes nothing.
    Units go notebook by notebook through the class, in course order: a grading
    process then keeps only one notebook's compiled reference computations in
    memory at a time.
    ``on_notebook`` is called as each unit is done, ``on_graded`` as each
    submission is.
    """
    results: list[StudentResult | None] = [None] * len(submissions)
    parts: dict[int, list[StudentResult | None]] = {}
    units: list[tuple[int, int, Submission]] = []
    for index, submission in enumerate(submissions):
        cached = cache.get(submission) if cache is not None else None
        if cached is not None:
            results[index] = cached
            if on_graded:
                on_graded(cached, True)
            continue
        pieces = _pieces(submission)
        parts[index] = [None] * len(pieces)
        units += [(index, number, piece) for number, piece in enumerate(pieces)]
        if not pieces:
            _finish(index, submissions, parts, results, cache, on_graded)
    order = {notebook.id: position for position, notebook in enumerate(course.notebooks)}
    units.sort(key=lambda unit: (order.get(next(iter(unit[2].notebooks)), len(order)), unit[0]))

    crashed: set[int] = set()

    def graded(index: int, number: int, result: StudentResult, died: bool = False) -> None:
        if on_notebook:
            on_notebook()
        parts[index][number] = result
        if died:
            crashed.add(index)
        if all(part is not None for part in parts[index]):
            # a grading process may die of something else than its notebook: never keep that
            kept = None if index in crashed else cache
            _finish(index, submissions, parts, results, kept, on_graded)

    if jobs <= 1 or len(units) <= 1:
        for index, number, piece in units:
            graded(index, number, _grade_one(piece, course, limits, seed))
    else:
        _grade_in_processes(units, course, limits, seed, jobs, graded)
    return [result for result in results if result is not None]


Unit = tuple[int, int, Submission]
"""A submission's index, the notebook's number in it, and the one-notebook submission."""


def _grade_in_processes(
    units: Sequence[Unit],
    course: Course,
    limits: Limits,
    seed: int,
    jobs: int,
    graded: Callable[[int, int, StudentResult, bool], None],
) -> None:
    """Grade ``units`` in ``jobs`` grading processes, each handed one unit at a time.

    A process that dies (the kernel's out-of-memory killer, a signal, a crash) costs
    only the unit it was grading, which is reported as crashed; its other units go
    to a fresh process. Not :class:`concurrent.futures.ProcessPoolExecutor`: when one
    of its processes dies it fails every unit still to grade, and cannot say which
    one the dead process held.
    """
    context = grading_context()
    waiting = list(reversed(units))
    pool = [_GradingProcess(context, course, limits, seed) for _ in range(min(jobs, len(units)))]
    try:
        while waiting or any(p.unit for p in pool):
            for number, process in enumerate(pool):
                if process.unit is None and waiting:
                    if not process.process.is_alive():  # died between two units
                        process.close()
                        process = pool[number] = _GradingProcess(context, course, limits, seed)
                    process.hand(waiting.pop())
            busy = [p for p in pool if p.unit is not None]
            multiprocessing.connection.wait(
                [p.connection for p in busy] + [p.process.sentinel for p in busy]
            )
            for number, process in enumerate(pool):
                if process.unit is None or not process.done():
                    continue
                (index, part, piece), outcome = process.unit, process.outcome()
                if isinstance(outcome, StudentResult):
                    graded(index, part, outcome, False)
                    continue
                graded(index, part, _crashed(piece, course, outcome), True)
                process.close()
                pool[number] = _GradingProcess(context, course, limits, seed)
    finally:
        for process in pool:
            process.close()


class _GradingProcess:
    """One grading process, and the unit it is grading (None when idle).

    Grading processes are the grader's own: they exchange units and results by
    pickling, which is safe here because no learner code runs in them.
    """

    def __init__(
        self,
        context: multiprocessing.context.BaseContext,
        course: Course,
        limits: Limits,
        seed: int,
    ) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(theirs, course, limits, seed)
        )
        self.process.start()
        theirs.close()
        self.unit: Unit | None = None

    def hand(self, unit: Unit) -> None:
        self.unit = unit
        with contextlib.suppress(OSError):  # it died just now: done() will say so
            self.connection.send(unit[2])

    def done(self) -> bool:
        """Whether the unit's result, or the end of the process, has come."""
        return self.connection.poll() or not self.process.is_alive()

    def outcome(self) -> StudentResult | int | None:
        """The unit's result; or the dead process's exit code (None if unknown).

        Raises the CourseError (a course file changed) the process met."""
        unit, self.unit = self.unit, None
        try:
            reply = self.connection.recv()
        except (EOFError, OSError):
            self.process.join(5)
            return self.process.exitcode
        if isinstance(reply, str):  # the grader's own code raised: a bug, so stop
            raise RuntimeError(f"grading {unit and unit[2].student} failed:\n{reply}")
        if isinstance(reply, CourseError):  # the course changed: the run stops, as in one process
            raise reply
        return reply

    def close(self) -> None:
        """Let the process end (closing its zygotes), or kill it after a few seconds."""
        with contextlib.suppress(OSError):
            self.connection.send(None)
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def _serve(connection: Connection, course: Course, limits: Limits, seed: int) -> None:
    """A grading process: grade each submission handed in, until handed None."""
    while (piece := connection.recv()) is not None:
        try:
            result: StudentResult | str | CourseError = _grade_one(piece, course, limits, seed)
        except CourseError as exc:
            result = exc
        except Exception:  # noqa: BLE001 - raised again in the grader's own process
            result = traceback.format_exc()
        connection.send(result)


def _crashed(piece: Submission, course: Course, exit_code: int | None) -> StudentResult:
    """The result of a notebook whose grading process ended while grading it."""
    how = _how_it_ended(exit_code)
    exercises = []
    notes = []
    for notebook_id in piece.notebooks:
        exercise = course.notebook(notebook_id)
        message = (
            f"the grading process itself ended ({how}) while grading {exercise.filename}; "
            "its functions were not graded"
        )
        notes.append(NotebookNote(exercise.filename, message))
        exercises += [
            ExerciseResult(
                notebook=exercise.filename,
                name=function.name,
                max_score=function.points,
                tests=[
                    TestResult(
                        test.grade_id,
                        "crashed",
                        0.0,
                        test.points,
                        message,
                        hidden=False,
                        visible_passed=False,
                        kind="crashed",
                    )
                    for test in function.tests
                ],
            )
            for function in exercise.functions
        ]
    return StudentResult(piece.student, exercises, notes)


def _how_it_ended(exit_code: int | None) -> str:
    if exit_code is None:
        return "it stopped answering"
    if exit_code >= 0:
        return f"exit code {exit_code}"
    try:
        name = signal.Signals(-exit_code).name
    except ValueError:
        return f"signal {-exit_code}"
    if name == "SIGKILL":
        return "killed by SIGKILL, as the kernel's out-of-memory killer or a memory limit does"
    if name == "SIGXCPU":
        return "killed by SIGXCPU: over its CPU-time limit"
    return f"killed by {name}"


def grading_context() -> multiprocessing.context.BaseContext:
    """How the grader starts its own grading processes.

    "forkserver" keeps them from inheriting this process's threads (the progress
    display) and its memory; the fork server imports the grading code and JAX
    once, so each grading process starts with them loaded.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["autograder.grade.submission", "jax.numpy"])
    return context


def _pieces(submission: Submission) -> list[Submission]:
    """One submission per notebook handed in; the submission's own notes stay out."""
    return [
        Submission(submission.student, {notebook_id: path})
        for notebook_id, path in submission.notebooks.items()
    ]


def _finish(
    index: int,
    submissions: Sequence[Submission],
    parts: dict[int, list[StudentResult | None]],
    results: list[StudentResult | None],
    cache: ResultCache | None,
    on_graded: OnGraded | None,
) -> None:
    """Join a submission's per-notebook results, in its notebooks' order, and record it."""
    submission = submissions[index]
    pieces = [part for part in parts.pop(index) if part is not None]
    result = StudentResult(
        student=submission.student,
        exercises=[exercise for part in pieces for exercise in part.exercises],
        notes=[NotebookNote("", clean(note)) for note in submission.notes]
        + [note for part in pieces for note in part.notes],
        files=submission.files,
    )
    results[index] = result
    if cache is not None:
        cache.put(submission, result)
    if on_graded:
        on_graded(result, False)


_last_notebooks: set[str] = set()


def _grade_one(submission: Submission, course: Course, limits: Limits, seed: int) -> StudentResult:
    notebooks = set(submission.notebooks)
    if _last_notebooks and notebooks != _last_notebooks and "jax" in sys.modules:
        # the previous notebook's compiled reference computations are not needed again
        sys.modules["jax"].clear_caches()
    _last_notebooks.clear()
    _last_notebooks.update(notebooks)
    with seeded(seed), wire.notebook_classes():
        return grade_submission(submission, course, limits)
