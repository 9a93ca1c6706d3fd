"""Whatever text a learner controls, every report format is written and stays well-formed.

Hypothesis draws the text of every field a learner controls (their folder's name, the
names of their files and why they were not graded, a note, a test's message) from all
of Unicode, lone surrogates and non-characters included, and mixes in the characters
each format gives a meaning to. Each example builds the report with the model's own
classes, writes it in one format as the grader does, and reads it back with that
format's own reader.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from rich.console import Console

from autograder.load.course import SOLUTIONS, load_course
from autograder.load.handed_in import NotebookFile
from autograder.report import console, formats
from autograder.report.feedback import to_feedback
from autograder.report.gradebook import write_gradebook
from autograder.report.insight.page import class_page
from autograder.report.model import (
    ExerciseResult,
    NotebookNote,
    Report,
    StudentResult,
    TestResult,
    read_reports,
)
from autograder.safe_text import clean

COURSE = load_course(SOLUTIONS).only(["leaves"])
NOTEBOOK = COURSE.notebooks[0]

# What some format reads as more than text: XML's and HTML's markup, Markdown's, a
# table's cell separator, a spreadsheet's formula, a terminal's escape, line ends, and
# what UTF-8 or XML cannot hold at all.
MEANINGFUL = list("<>&\"'|`*_[]()!#-+=@\\\n\r\t\x00\x1b\x07\x85\u2028\ufeff") + [
    "\ud800",
    "\udcff",
    "\ufffe",
    "\uffff",
    "\U0010ffff",
    "\ufdd0",
    "1.",
    "```",
    "\x1b[2J",
    "\x1b]0;x\x07",
    "<script>",
    "-->",
    "]]>",
]
ANY_CHARACTER = st.characters(exclude_categories=())  # surrogates (Cs) included
TEXT = st.lists(st.one_of(ANY_CHARACTER, st.sampled_from(MEANINGFUL)), max_size=20).map("".join)


@st.composite
def learner_texts(draw: st.DrawFn) -> dict[str, str]:
    return {
        field: draw(TEXT) for field in ("student", "note", "file", "why", "message", "traceback")
    }


def learner(texts: dict[str, str]) -> StudentResult:
    """A learner whose every field a learner controls holds ``texts``."""
    message = f"{texts['message']}\n{texts['traceback']}"
    exercises = [
        ExerciseResult(
            notebook=NOTEBOOK.filename,
            name=function.name,
            max_score=function.points,
            tests=[
                TestResult(test.grade_id, outcome, 0.0, test.points, message, hidden=False)
                for test, outcome in zip(function.tests, ("failed", "error"), strict=False)
            ],
            hint=function.hints[0] if function.hints else "",
        )
        for function in NOTEBOOK.functions
    ]
    files = [
        NotebookFile(texts["file"], NOTEBOOK.id, graded=True),
        NotebookFile(texts["file"] + ".ipynb", "", graded=False, why=texts["why"]),
    ]
    return StudentResult(texts["student"], exercises, [NotebookNote("", texts["note"])], files)


PLAIN = "~plain"


def build(*learners: dict[str, str]) -> Report:
    """A class: a learner for each of ``learners``' texts, then a plain one."""
    plain = StudentResult(PLAIN, [ExerciseResult(NOTEBOOK.filename, "count_leaves", 2.0)])
    students = [*map(learner, learners), plain]
    return Report(students, isolation="bubblewrap", processes="128 tasks", seed=0)


def shaped(texts: dict[str, str]) -> dict[str, str]:
    """``texts`` as plain as can be with the same lines and spaces: what a report of them
    must look like, structure for structure."""
    return {field: re.sub(r"\S", "x", clean(text, limit=None)) for field, text in texts.items()}


def written(path: Path, text: str) -> bytes:
    """``text`` written as the grader writes every format, read back as bytes."""
    formats.write_text(path, text)
    return path.read_bytes()


EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("formats")


@EXAMPLES
@given(learner_texts())
def test_the_json_report_reads_back_as_the_same_report(folder, texts):
    report = build(texts)
    data = json.loads(written(folder / "r.json", report.to_json()))
    assert Report.from_dict(data).to_dict() == report.to_dict()


@EXAMPLES
@given(learner_texts())
def test_junit_is_xml_an_xml_parser_accepts_with_each_learner_one_suite(folder, texts):
    report = build(texts)
    suites = ET.fromstring(written(folder / "r.xml", formats.to_junit(report)))
    assert [suite.get("name") for suite in suites] == [s.student for s in report.students]
    failures = suites.findall("testsuite/testcase/failure") + suites.findall(
        "testsuite/testcase/error"
    )
    assert {f.get("message") for f in failures} == {report.students[0].exercises[0].first_message}


