"""A report's text cannot inject: a hostile folder name or message, written in every format."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET

from markdown_it import MarkdownIt
from rich.console import Console

from autograder.report import console, formats
from autograder.report.model import ExerciseResult, NotebookNote, Report, StudentResult, TestResult
from autograder.report.text import markdown_cell, spreadsheet_text

HOSTILE = '=HYPERLINK("http://evil")|<img src=x onerror=alert(1)>[click](http://evil)[red]x'
MESSAGE = "f raised ValueError: <script>alert(1)</script> | [bold]loud[/bold] ![i](http://evil)"


def report(name: str = HOSTILE, message: str = MESSAGE) -> Report:
    test = TestResult("test_f", "error", 0.0, 1.0, message)
    exercise = ExerciseResult(notebook="nb.ipynb", name="f", max_score=1.0, tests=[test])
    student = StudentResult(name, [exercise], [NotebookNote("nb.ipynb", message)])
    other = StudentResult("ada", [ExerciseResult(notebook="nb.ipynb", name="f", max_score=1.0)])
    return Report(students=[student, other], isolation="bubblewrap", processes="128", seed=0)


def rendered_html(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_markdown_shows_a_hostile_name_and_message_as_text():
    html = rendered_html(formats.to_markdown(report()))
    assert "<img" not in html and "<script" not in html and "<a " not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_a_pipe_in_a_name_does_not_add_a_table_cell():
    tokens = MarkdownIt("commonmark").enable("table").parse(formats.to_markdown(report()))
    cells, row_cells = [], 0
    for token in tokens:
        if token.type == "tr_open":
            row_cells = 0
        elif token.type in ("td_open", "th_open"):
            row_cells += 1
        elif token.type == "tr_close":
            cells.append(row_cells)
    assert cells[:3] == [5, 5, 5]  # the header and both learners


def test_code_spans_keep_their_backticks_and_lose_only_their_pipes():
    assert markdown_cell("use `a|b` here") == "use `a\\|b` here"


def test_a_run_of_backticks_in_a_message_opens_no_code_span_that_lets_html_through():
    html = rendered_html(markdown_cell("it raised ```<script>alert(1)</script> ` <b>"))
    assert "<script" not in html and "<b>" not in html


def test_a_csv_cell_never_starts_a_formula():
    rows = list(csv.DictReader(io.StringIO(formats.to_csv(report()))))
    assert all(not row["student_id"].startswith(("=", "+", "-", "@")) for row in rows)
    assert spreadsheet_text("-1") == "'-1" and spreadsheet_text("ada") == "ada"


def test_junit_is_well_formed_xml_with_the_name_as_text():
    suites = ET.fromstring(formats.to_junit(report()))
    assert suites.find("testsuite").get("name") == HOSTILE


def test_the_terminal_shows_markup_in_names_and_messages_as_text():
    out = Console(file=io.StringIO(), width=400, color_system=None)
    console.print_student(out, report().students[0])
    shown = out.file.getvalue()
    assert "[red]x" in shown and "[bold]loud[/bold]" in shown
