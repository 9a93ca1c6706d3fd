"""What a class's report says about the class as a whole: the numbers of its page.

Everything is read from the report's structured fields (each function's status and
score, each test's ``pointer``, the hints opened); no message is parsed. The same
report gives the same numbers, in the same order.
"""

from __future__ import annotations

import hashlib
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from autograder.report.model import (
    ExerciseResult,
    Report,
    StudentResult,
    TestPointer,
    TestResult,
)

GROUPS = {
    "passed": "passed",
    "partial": "earned part",
    "failed": "failed",
    "raised": "raised an error",
    "timeout": "timed out",
    "not-started": "not started",
    "absent": "not handed in or damaged",
}
"""How one learner's function ended, for the class's shares, best first, with the words
the page shows. ``partial``: some points but not all; ``raised`` takes the statuses
``error``, ``memory`` and ``crashed``; ``not-started``: the function's cell still holds
the exercise's stub; ``absent`` takes ``missing`` (no notebook, or no such function in
it) and ``corrupt`` (a damaged file)."""

NOT_ATTEMPTED = ("not-started", "absent")
"""The groups of a learner who did not start the function, or did not hand it in. Pass
rates, medians, discrimination and what to reteach count the other learners only: a
function nobody has reached yet is not a hard one."""

_GROUP_OF_STATUS = {
    "passed": "passed",
    "failed": "failed",
    "error": "raised",
    "memory": "raised",
    "crashed": "raised",
    "timeout": "timeout",
    "not-started": "not-started",
    "missing": "absent",
    "corrupt": "absent",
}

LOW_DISCRIMINATION = 20.0
"""Below this discrimination (a correlation, in percent) a function is flagged, unless
nearly everyone scores on it (:data:`EASY_MEAN`): the threshold PrairieLearn's
question statistics advise."""
EASY_MEAN = 95.0

DISCRIMINATION_LEARNERS = 10
"""The fewest learners who started a function for its discrimination to be shown. Below
10 (8 degrees of freedom), a correlation under 63% cannot be told from none at the 5%
level (the critical value of Pearson's r), and with 3 learners every function reads
100%, 50% or so: the number would mislead more than it tells, so the page says so."""


def group_of(exercise: ExerciseResult) -> str:
    """The :data:`GROUPS` key of one learner's result on one function."""
    return _group(exercise.status, exercise.score)


def _group(status: str, score: float) -> str:
    if status != "passed" and score > 0:
        return "partial"
    return _GROUP_OF_STATUS.get(status, "failed")


@dataclass
class FunctionStats:
    """One graded function over the class. ``counts`` covers every learner; ``median``,
    ``mean_percent``, ``discrimination`` and the hints those who started it (in no group
    of :data:`NOT_ATTEMPTED`), as PrairieLearn counts the students who had a question.
    ``discrimination`` is the correlation (Pearson, in percent) between their scores on
    it and their totals, as PrairieLearn computes it; None where either does not vary."""

    chapter: str
    name: str
    max_score: float
    counts: dict[str, int]
    median: float
    mean_percent: float
    discrimination: float | None
    hints_opened_by: int
    """Learners whose notebook records at least one of its hints opened."""
    passed_with_hints: int
    passed_without_hints: int

    @property
    def started(self) -> int:
        """The learners who handed it in and started it: all but :data:`NOT_ATTEMPTED`."""
        return self.learners - sum(self.counts.get(group, 0) for group in NOT_ATTEMPTED)

    @property
    def learners(self) -> int:
        return sum(self.counts.values())

    @property
    def passed_of_started(self) -> float:
        """The share of the learners who started it that passed it (1 when none did):
        how hard it is, apart from who has not reached it."""
        return self.rate("passed") if self.started else 1.0

    def share(self, group: str) -> float:
        """The share of the class (0 to 1) whose result is in ``group``."""
        return self.counts.get(group, 0) / self.learners if self.learners else 0.0

    def rate(self, group: str) -> float:
        """The share (0 to 1) of the learners who started it whose result is in ``group``
        (0 when none did): its pass rate, for ``passed``."""
        return self.counts.get(group, 0) / self.started if self.started else 0.0

    @property
    def too_few_for_discrimination(self) -> bool:
        """Whether fewer than :data:`DISCRIMINATION_LEARNERS` learners started it."""
        return self.started < DISCRIMINATION_LEARNERS

    @property
    def flagged(self) -> bool:
        """Whether its discrimination is low or negative: a test that may measure the
        wrong thing, or a task worded so that strong learners miss it. Never with too few
        learners to tell."""
        d = self.discrimination
        return (
            d is not None
            and not self.too_few_for_discrimination
            and (d < 0 or (d < LOW_DISCRIMINATION and self.mean_percent <= EASY_MEAN))
        )


