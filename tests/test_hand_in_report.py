"""Every format says, on the learner's own row, which file was graded and which were not;
a damaged notebook's functions are ``corrupt`` in every format."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

from autograder.load.course import SOLUTIONS, load_course
from autograder.report import console, feedback, formats
from autograder.report.model import (
    FILES_SAID,
    ExerciseResult,
    NotebookNote,
    Report,
    StudentResult,
    TestResult,
)
from autograder.report.text import markdown_cell

COPY = "exercises/aux_data/aux_data-Copy1.ipynb"
ORIGINAL = "exercises/aux_data/aux_data.ipynb"
WHY = "fewer answered cells"
SAID = f"graded {COPY} as aux_data; not graded {ORIGINAL} ({WHY})"


def files_of(dicts: list[dict]) -> list:
    from autograder.load.handed_in import NotebookFile

    return [NotebookFile(**d) for d in dicts]


def carol(status: str = "passed") -> StudentResult:
    points = 1.0 if status == "passed" else 0.0
    exercise = ExerciseResult(
        notebook="aux_data.ipynb",
        name="split_static",
        max_score=1.0,
        tests=[TestResult("test_split_static", status, points, 1.0)],
    )
    files = files_of(
        [
            {"path": COPY, "chapter": "aux_data", "graded": True, "why": ""},
            {
                "path": ORIGINAL,
                "chapter": "aux_data",
                "graded": False,
                "why": "fewer answered cells",
            },
        ]
    )
    return StudentResult("carol", [exercise], [], files)


def plain(name: str) -> StudentResult:
    """A learner who handed in the chapter's own file, and nothing else."""
    exercise = ExerciseResult("aux_data.ipynb", "split_static", 1.0)
    files = files_of([{"path": "aux_data.ipynb", "chapter": "aux_data", "graded": True, "why": ""}])
    return StudentResult(name, [exercise], [], files)


def class_report(*students: StudentResult) -> Report:
    return Report(list(students or (carol(), plain("dan"))), "bubblewrap", "128", 0)


def printed(report: Report) -> str:
    out = Console(record=True, width=400, color_system=None)
    console.print_report(out, report)
    return out.export_text()


def test_the_class_table_says_on_a_learners_row_which_files_were_graded():
    rows = [line for line in printed(class_report()).splitlines() if "carol" in line]
    assert len(rows) == 1 and SAID in rows[0]


def test_a_narrow_terminal_folds_the_files_column_and_never_cuts_a_name():
    out = Console(record=True, width=80, color_system=None)
    console.print_report(out, class_report())
    files_column = "".join(
        line.split("│")[5].strip()
        for line in out.export_text().splitlines()
        if line.count("│") == 6
    )
    assert COPY in files_column and ORIGINAL in files_column


def test_a_learner_who_handed_in_the_chapters_own_file_has_nothing_said():
    assert class_report().students[1].files_summary() == ""


def test_one_learners_report_says_which_files_were_graded_above_the_table():
    text = printed(class_report(carol()))
    assert text.index(SAID) < text.index("split_static")


def test_the_markdown_summary_row_says_which_files_were_graded():
    rows = [
        line
        for line in formats.to_markdown(class_report()).splitlines()
        if line.startswith("| carol |")
    ]
    assert markdown_cell(SAID) in rows[0]  # the summary's row; the hints table's comes after


def test_the_feedback_file_says_which_files_were_graded_under_the_score():
    lines = feedback.to_feedback(carol()).splitlines()
    head = lines[: lines.index("## aux\\_data.ipynb")]
    assert f"Files: {markdown_cell(SAID)}" in head


def test_the_csv_row_of_the_chapter_says_which_files_were_graded():
    rows = list(csv.DictReader(io.StringIO(formats.to_csv(class_report()))))
    by_student = {row["student_id"]: row[formats.FILES_COLUMN] for row in rows}
    assert by_student == {"carol": SAID, "dan": ""}


