"""A class's report on the terminal and in the Markdown summary opens with its chapters
(handed in, started, mean of those who started), and says how the grader ran only where
an instructor must act on it."""

from __future__ import annotations

from rich.console import Console

from autograder.report import console
from autograder.report.class_summary import markdown_summary
from autograder.report.model import ExerciseResult, Report, StudentResult, TestResult

CAPPED = "128 tasks (cgroup), one CPU weight"


def learner(name: str, leaves: str, structure: str) -> StudentResult:
    def exercise(notebook: str, outcome: str) -> ExerciseResult:
        earned = 1.0 if outcome == "passed" else 0.0
        test = TestResult("t", outcome, earned, 1.0)
        return ExerciseResult(notebook, notebook.removesuffix(".ipynb"), 1.0, [test])

    return StudentResult(
        name, [exercise("leaves.ipynb", leaves), exercise("structure.ipynb", structure)]
    )


def mid_course(isolation: str = "bubblewrap", processes: str = CAPPED) -> Report:
    """Leaves: handed in and started by all three, one passed; structure: bob has not
    started it, cy did not hand it in."""
    students = [
        learner("ada", "passed", "passed"),
        learner("bob", "failed", "not-started"),
        learner("cy", "failed", "missing"),
    ]
    return Report(students, isolation, processes)


def printed(report: Report) -> str:
    out = Console(record=True, width=200, color_system=None)
    console.print_report(out, report)
    return out.export_text()


CHAPTER_ROWS = [
    ["Leaves", "3 of 3", "3 of 3", "33%"],
    ["Structure", "2 of 3", "1 of 3", "100%"],
]


def test_the_summary_opens_with_each_chapters_hand_ins_before_the_score_table():
    summary = markdown_summary(mid_course())
    chapters = summary.split("### Chapters\n\n", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("| ").split(" | ") for line in chapters.splitlines()[2:]]
    assert rows == CHAPTER_ROWS
    assert summary.index("### Chapters") < summary.index("| Student |")


def test_the_terminal_prints_the_chapters_before_the_grades():
    text = printed(mid_course())
    rows = [
        [cell.strip() for cell in line.strip("│").split("│")]
        for line in text.split("Grades")[0].splitlines()
        if line.startswith("│")
    ]
    assert rows == CHAPTER_ROWS


def test_one_learners_report_has_no_chapters_table():
    one = mid_course()
    one.students = one.students[:1]
    assert "Chapters" not in printed(one) and "### Chapters" not in markdown_summary(one)


def test_the_terminal_says_nothing_of_a_grading_walled_off_and_capped():
    text = printed(mid_course())
    assert "isolation" not in text and "128 tasks" not in text


def test_the_terminal_says_where_grading_was_not_walled_off_or_not_capped():
    text = printed(mid_course("not isolated: root without bubblewrap", "not capped"))
    assert text.splitlines()[-1] == (
        "Graded with isolation: not isolated: root without bubblewrap, processes: not capped."
    )


def test_the_summary_says_nothing_of_a_grading_walled_off_and_capped():
    summary = markdown_summary(mid_course())
    assert "isolation" not in summary and "128 tasks" not in summary


def test_the_summary_says_under_its_score_where_grading_was_not_walled_off_or_not_capped():
    summary = markdown_summary(mid_course("process", "not capped"))
    assert summary.splitlines()[2].endswith(
        "Graded with isolation: process, processes: not capped."
    )


def test_with_no_hint_opened_the_summary_says_so_in_a_sentence():
    summary = markdown_summary(mid_course())
    hints = summary.split("### Hints opened\n", 1)[1]
    assert "| Student |" not in hints
    assert hints.rstrip().endswith("No learner's notebook records a hint opened.")


def test_the_summary_tables_the_hints_opened_where_a_learner_opened_one():
    report = mid_course()
    report.students[0].exercises[0].hints_opened = 2
    hints = markdown_summary(report).split("### Hints opened\n", 1)[1]
    assert "| ada | `leaves`: 2 |" in hints.splitlines()


def test_the_pass_rates_leave_out_the_functions_no_learner_started_and_say_how_many():
    students = [learner(name, "failed", "not-started") for name in ("ada", "bob")]
    rates = markdown_summary(Report(students, "bubblewrap", CAPPED)).split("Pass rates")[1]
    rows = [line for line in rates.split("\n### ")[0].splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[1] for row in rows[2:]] == ["`leaves`"]
    assert "1 function(s) that no learner started are left out." in rates
