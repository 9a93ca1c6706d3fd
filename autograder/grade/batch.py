"""Grading a class: several submissions at once, one shard of a class, results reused.

- :func:`grade_all` grades every submission into a :class:`~autograder.report.model.Report`.
- :func:`grade_many` grades notebooks in ``jobs`` trusted grading processes at
  once; each still runs every notebook in its own fresh, limited worker. Results
  come back in the submissions' order, so the report does not depend on ``jobs``.
- :func:`shard` picks a deterministic share of a class for one CI runner.
- :class:`ResultCache` keeps each submission's result under a key made of
  everything that can change it: the submission's files, the course's notebooks,
  the grader's own code, the seed and the limits.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from autograder.execute.run import Limits
from autograder.grade.submission import grade_submission
from autograder.isolate import processes
from autograder.isolate.bubblewrap import isolation
from autograder.learner.seeding import DEFAULT_SEED, seeded
from autograder.load.course import Course, course_fingerprint
from autograder.load.submissions import Submission
from autograder.report.model import NotebookNote, Report, StudentResult
from autograder.report.text import clean
from autograder.store.folder import cache_root

CACHE_FORMAT = "1"

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

    When a result cannot be stored, ``say`` is told once and no more are tried:
    grading goes on, and the next run grades those submissions again.
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
        for notebook_id, path in sorted(submission.notebooks.items()):
            digest.update(notebook_id.encode() + b"\0")
            digest.update(_read(path) + b"\0")
        return digest.hexdigest()

    def get(self, submission: Submission) -> StudentResult | None:
        path = self.folder / f"{self.key(submission)}.json"
        try:
            return StudentResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, submission: Submission, result: StudentResult) -> None:
        if self.unwritable:
            return
        target = self.folder / f"{self.key(submission)}.json"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(result.to_dict(), out, ensure_ascii=False)
            os.replace(temporary, target)
        except OSError as exc:
            self.unwritable = True
            self.say(
                f"note: results are not kept for the next run: {exc.filename or self.folder}: "
                f"{exc.strerror} (--cache-dir chooses another folder)"
            )


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

    def graded(index: int, number: int, result: StudentResult) -> None:
        if on_notebook:
            on_notebook()
        parts[index][number] = result
        if all(part is not None for part in parts[index]):
            _finish(index, submissions, parts, results, cache, on_graded)

    if jobs <= 1 or len(units) <= 1:
        for index, number, piece in units:
            graded(index, number, _grade_one(piece, course, limits, seed))
    else:
        # Grading processes are the grader's own: they exchange results by pickling,
        # which is safe here because no learner code runs in them.
        with ProcessPoolExecutor(max_workers=jobs, mp_context=grading_context()) as pool:
            futures = {
                pool.submit(_grade_one, piece, course, limits, seed): (index, number)
                for index, number, piece in units
            }
            for future in as_completed(futures):
                graded(*futures[future], future.result())
    return [result for result in results if result is not None]


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
        student=clean(submission.student),
        exercises=[exercise for part in pieces for exercise in part.exercises],
        notes=[NotebookNote("", clean(note)) for note in submission.notes]
        + [note for part in pieces for note in part.notes],
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
    with seeded(seed):
        return grade_submission(submission, course, limits)