def damaged(*paths: str, chapter: str = "") -> StudentResult:
    files = [{"path": p, "chapter": chapter, "graded": False, "why": "damaged"} for p in paths]
    return StudentResult(
        "eve", [ExerciseResult("aux_data.ipynb", "split_static", 1.0)], [], files_of(files)
    )


def test_the_csv_row_of_each_chapter_names_a_file_of_no_chapter():
    rows = list(csv.DictReader(io.StringIO(formats.to_csv(class_report(damaged("notes.ipynb"))))))
    assert [row[formats.FILES_COLUMN] for row in rows] == ["not graded notes.ipynb (damaged)"]


def test_a_row_names_a_few_files_and_counts_the_rest():
    said = damaged(*(f"f{i}.ipynb" for i in range(3000)), chapter="aux_data").files_summary()
    assert said.count("not graded f") == FILES_SAID
    assert said.endswith(f"and {3000 - FILES_SAID} more files not graded or renamed")


def test_the_junit_suite_of_the_learner_says_which_files_were_graded():
    suites = ET.fromstring(formats.to_junit(class_report()))
    carols = suites.find("./testsuite[@name='carol']/properties/property[@name='files']")
    assert carols is not None and carols.get("value") == SAID
    assert suites.find("./testsuite[@name='dan']/properties") is None


def test_gradescope_output_says_which_files_were_graded():
    output = json.loads(formats.to_gradescope(class_report(carol())))["output"]
    assert f"Files: {SAID}" in output.splitlines()


def test_the_json_report_lists_every_file_and_reads_back():
    report = class_report()
    data = json.loads(report.to_json())
    assert data["students"][0]["files"][1] == {
        "path": ORIGINAL,
        "chapter": "aux_data",
        "graded": False,
        "why": WHY,
    }
    assert Report.from_dict(data) == report


def test_a_hand_in_with_no_notebook_says_so_on_its_row():
    nobody = StudentResult("sub", [ExerciseResult("aux_data.ipynb", "split_static", 1.0)], [], [])
    rows = [line for line in printed(class_report(carol(), nobody)).splitlines() if "sub" in line]
    assert "no notebook to grade" in rows[0]


def test_the_gradebook_comments_which_files_were_graded(tmp_path):
    from nbgrader.api import Gradebook

    from autograder.report.gradebook import write_gradebook

    course = load_course(SOLUTIONS).only(["aux_data"])
    function = course.notebooks[0].functions[0].name
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    write_gradebook(class_report(), course, url)
    with Gradebook(url) as gradebook:
        comment = gradebook.find_comment(function, "aux_data", "aux_data", "carol")
        assert comment.auto_comment == f"Files: {SAID}"


def corrupt_report() -> Report:
    student = carol("corrupt")
    student.notes.append(
        NotebookNote(
            "aux_data.ipynb",
            "the notebook file aux_data-Copy1.ipynb is damaged (its JSON is cut off or broken "
            "at line 1, column 12): re-save or re-download it",
        )
    )
    return class_report(student)


@pytest.mark.parametrize(
    "write",
    [
        printed,
        formats.to_markdown,
        lambda report: feedback.to_feedback(report.students[0]),
        formats.to_junit,
        lambda report: report.to_json(),
    ],
    ids=["terminal", "markdown", "feedback", "junit", "json"],
)
def test_a_damaged_notebooks_functions_are_corrupt_in_every_format(write):
    report = corrupt_report()
    assert report.students[0].exercises[0].status == "corrupt"
    text = write(report)
    assert "corrupt" in text
    assert text.count("re-save or re-download it") == (0 if write is formats.to_junit else 1)


def test_a_damaged_notebooks_junit_failures_name_the_file_and_what_to_do():
    test = TestResult("test_split_static", "corrupt", 0, 1, "", False)
    student = damaged("aux_data.ipynb", chapter="aux_data")
    student.exercises[0].tests.append(test)
    failure = ET.fromstring(formats.to_junit(class_report(student))).find(".//failure")
    assert failure is not None and "aux_data.ipynb" in failure.get("message", "")
