"""The grading report: what every output format (JSON, JUnit, Markdown, the console) is made from.

The report holds no timings or absolute paths, so grading the same submission
twice gives the same report. Every text a learner controls (their name, their files'
names and why they were not graded, notes, tests' messages) is passed through
:func:`~autograder.safe_text.clean` whenever a result is made, by grading, from the
result cache or from a report read back: every format can write it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from autograder.compare.verdicts import OUTCOMES
from autograder.load.handed_in import NotebookFile
from autograder.load.submissions import UnusableInput
from autograder.safe_text import clean, clean_name

SUMMARY_COLUMNS = ("Student", "Score", "Passed", "Not passed", "Files")
"""The columns of a class's summary, on the terminal and in Markdown."""


@dataclass(frozen=True)
class TestPointer:
    """The section of the book a failed test sends the learner to, and the idea it names.

    ``id`` is stable across rewordings: the id of the error's pointer
    (:mod:`autograder.compare.explain`) where the learner's code raised an error the
    course explains, else ``<chapter>#<anchor>``, the section the test's own message
    names. ``chapter`` is the chapter's id (its page ``book/<chapter>.md``),
    ``section`` the heading, ``anchor`` the heading's id on that page."""

    __test__ = False

    id: str
    chapter: str
    section: str
    anchor: str


@dataclass
class TestResult:
    """One test cell's result. ``hidden`` is true when the result tells something
    about the cell's hidden tests (see :class:`~autograder.compare.verdicts.Verdict`); a
    result recorded without it, as in older reports, counts as hidden.
    ``visible_passed`` says whether the cell's visible tests passed, as ``check``
    would say: a failed result with it true failed in the hidden tests only. It is
    None in reports written before it was recorded. ``kind`` says what happened, one of
    :data:`~autograder.compare.verdicts.KINDS` (empty for a pass), and ``pointer`` the
    section its message sends the learner to, if any."""

    __test__ = False  # not a pytest test class, despite the name

    name: str
    outcome: str
    points: float
    max_points: float
    message: str = ""
    hidden: bool = True
    visible_passed: bool | None = None
    kind: str = ""
    pointer: TestPointer | None = None

    def __post_init__(self) -> None:
        self.message = clean(self.message, limit=None)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestResult:
        """Rebuild from the report's JSON (``asdict`` of one)."""
        pointer = data.get("pointer")
        fields = {**data, "pointer": TestPointer(**pointer) if pointer else None}
        return cls(**fields)


NO_NOTEBOOK = "no notebook to grade"
"""What a learner's row says of a hand-in that held no notebook of the chapters graded."""

FILES_SAID = 5
"""How many files a learner's row names (a hand-in may hold thousands); the rest are
counted, and the JSON report's ``files`` lists them all."""

HINTS_RECORD_NOTE = (
    "Hints opened are read from the hint outputs saved in each learner's notebook; "
    "a learner can clear or edit them."
)
NO_HINTS = "No learner's notebook records a hint opened."
"""What a class's summary and page say in place of a table of hints opened, with none."""