@EXAMPLES
@given(learner_texts())
def test_the_csv_reads_back_with_one_row_per_learner_and_notebook_and_every_column(folder, texts):
    report = build(texts)
    text = written(folder / "r.csv", formats.to_csv(report)).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + len(report.students)
    assert {len(row) for row in rows} == {len(rows[0])}


def tokens(markdown: str) -> list:
    return MarkdownIt("commonmark").enable("table").parse(markdown)


def blocks(parsed: list) -> list[str]:
    """The block structure: every token but the text inside blocks."""
    return [t.type for t in parsed if t.type != "inline"]


def no_markup_from_text(parsed: list) -> None:
    """No HTML, link or image: the report writes none, so any would come from the text."""
    inline = [child.type for t in parsed if t.type == "inline" for child in t.children or []]
    found = [t for t in inline if t in ("html_inline", "link_open", "image")]
    assert found == [] and "html_block" not in blocks(parsed)


@EXAMPLES
@given(learner_texts())
def test_the_markdown_summary_keeps_its_tables_columns_and_its_lists_items(folder, texts):
    plain = blocks(tokens(formats.to_markdown(build(shaped(texts)))))
    parsed = tokens(written(folder / "r.md", formats.to_markdown(build(texts))).decode())
    assert blocks(parsed) == plain
    no_markup_from_text(parsed)


@EXAMPLES
@given(learner_texts())
def test_a_feedback_file_keeps_its_headings_items_and_code_blocks(folder, texts):
    plain = blocks(tokens(to_feedback(build(shaped(texts)).students[0])))
    text = written(folder / "f.md", to_feedback(build(texts).students[0])).decode()
    parsed = tokens(text)
    assert blocks(parsed) == plain
    no_markup_from_text(parsed)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, sorted(name for name, _ in attrs)))


def elements(page: bytes) -> list[tuple[str, list[str]]]:
    parser = _Elements()
    parser.feed(page.decode("utf-8"))
    parser.close()
    return parser.elements


@pytest.mark.slow  # the page draws its charts for every example
@settings(EXAMPLES, max_examples=8)
@given(learner_texts())
def test_the_class_page_shows_the_text_and_makes_no_element_or_attribute_of_it(folder, texts):
    plain = class_page(build(shaped(texts)), ["r.json"], "https://book.example")
    page = class_page(build(texts), ["r.json"], "https://book.example")
    assert elements(written(folder / "c.html", page)) == elements(plain.encode())


# Control characters: C0 but tab and newline, DEL, and C1 (ESC and CSI among them).
CONTROLS = {*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0))} - {"\t", "\n"}


@EXAMPLES
@given(learner_texts())
def test_the_terminal_gets_no_control_character(texts):
    report = build(texts)
    out = Console(file=io.StringIO(), width=120, color_system=None)
    console.print_report(out, report)
    console.print_student(out, report.students[0])
    console.print_feedback(out, report.students[0])
    printed = out.file.getvalue()
    assert CONTROLS.isdisjoint(printed)
    printed.encode("utf-8")


@EXAMPLES
@given(learner_texts())
def test_gradescopes_results_json_reads_back(folder, texts):
    report = build(texts)
    one = Report(report.students[:1], report.isolation, report.processes)
    data = json.loads(written(folder / "results.json", formats.to_gradescope(one)))
    assert len(data["tests"]) == sum(len(e.tests) for e in one.students[0].exercises)


# Writing a gradebook takes nbgrader many seconds: a few examples of several learners each.
@pytest.mark.slow
@settings(EXAMPLES, max_examples=2, phases=[Phase.generate])
@given(
    st.lists(
        learner_texts(),
        min_size=6,
        max_size=6,
        unique_by=lambda texts: clean(texts["student"], limit=None),
    )
)
def test_the_gradebook_records_each_learner_by_their_name(folder, learners):
    report = build(*(texts for texts in learners if clean(texts["student"]) != PLAIN))
    database = folder / "gradebook.db"
    database.unlink(missing_ok=True)
    write_gradebook(report, COURSE, f"sqlite:///{database}")
    with sqlite3.connect(database) as connection:
        ids = [row[0] for row in connection.execute("SELECT id FROM student ORDER BY id")]
    assert sorted(ids) == sorted(s.student for s in report.students)


def test_a_report_read_back_is_cleaned_as_grading_cleans_it(folder):
    raw = {
        "isolation": "bubblewrap",
        "students": [
            {
                "student": "ada\ud800\ufffe",
                "notes": [{"notebook": "", "message": "\x1b[2Jsee \udcff"}],
                "files": [{"path": "notes-\udcff.ipynb", "chapter": "", "graded": False}],
            }
        ],
    }
    (folder / "old.json").write_text(json.dumps(raw), encoding="ascii")
    (student,) = read_reports([folder / "old.json"]).students
    assert (student.student, student.notes[0].message) == ("ada\ufffd\ufffd", "see \ufffd")
    assert student.files[0].path == "notes-\ufffd.ipynb"
