"""The project's Markdown as it renders: tables that stay tables, commands that run as printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from autograder.load.course import REPO_ROOT

DOCUMENTS = sorted(
    [
        REPO_ROOT / "README.md",
        REPO_ROOT / "AUTHORING.md",
        REPO_ROOT / "learners" / "README.md",
        REPO_ROOT / "benchmarks" / "README.md",
        *(REPO_ROOT / "book").glob("*.md"),
    ]
)
FENCE = re.compile(r"^\s*(```|~~~)")
# An unescaped pipe, outside inline code: where GitHub splits a table row into cells.
CELL_BORDER = re.compile(r"(?<!\\)\|")


def table_lines(text: str) -> list[tuple[int, str]]:
    """(line number from 0, line) of every line outside code fences that starts like a table row."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines()):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.lstrip().startswith("|"):
            lines.append((number, line))
    return lines


def rendered_tables(text: str) -> list[range]:
    """The source lines each table covers, as markdown-it (GFM tables) parses ``text``."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    return [range(*token.map) for token in tokens if token.type == "table_open" and token.map]


def cells(row: str) -> int:
    outside_code = re.sub(r"`[^`]*`", "``", row.strip())
    return len(CELL_BORDER.split(outside_code.strip().strip("|")))


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_table_row_renders_inside_a_table(document: Path):
    text = document.read_text(encoding="utf-8")
    tables = rendered_tables(text)
    stray = [number + 1 for number, _ in table_lines(text) if not any(number in t for t in tables)]
    assert stray == [], f"{document.name}: lines {stray} look like table rows but render as text"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_table_row_has_as_many_cells_as_its_header(document: Path):
    text = document.read_text(encoding="utf-8")
    rows = dict(table_lines(text))
    for table in rendered_tables(text):
        widths = {number + 1: cells(rows[number]) for number in table if number in rows}
        header = widths[table.start + 1]
        assert {n: w for n, w in widths.items() if w != header} == {}, document.name


def test_a_table_broken_by_a_blank_line_is_caught():
    text = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| 3 | 4 |\n"
    tables = rendered_tables(text)
    assert [n for n, _ in table_lines(text) if not any(n in t for t in tables)] == [4]


@pytest.mark.parametrize(
    "document", sorted((REPO_ROOT / "book").glob("*.md")), ids=lambda p: p.name
)
def test_the_grader_commands_the_book_prints_run_without_activating_the_venv(document: Path):
    text = document.read_text(encoding="utf-8")
    bare = [
        line.strip()
        for line in text.splitlines()
        if re.search(r"(?<![/\w.])python -m autograder", line)
    ]
    assert bare == [], f"{document.name}: print .venv/bin/python -m autograder"
