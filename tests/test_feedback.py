"""Each learner's feedback file: what an instructor hands back."""

from __future__ import annotations

import shutil

from markdown_it import MarkdownIt

from autograder.report.feedback import feedback_filename, to_feedback
from autograder.report.model import ExerciseResult, NotebookNote, StudentResult, TestResult


def learner() -> StudentResult:
    failing = ExerciseResult(
        notebook="leaves.ipynb",
        name="count_leaves",
        max_score=2.0,
        tests=[
            TestResult(
                "test_count_leaves", "error", 0.0, 2.0,
                "count_leaves raised KeyError: 'w'\n  cell, line 2, in count_leaves\n    ```x```",
            )
        ],
        hint="Which function hands you the leaves?",
        hints_opened=2,
    )  # fmt: skip
    passing = ExerciseResult(
        notebook="leaves.ipynb",
        name="leaves_in_order",
        max_score=1.0,
        tests=[TestResult("test_leaves_in_order", "passed", 1.0, 1.0)],
    )
    return StudentResult("<b>ada</b>", [failing, passing], [NotebookNote("leaves.ipynb", "a note")])


def test_feedback_holds_each_functions_result_message_hint_and_hints_opened():
    text = to_feedback(learner())
    assert "**1 / 3** points, 1 of 2 functions passed every test." in text
    assert "`count_leaves`: 0 / 2 (error)" in text and "`leaves_in_order`: 1 / 1 (passed)" in text
    assert "count\\_leaves raised KeyError: 'w'" in text
    assert "- Hint: Which function hands you the leaves?" in text
    assert "- Hints opened, as the notebook records: 2" in text
    assert "leaves.ipynb: a note" in text


def test_a_traceback_is_shown_as_code_and_names_stay_text():
    html = MarkdownIt("commonmark").render(to_feedback(learner()))
    assert "<b>" not in html and "&lt;b&gt;ada&lt;/b&gt;" in html
    code = html.split('<code class="language-text">', 1)[1].split("</code>", 1)[0]
    assert "in count_leaves" in code and "```x```" in code


def test_a_feedback_file_name_cannot_leave_its_folder():
    assert feedback_filename("../../etc/passwd").startswith("_.._etc_passwd~")
    assert "/" not in feedback_filename("ada/../lovelace")


def test_a_name_that_is_safe_as_it_is_names_its_feedback_file():
    assert feedback_filename("ada_lovelace") == "ada_lovelace.md"


def test_names_that_clean_alike_get_feedback_files_of_their_own():
    names = ["a b", "a|b", "a_b", "jo@uni.edu", "jo_uni.edu", "a_b~" + "0" * 12]
    assert len({feedback_filename(name) for name in names}) == len(names)


def test_a_feedback_file_name_stays_within_a_file_systems_limit():
    assert len(feedback_filename("M" * 255).encode()) < 255


def test_grade_writes_one_feedback_file_per_learner(grade, tmp_path, course):
    notebook = course.notebooks[0]
    for student in ("ada", "bob"):
        (tmp_path / "class" / student).mkdir(parents=True)
        shutil.copy(notebook.path, tmp_path / "class" / student / notebook.filename)
    graded = grade(tmp_path / "class", "--assignment", notebook.id, "--feedback", tmp_path / "fb")
    assert graded.returncode == 0, graded.stderr
    assert sorted(p.name for p in (tmp_path / "fb").iterdir()) == ["ada.md", "bob.md"]
    assert "# Feedback for ada" in (tmp_path / "fb" / "ada.md").read_text()
