"""The grading report: what every output format (JSON, JUnit, Markdown, the console) is made from.

The report holds no timings or absolute paths, so grading the same submission
twice gives the same report.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

STATUSES = ("passed", "failed", "error", "missing", "timeout", "memory", "crashed")
STATUS_MARKS = {
    "passed": "✅",
    "failed": "❌",
    "error": "⚠️",
    "missing": "❔",
    "timeout": "⏱️",
    "memory": "💾",
    "crashed": "💥",
}


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class, despite the name

    name: str
    outcome: str
    points: float
    max_points: float
    message: str = ""


@dataclass
class ExerciseResult:
    """One graded function of one notebook."""

    notebook: str
    name: str
    max_score: float
    tests: list[TestResult] = field(default_factory=list)
    hint: str = ""
    tampered: bool = False

    @property
    def score(self) -> float:
        return sum(test.points for test in self.tests)

    @property
    def status(self) -> str:
        outcomes = {test.outcome for test in self.tests}
        for status in ("missing", "crashed", "memory", "timeout", "error", "failed"):
            if status in outcomes:
                return status
        return "passed" if self.tests else "missing"

    def to_dict(self) -> dict[str, Any]:
        return {
            "notebook": self.notebook,
            "name": self.name,
            "score": self.score,
            "max_score": self.max_score,
            "status": self.status,
            "hint": self.hint,
            "tampered": self.tampered,
            "tests": [asdict(test) for test in self.tests],
        }


@dataclass
class NotebookNote:
    """Something about a whole notebook: unreadable, missing, or a cell that failed."""

    notebook: str
    message: str


@dataclass
class StudentResult:
    student: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    notes: list[NotebookNote] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(exercise.score for exercise in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(exercise.max_score for exercise in self.exercises)

    def to_dict(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "score": self.score,
            "max_score": self.max_score,
            "exercises": [exercise.to_dict() for exercise in self.exercises],
            "notes": [asdict(note) for note in self.notes],
        }


@dataclass
class Report:
    """``isolation`` says what walled the workers off: ``bubblewrap`` or ``process``;
    ``processes`` how their processes were capped; ``seed`` is the one hidden tests
    drew their inputs from."""

    students: list[StudentResult]
    isolation: str
    processes: str = "not capped"
    seed: int = 0

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
            "students": [student.to_dict() for student in self.students],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
