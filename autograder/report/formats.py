"""Writing a report as JUnit XML, Markdown (also used for GitHub's job summary), an
nbgrader-style grades CSV, and Gradescope's results.json."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from autograder.compare.verdicts import MARKS
from autograder.report.model import (
    HINTS_RECORD_NOTE,
    NO_HINTS,
    SUMMARY_COLUMNS,
    ExerciseResult,
    Report,
    StudentResult,
    TestResult,
    not_passed_cell,
)
from autograder.report.text import markdown_cell, spreadsheet_text
from autograder.safe_text import points

NOT_STARTED_WORDS = "not started: the function's cell still holds the exercise's stub"
"""What a format that must say something of a test not run (JUnit, Gradescope) says."""


def to_junit(report: Report) -> str:
    """One ``testsuite`` per student, one ``testcase`` per test cell; a test of a function
    not started is skipped, not failed."""
    suites = ET.Element("testsuites", name="pytrees-hands-on")
    for student in report.students:
        tests = [(exercise, test) for exercise in student.exercises for test in exercise.tests]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=student.student,
            tests=str(len(tests)),
            failures=str(
                sum(t.outcome not in ("passed", "error", "not-started") for _, t in tests)
            ),
            errors=str(sum(t.outcome == "error" for _, t in tests)),
            skipped=str(sum(t.outcome == "not-started" for _, t in tests)),
        )
        if files := student.files_summary():
            properties = ET.SubElement(suite, "properties")
            ET.SubElement(properties, "property", name="files", value=files)
        for exercise, test in tests:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"{student.student}.{exercise.notebook.removesuffix('.ipynb')}",
                name=f"{exercise.name}::{test.name}",
            )
            ET.SubElement(case, "properties").extend(
                [
                    ET.Element("property", name="points", value=points(test.points)),
                    ET.Element("property", name="max_points", value=points(test.max_points)),
                ]
            )
            if test.outcome == "not-started":
                ET.SubElement(case, "skipped", message=NOT_STARTED_WORDS)
            elif test.outcome == "error":
                ET.SubElement(
                    case, "error", message=test.message, type=test.outcome
                ).text = test.message
            elif test.outcome != "passed":
                said = test.message or _unsaid(student, exercise.notebook, test.outcome)
                ET.SubElement(case, "failure", message=said, type=test.outcome).text = said
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _unsaid(student: StudentResult, notebook: str, outcome: str) -> str:
    """What a failure with no message of its own says: a damaged notebook's tests carry
    none (its learner's row names the file once), and a JUnit reader sees only the test."""
    if outcome != "corrupt":
        return ""
    chapter = notebook.removesuffix(".ipynb")
    return student.files_summary(chapter) or f"{notebook} is damaged: re-save or re-download it"


def to_markdown(report: Report, class_part: str = "", class_top: str = "") -> str:
    """The report's summary in Markdown (GitHub's flavour): ``class_top``, then the score
    table, then ``class_part`` (both Markdown, put there as they are), then what each
    learner did not pass and the hints they opened. How the grader ran is said only
    where an instructor must act on it (:attr:`Report.caveats`; the JSON report has it
    all). The summary grading writes, with the class's short version as ``class_part``
    and its chapters as ``class_top``, is
    :func:`autograder.report.class_summary.markdown_summary`.
    """
    caveats = f" Graded with {report.caveats}." if report.caveats else ""
    top = [class_top.rstrip("\n"), ""] if class_top else []
    lines = [
        "## Grading report",
        "",
        f"**{points(report.score)} / {points(report.max_score)}** points "
        f"({report.percent:.1f}%) for {len(report.students)} submission(s).{caveats}",
        "",
        *top,
        f"| {' | '.join(SUMMARY_COLUMNS)} |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for student in report.students:
        others = markdown_cell(
            not_passed_cell(student, lambda e: f"{MARKS[e.status]} `{e.name}` ({e.status})")
        )
        lines.append(
            f"| {markdown_cell(student.student)} "
            f"| {points(student.score)} / {points(student.max_score)} "
            f"| {student.passed} / {len(student.exercises)} | {others or '—'} "
            f"| {markdown_cell(student.files_summary()) or '—'} |"
        )
    if class_part:
        lines += ["", class_part.rstrip("\n")]
    for student in report.students:
        details = student.started_not_passed
        not_started = student.not_started_line()
        if not details and not student.notes and not not_started:  # a damaged file has a note
            continue
        lines += ["", f"### {markdown_cell(student.student)}", ""]
        if not_started:
            lines.append(f"- {MARKS['not-started']} {markdown_cell(not_started)}")
        for notebook in student.damaged_notebooks():
            lines.append(f"- {MARKS['corrupt']} **{markdown_cell(notebook)}** (corrupt)")
        for exercise in details:
            message = exercise.first_message
            mark = MARKS[exercise.status]
            title = markdown_cell(f"{exercise.notebook} · {exercise.name}")
            lines.append(f"- {mark} **{title}**: {markdown_cell(message)}")
            if exercise.hint:
                lines.append(f"  - Hint: {markdown_cell(exercise.hint)}")
        for note in student.notes:
            lines.append(f"- ℹ️ {markdown_cell(note.text)}")
    lines += ["", "### Hints opened", "", HINTS_RECORD_NOTE, ""]
    if not any(e.hints_opened for student in report.students for e in student.exercises):
        return "\n".join([*lines, NO_HINTS]) + "\n"
    lines += ["| Student | Hints opened, per function |", "| --- | --- |"]
    for student in report.students:
        lines.append(
            f"| {markdown_cell(student.student)} | {_hints_summary(student.exercises) or '—'} |"
        )
    return "\n".join(lines) + "\n"


def _hints_summary(exercises: list[ExerciseResult]) -> str:
    """``fn: n`` for every function with hints opened, in the report's order."""
    return markdown_cell(
        ", ".join(f"`{e.name}`: {e.hints_opened}" for e in exercises if e.hints_opened)
    )


# The columns of ``nbgrader export``'s grades.csv, so gradebook tools that read
# nbgrader's export read this file too.
CSV_COLUMNS = (
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
)
# One column after nbgrader's: the hints each function's learner opened, as their
# notebook records them (a record the learner could edit, as the name says).
HINTS_COLUMN = "hints_opened (as the notebook records them; learner-editable)"
# And which of the learner's files was graded for the assignment, where that needs saying:
# one under another name, or one of several copies (see StudentResult.files_summary).
FILES_COLUMN = "files (graded, and not graded)"
# And the functions whose cell still holds the stub: "all" for a chapter not started.
NOT_STARTED_COLUMN = "not started"


def to_csv(report: Report) -> str:
    """One row per student and exercise notebook (nbgrader's assignment), sorted."""
    rows = []
    for student in report.students:
        notebooks: dict[str, list[float]] = {}
        functions: dict[str, list[ExerciseResult]] = {}
        for exercise in student.exercises:
            assignment = exercise.notebook.removesuffix(".ipynb")
            totals = notebooks.setdefault(assignment, [0.0, 0.0])
            totals[0] += exercise.score
            totals[1] += exercise.max_score
            functions.setdefault(assignment, []).append(exercise)
        for assignment, (score, max_score) in notebooks.items():
            rows.append(
                {
                    "assignment": assignment,
                    "student_id": spreadsheet_text(student.student),
                    "raw_score": points(score),
                    "late_submission_penalty": "0",
                    "score": points(score),
                    "max_score": points(max_score),
                    HINTS_COLUMN: " ".join(
                        f"{e.name}={e.hints_opened}"
                        for e in functions[assignment]
                        if e.hints_opened
                    ),
                    FILES_COLUMN: spreadsheet_text(student.files_summary(assignment)),
                    NOT_STARTED_COLUMN: _not_started_cell(functions[assignment]),
                }
            )
    rows.sort(key=lambda row: (row["assignment"], row["student_id"]))
    out = io.StringIO()
    columns = (*CSV_COLUMNS, HINTS_COLUMN, FILES_COLUMN, NOT_STARTED_COLUMN)
    writer = csv.DictWriter(out, columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _not_started_cell(exercises: list[ExerciseResult]) -> str:
    """The functions of one notebook not started, by name; ``all`` when none is started."""
    names = [exercise.name for exercise in exercises if not exercise.started]
    return "all" if names and len(names) == len(exercises) else " ".join(names)


# Gradescope's visibilities: shown at once, or once the instructor publishes the grades.
SHOWN_AT_ONCE = "visible"
SHOWN_WHEN_PUBLISHED = "after_published"


def to_gradescope(report: Report) -> str:
    """Gradescope's ``results.json`` for a report of exactly one learner.

    One test per test cell, named ``notebook › function › test cell``, with its
    points and the report's own message as output. A result that tells something
    about hidden tests is shown when grades are published, the others at once; the
    total waits for publication whenever one of them does.
    The top-level output holds the notes on the notebooks; the grader's console
    output (stdout) is for instructors only. Raises ValueError for any other number
    of learners: Gradescope takes one submission per results.json.
    """
    if len(report.students) != 1:
        raise ValueError(f"Gradescope takes one learner's results, not {len(report.students)}")
    student = report.students[0]
    tests = [_gradescope_test(e, test) for e in student.exercises for test in e.tests]
    waiting = any(test["visibility"] == SHOWN_WHEN_PUBLISHED for test in tests)
    results = {
        "score": student.score,
        "output": _gradescope_output(student, tests),
        # The total tells what the waiting tests scored, so it waits with them. Gradescope's
        # specification (gradescope-autograders.readthedocs.io/en/latest/specs/, "Controlling
        # test case visibility"): the top-level visibility applies to the submission, each
        # test's own overrides it, and while tests are hidden learners do not see the total.
        "visibility": SHOWN_WHEN_PUBLISHED if waiting else SHOWN_AT_ONCE,
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    return json.dumps(results, indent=2, ensure_ascii=False) + "\n"


def _gradescope_test(exercise: ExerciseResult, test: TestResult) -> dict[str, object]:
    return {
        "name": f"{exercise.notebook} › {exercise.name} › {test.name}",
        "score": test.points,
        "max_score": test.max_points,
        "status": "passed" if test.outcome == "passed" else "failed",
        "output": test.message or (NOT_STARTED_WORDS if test.outcome == "not-started" else ""),
        "visibility": SHOWN_WHEN_PUBLISHED if test.hidden else SHOWN_AT_ONCE,
    }


def _gradescope_output(student: StudentResult, tests: list[dict[str, object]]) -> str:
    lines = []
    waiting = sum(test["visibility"] == SHOWN_WHEN_PUBLISHED for test in tests)
    if waiting:
        lines.append(
            f"{waiting} of {len(tests)} results depend on hidden tests: "
            "they are shown once grades are published."
        )
    if files := student.files_summary():
        lines.append(f"Files: {files}")
    if not_started := student.not_started_line():
        lines.append(not_started)
    lines += [note.text for note in student.notes]
    return "\n".join(lines)


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def append_text(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