@dataclass
class ReteachSection:
    """A section of the book that failed tests sent learners back to."""

    chapter: str
    section: str
    anchor: str
    learners: int
    functions: list[tuple[str, int]]
    """Each function whose failures pointed here, with how many learners, most first."""
    example: str
    """One message that sent a learner here: the most frequent, course-written first."""
    causes: list[tuple[str, int]] = field(default_factory=list)
    """What happened, from each test's ``kind`` and its pointer's ``id``, with how many
    learners' functions, most first: ``failed a check``, or ``raised <idea id>`` for an
    error the course explains, or another kind."""
    started: int = 0
    """The learners who started one of ``functions`` at least: those who could have been
    sent here."""


@dataclass
class ChapterStats:
    """One chapter over the class: of its ``learners``, how many handed it in (a notebook
    of the chapter could be graded: a damaged one, which the learner's row names, could
    not, as in :data:`GROUPS`) and the ``scores`` (in percent, in the report's order) of
    those who started it (one of its functions at least)."""

    chapter: str
    learners: int
    handed_in: int
    scores: list[float] = field(default_factory=list)

    @property
    def started(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float | None:
        """The mean score of those who started it, in percent; None when no one did."""
        return statistics.fmean(self.scores) if self.scores else None


@dataclass
class LearnerRow:
    """One learner's line: ``name`` is a pseudonym when the page is anonymised, and
    ``student`` always the name their feedback file is called by."""

    name: str
    student: str
    score: float
    max_score: float
    missed: list[str]
    """The functions started that did not pass."""
    not_started: list[str] = field(default_factory=list)
    """The chapters none of whose functions are started."""
    files: str = ""
    """The files worth a word (:meth:`~autograder.report.model.StudentResult.files_summary`),
    each not graded with why; on an anonymised page, by chapter, without the file's name."""

    @property
    def percent(self) -> float:
        return _percent(self.score, self.max_score)


@dataclass
class ClassInsight:
    """The whole page's numbers; see :func:`class_insight`."""

    learners: int
    reteach: list[ReteachSection]
    functions: list[FunctionStats]
    """Hardest first: the smallest share of those who started it passed, then the
    lowest mean score."""
    totals: list[float]
    """Each learner's total, in percent, in the rows' order."""
    chapters: list[ChapterStats] = field(default_factory=list)
    """Each chapter, in the report's order."""
    rows: list[LearnerRow] = field(default_factory=list)


def class_insight(report: Report, anonymise: bool = False) -> ClassInsight:
    """The numbers of a class's page, computed from ``report``.

    ``anonymise`` replaces each learner's name by :func:`pseudonym`.
    """
    students = report.students
    totals = {s.student: _percent(s.score, s.max_score) for s in students}
    return ClassInsight(
        learners=len(students),
        reteach=reteach_sections(students),
        functions=function_stats(students, totals),
        totals=[totals[s.student] for s in students],
        chapters=chapter_stats(students),
        rows=sorted(
            (_row(s, anonymise) for s in students),
            # in the report's order (by name) the rows would tell the names' order
            key=lambda row: row.name if anonymise else "",
        ),
    )


class _Result(NamedTuple):
    """One learner's result on one function, its score and group worked out once: a
    class of 400 asks for them some 100,000 times (a second, when recomputed)."""

    student: str
    score: float
    max_score: float
    group: str
    hints_opened: int


def function_stats(students: list[StudentResult], totals: dict[str, float]) -> list[FunctionStats]:
    """One :class:`FunctionStats` per graded function, hardest first, then those no learner
    started (they say nothing of how hard they are)."""
    results: dict[tuple[str, str], list[_Result]] = defaultdict(list)
    for student in students:
        for exercise in student.exercises:
            results[(_chapter(exercise), exercise.name)].append(
                _Result(
                    student.student,
                    exercise.score,
                    exercise.max_score,
                    group_of(exercise),
                    exercise.hints_opened,
                )
            )
    found = [_function(key, graded, totals) for key, graded in results.items()]
    return sorted(found, key=lambda f: (not f.started, f.passed_of_started, f.mean_percent))


def _function(
    key: tuple[str, str], graded: list[_Result], totals: dict[str, float]
) -> FunctionStats:
    max_score = max(result.max_score for result in graded)
    started = [result for result in graded if result.group not in NOT_ATTEMPTED]
    percents = [_percent(result.score, max_score) for result in started]
    hinted = [result for result in started if result.hints_opened > 0]
    return FunctionStats(
        chapter=key[0],
        name=key[1],
        max_score=max_score,
        counts=dict(Counter(result.group for result in graded)),
        median=statistics.median(result.score for result in started) if started else 0.0,
        mean_percent=statistics.fmean(percents) if percents else 0.0,
        discrimination=_correlation(percents, [totals[result.student] for result in started]),
        hints_opened_by=len(hinted),
        passed_with_hints=sum(result.group == "passed" for result in hinted),
        passed_without_hints=sum(
            result.group == "passed" for result in started if result.hints_opened == 0
        ),
    )


def _correlation(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's correlation of ``xs`` and ``ys`` in percent; None where it is undefined."""
    if len(xs) < 2 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return 100.0 * statistics.correlation(xs, ys)


def reteach_sections(students: list[StudentResult]) -> list[ReteachSection]:
    """The sections failed tests pointed to, the most learners first (then by name).

    A learner counts once per section, however many of their tests pointed there; a
    function the learner has not started sends them nowhere. Each section counts the
    learners who started one of the functions that sent someone there.
    """
    learners: dict[tuple[str, str], set[str]] = defaultdict(set)
    by_function: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    said: dict[tuple[str, str], Counter[tuple[bool, str]]] = defaultdict(Counter)
    causes: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    named: dict[tuple[str, str], TestPointer] = {}
    started: dict[str, set[str]] = defaultdict(set)
    for student in students:
        for exercise in student.exercises:
            if group_of(exercise) in NOT_ATTEMPTED:
                continue
            started[exercise.name].add(student.student)
            pointers = {}
            for test in exercise.tests:
                if test.outcome == "passed" or test.pointer is None:
                    continue
                where = (test.pointer.chapter, test.pointer.anchor)
                named.setdefault(where, test.pointer)
                pointers.setdefault(where, test)
            for where, test in pointers.items():
                learners[where].add(student.student)
                by_function[where][exercise.name] += 1
                # a hidden test's message is the course's own words, never the learner's
                said[where][(not test.hidden, test.message)] += 1
                causes[where][_cause(test)] += 1
    sections = [
        ReteachSection(
            chapter=where[0],
            section=named[where].section,
            anchor=where[1],
            learners=len(who),
            functions=sorted(by_function[where].items(), key=lambda item: (-item[1], item[0])),
            example=min(said[where].items(), key=lambda item: (item[0][0], -item[1]))[0][1],
            causes=sorted(causes[where].items(), key=lambda item: (-item[1], item[0])),
            started=len(set().union(*(started[name] for name in by_function[where]))),
        )
        for where, who in learners.items()
    ]
    return sorted(sections, key=lambda s: (-s.learners, s.chapter, s.section))


def _cause(test: TestResult) -> str:
    """What a failed test that points to a section says happened, in a few words."""
    if test.kind == "failed-check":
        return "failed a check"
    if test.kind == "error" and test.pointer is not None:
        return f"raised {test.pointer.id}"
    return test.kind or test.outcome


def chapter_stats(students: list[StudentResult]) -> list[ChapterStats]:
    """Each chapter's :class:`ChapterStats`, in the report's order."""
    chapters: dict[str, ChapterStats] = {}
    for student in students:
        earned: dict[str, list[float]] = {}
        handed_in: set[str] = set()
        started: set[str] = set()
        for exercise in student.exercises:
            chapter = _chapter(exercise)
            chapters.setdefault(chapter, ChapterStats(chapter, len(students), 0))
            score = exercise.score  # a sum over its tests, asked for once
            pair = earned.setdefault(chapter, [0.0, 0.0])
            pair[0] += score
            pair[1] += exercise.max_score
            group = _group(exercise.status, score)
            if group != "absent":
                handed_in.add(chapter)
            if group not in NOT_ATTEMPTED:
                started.add(chapter)
        for chapter, (score, max_score) in earned.items():
            chapters[chapter].handed_in += chapter in handed_in
            if chapter in started:
                chapters[chapter].scores.append(_percent(score, max_score))
    return list(chapters.values())


def pseudonym(name: str) -> str:
    """A stable stand-in for ``name``: the same name gives the same pseudonym on every page.

    Derived from the name alone (its SHA-256), so whoever has the class list can
    recompute it: it hides names from colleagues, not from the course's staff.
    """
    return "learner-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


def _row(student: StudentResult, anonymise: bool) -> LearnerRow:
    return LearnerRow(
        name=pseudonym(student.student) if anonymise else student.student,
        student=student.student,
        score=student.score,
        max_score=student.max_score,
        missed=[exercise.name for exercise in student.not_passed if exercise.started],
        not_started=student.chapters_not_started(),
        files=_files(student, anonymise),
    )


def _files(student: StudentResult, anonymise: bool) -> str:
    """What the learner's row says of their files; a file's name, which the learner chose
    and may hold their own, is left out on an anonymised page."""
    if not anonymise:
        return student.files_summary()
    return "; ".join(
        f"{file.chapter or 'a notebook'} not graded ({file.why})"
        for file in student.files or []
        if not file.graded
    )


def _chapter(exercise: ExerciseResult) -> str:
    return exercise.notebook.removesuffix(".ipynb")


def _percent(score: float, max_score: float) -> float:
    return 100.0 * score / max_score if max_score else 0.0