@dataclass
class ExerciseResult:
    """One graded function of one notebook. ``hints_opened`` is what the learner's
    notebook records of the hints they opened (see :data:`HINTS_RECORD_NOTE`)."""

    notebook: str
    name: str
    max_score: float
    tests: list[TestResult] = field(default_factory=list)
    hint: str = ""
    tampered: bool = False
    hints_opened: int = 0

    @property
    def score(self) -> float:
        return sum(test.points for test in self.tests)

    @property
    def first_message(self) -> str:
        """The first message its tests gave, the one a one-line summary shows."""
        return next((test.message for test in self.tests if test.message), "")

    @property
    def status(self) -> str:
        if not self.tests:
            return "missing"
        return max((test.outcome for test in self.tests), key=OUTCOMES.index)

    @property
    def started(self) -> bool:
        """Whether the learner started the function: false when its cell still holds the
        released stub (every test ``not-started``), true otherwise, missing included."""
        return self.status != "not-started"

    def to_dict(self) -> dict[str, Any]:
        return {
            "notebook": self.notebook,
            "name": self.name,
            "score": self.score,
            "max_score": self.max_score,
            "status": self.status,
            "hint": self.hint,
            "hints_opened": self.hints_opened,
            "tampered": self.tampered,
            "tests": [asdict(test) for test in self.tests],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExerciseResult:
        """Rebuild from :meth:`to_dict`'s output; the score and status are recomputed."""
        return cls(
            notebook=str(data["notebook"]),
            name=str(data["name"]),
            max_score=float(data["max_score"]),
            tests=[TestResult.from_dict(test) for test in data.get("tests", [])],
            hint=str(data.get("hint", "")),
            tampered=bool(data.get("tampered", False)),
            hints_opened=int(data.get("hints_opened", 0)),
        )


@dataclass
class NotebookNote:
    """Something about a whole notebook: unreadable, missing, or a cell that failed."""

    notebook: str
    message: str

    def __post_init__(self) -> None:
        self.message = clean(self.message, limit=None)

    @property
    def text(self) -> str:
        """The note as every format shows it: ``notebook: message``, or the message alone."""
        return f"{self.notebook}: {self.message}" if self.notebook else self.message


@dataclass
class StudentResult:
    """One learner's result. ``files`` lists the notebook files found in their hand-in,
    graded or not (None where none were looked for, as in ``check``)."""

    student: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    notes: list[NotebookNote] = field(default_factory=list)
    files: list[NotebookFile] | None = None

    def __post_init__(self) -> None:
        self.student = clean_name(self.student)
        if self.files is not None:
            self.files = [
                replace(f, path=clean_name(f.path), why=clean(f.why, limit=None))
                for f in self.files
            ]

    def files_summary(self, chapter: str | None = None) -> str:
        """The files worth a word, in one line for the learner's row: each file graded
        under another name than its chapter's or beside other copies, and each file not
        graded, with why; past :data:`FILES_SAID`, only how many more. ``chapter`` keeps
        that chapter's files and those of no chapter. Empty when there is nothing to say;
        :data:`NO_NOTEBOOK` when the hand-in held none.
        """
        if self.files is None:
            return ""
        if not self.files and chapter is None:
            return NO_NOTEBOOK
        files = [f for f in self.files if chapter is None or f.chapter in (chapter, "")]
        copied = {f.chapter for f in files if not f.graded}
        said = []
        for file in files:
            if not file.graded:
                said.append(f"not graded {file.path} ({file.why})")
            elif file.chapter in copied or Path(file.path).name != f"{file.chapter}.ipynb":
                said.append(f"graded {file.path} as {file.chapter}")
        if len(said) > FILES_SAID:
            said[FILES_SAID:] = [f"and {len(said) - FILES_SAID} more files not graded or renamed"]
        return "; ".join(said)

    @property
    def score(self) -> float:
        return sum(exercise.score for exercise in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(exercise.max_score for exercise in self.exercises)

    @property
    def passed(self) -> int:
        """How many of the exercises passed every test."""
        return sum(exercise.status == "passed" for exercise in self.exercises)

    @property
    def not_passed(self) -> list[ExerciseResult]:
        """The exercises that did not, in order."""
        return [exercise for exercise in self.exercises if exercise.status != "passed"]

    @property
    def started_not_passed(self) -> list[ExerciseResult]:
        """The exercises started that did not pass, in order: what a learner's row lists
        beside :meth:`chapters_not_started`. Those of a damaged notebook are left out:
        nothing in it ran, and :meth:`files_summary` names the file and why."""
        return [e for e in self.not_passed if e.started and e.status != "corrupt"]

    def chapters_not_started(self) -> list[str]:
        """The notebook ids (in course order) of the chapters graded whose every function
        is not started: the learner has not begun them."""
        started: dict[str, bool] = {}
        for exercise in self.exercises:
            chapter = exercise.notebook.removesuffix(".ipynb")
            started[chapter] = started.get(chapter, False) or exercise.started
        return [chapter for chapter, begun in started.items() if not begun]

    def damaged_notebooks(self) -> list[str]:
        """The notebooks graded whose file is damaged (their functions ``corrupt``), in order."""
        return list(dict.fromkeys(e.notebook for e in self.exercises if e.status == "corrupt"))

    def not_started_line(self) -> str:
        """The chapters not started, in one line for the learner's row, feedback and
        summary (``Not started: structure, mapping``); empty when there are none."""
        chapters = self.chapters_not_started()
        return f"Not started: {', '.join(chapters)}" if chapters else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "score": self.score,
            "max_score": self.max_score,
            "exercises": [exercise.to_dict() for exercise in self.exercises],
            "notes": [asdict(note) for note in self.notes],
            **({} if self.files is None else {"files": [asdict(f) for f in self.files]}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StudentResult:
        """Rebuild from :meth:`to_dict`'s output."""
        return cls(
            student=str(data["student"]),
            exercises=[ExerciseResult.from_dict(e) for e in data.get("exercises", [])],
            notes=[NotebookNote(**note) for note in data.get("notes", [])],
            files=None if "files" not in data else [NotebookFile(**f) for f in data["files"]],
        )


def not_passed_cell(student: StudentResult, shown: Callable[[ExerciseResult], str]) -> str:
    """The "Not passed" cell of a learner's row: each function started that did not pass,
    as ``shown`` writes it, and each damaged notebook, then the chapters not started in
    one line."""
    started = [shown(exercise) for exercise in student.started_not_passed]
    damaged = [f"{notebook} (corrupt)" for notebook in student.damaged_notebooks()]
    return "; ".join(filter(None, [", ".join(started + damaged), student.not_started_line()]))


@dataclass
class Report:
    """``isolation`` says what walled the workers off: ``bubblewrap`` or ``process``;
    ``processes`` how their processes were capped; ``seed`` is the one hidden tests
    drew their inputs from; ``call_limit`` how long one call of a learner's function
    could run."""

    students: list[StudentResult]
    isolation: str
    processes: str = "not capped"
    seed: int = 0
    call_limit: str = ""

    @property
    def settings(self) -> str:
        """How the workers ran, in one line for a report's header or footer."""
        limit = f", call limit: {self.call_limit}" if self.call_limit else ""
        return f"isolation: {self.isolation}, processes: {self.processes}, seed: {self.seed}{limit}"

    @property
    def caveats(self) -> str:
        """What of :attr:`settings` an instructor must act on, in one line: the isolation
        where bubblewrap did not wall the workers off, and processes not capped. Empty when
        neither: the rest is jargon in a first view, kept in the JSON and the page's footer.
        The words are those of ``autograder.isolate`` (not imported: the reports are read
        where the grader's isolation is never loaded)."""
        said = [f"isolation: {self.isolation}"] if self.isolation != "bubblewrap" else []
        if self.processes == "not capped":
            said.append(f"processes: {self.processes}")
        return ", ".join(said)

    @property
    def score(self) -> float:
        return sum(student.score for student in self.students)

    @property
    def max_score(self) -> float:
        return sum(student.max_score for student in self.students)

    @property
    def percent(self) -> float:
        return 100.0 * self.score / self.max_score if self.max_score else 100.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "max_score": self.max_score,
            "isolation": self.isolation,
            "processes": self.processes,
            "seed": self.seed,
            "call_limit": self.call_limit,
            "hints_opened": HINTS_RECORD_NOTE,
            "students": [student.to_dict() for student in self.students],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """Rebuild from :meth:`to_dict`'s output (a report written with ``--json``)."""
        return cls(
            students=[StudentResult.from_dict(s) for s in data.get("students", [])],
            isolation=str(data["isolation"]),
            processes=str(data.get("processes", "not capped")),
            seed=int(data.get("seed", 0)),
            call_limit=str(data.get("call_limit", "")),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


def merge_reports(reports: list[Report], names: list[str]) -> Report:
    """One report from the reports of a class's shards (``names`` label them in errors).

    The shards must have been graded alike (same seed, isolation and process cap),
    and no student may appear twice. Raises ValueError otherwise.
    """
    if not reports:
        raise ValueError("no reports to merge")
    first = reports[0]
    seen: dict[str, str] = {}
    for report, name in zip(reports, names, strict=True):
        for field_name in ("seed", "isolation", "processes", "call_limit"):
            if getattr(report, field_name) != getattr(first, field_name):
                raise ValueError(
                    f"{name} was graded with {field_name} {getattr(report, field_name)!r}, "
                    f"{names[0]} with {getattr(first, field_name)!r}"
                )
        for student in report.students:
            if student.student in seen:
                raise ValueError(f"{student.student} is in both {seen[student.student]} and {name}")
            seen[student.student] = name
    students = sorted((s for r in reports for s in r.students), key=lambda s: s.student)
    return Report(students, first.isolation, first.processes, first.seed, first.call_limit)


def read_reports(paths: list[Path]) -> Report:
    """One report from the JSON reports ``paths`` (one, several shards, or a merged one).

    Raises UnusableInput naming the file that is not a report, or why the reports
    cannot be joined (graded otherwise, or a learner in two of them).
    """
    reports = []
    for path in paths:
        try:
            reports.append(Report.from_dict(json.loads(path.read_text(encoding="utf-8"))))
        except FileNotFoundError:
            raise UnusableInput(f"{path}: no such file") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise UnusableInput(f"{path} is not a report written by grade --json ({exc})") from None
    try:
        return reports[0] if len(reports) == 1 else merge_reports(reports, [str(p) for p in paths])
    except ValueError as exc:
        raise UnusableInput(str(exc)) from None
