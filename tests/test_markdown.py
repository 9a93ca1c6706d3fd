"""The project's Markdown as it renders: tables that stay tables, commands that run as printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from autograder.cli import main
from autograder.load.course import REPO_ROOT
from autograder.report import formats
from autograder.report.class_summary import markdown_summary
from autograder.report.model import (
    ExerciseResult,
    Report,
    StudentResult,
    TestPointer,
    TestResult,
)

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


# The class's short version in the grading summary (``grade``/``merge --markdown`` and
# GitHub's job summary), for a class made by hand.
CONTAINERS = TestPointer(
    "leaves#containers-and-leaves", "leaves", "Containers and leaves", "containers-and-leaves"
)
REGISTRY = TestPointer("leaves#the-registry", "leaves", "The registry", "the-registry")
EMPTY = TestPointer("leaves#empty-containers", "leaves", "Empty containers", "empty-containers")
COMPARING = TestPointer(
    "structure#comparing-structures", "structure", "Comparing structures", "comparing-structures"
)


def passed(name: str = "test") -> TestResult:
    return TestResult(name, "passed", 1.0, 1.0)


def failed(pointer: TestPointer | None, outcome: str = "failed", name: str = "test") -> TestResult:
    return TestResult(name, outcome, 0.0, 1.0, f"{outcome}: reread", hidden=False, pointer=pointer)


def learner(name: str, count_leaves, flatten_pairs, tree_depth) -> StudentResult:
    return StudentResult(
        name,
        [
            ExerciseResult("leaves.ipynb", "count_leaves", 2.0, count_leaves),
            ExerciseResult("leaves.ipynb", "flatten_pairs", 1.0, flatten_pairs),
            ExerciseResult("structure.ipynb", "tree_depth", 1.0, tree_depth),
        ],
    )


def class_report() -> Report:
    """Four learners. Containers and leaves: ada, bob, cy (count_leaves); The registry: bob,
    cy (flatten_pairs); Empty containers: ada (tree_depth); Comparing structures: dee."""
    return Report(
        students=[
            learner(
                "ada", [passed("a"), failed(CONTAINERS, name="b")], [passed()], [failed(EMPTY)]
            ),
            learner(
                "bob",
                [failed(CONTAINERS, name="a"), failed(CONTAINERS, name="b")],
                [failed(REGISTRY, "error")],
                [passed()],
            ),
            learner(
                "cy",
                [failed(CONTAINERS, name="a"), failed(None, "timeout", name="b")],
                [failed(REGISTRY)],
                [],
            ),
            learner("dee", [passed("a"), passed("b")], [passed()], [failed(COMPARING)]),
        ],
        isolation="bubblewrap",
    )


def section_lines(summary: str, heading: str) -> list[str]:
    """The non-empty lines under ``### heading``, up to the next heading."""
    part = summary.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return [line for line in part.splitlines() if line]


def test_a_class_summary_lists_the_top_three_sections_to_reteach():
    # cy did not hand tree_depth in: 3 learners started it
    assert section_lines(markdown_summary(class_report()), "What to reteach") == [
        "- **Leaves → Containers and leaves**: 3 learners of the 4 who started its functions "
        "(75%), through `count_leaves` (3)",
        "- **Leaves → The registry**: 2 learners of the 4 who started its functions (50%), "
        "through `flatten_pairs` (2)",
        "- **Leaves → Empty containers**: 1 learner of the 3 who started its functions (33%), "
        "through `tree_depth` (1)",
    ]


def test_a_class_summary_tables_each_functions_outcomes_hardest_first():
    rows = section_lines(markdown_summary(class_report()), "Pass rates per function")[1:]
    assert rows == [
        "| Chapter | Function | Started | Passed | Earned part | Failed | Raised an error "
        "| Timed out | Not started | Not handed in or damaged |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        "| Leaves | `count_leaves` | 4 of 4 | 25% | 25% | 25% | 0% | 25% | 0 | 0 |",
        "| Structure | `tree_depth` | 3 of 4 | 33% | 0% | 67% | 0% | 0% | 0 | 1 |",
        "| Leaves | `flatten_pairs` | 4 of 4 | 50% | 0% | 25% | 25% | 0% | 0 | 0 |",
    ]


def test_the_class_part_comes_after_the_score_table_and_before_each_learners_details():
    summary = markdown_summary(class_report())
    order = ["| dee |", "### What to reteach", "### Pass rates per function", "### ada"]
    assert [summary.index(mark) for mark in order] == sorted(summary.index(m) for m in order)


def test_one_learners_summary_has_no_class_part():
    one = class_report()
    one.students = one.students[:1]
    summary = markdown_summary(one)
    assert "What to reteach" not in summary and "Pass rates" not in summary
    assert summary == formats.to_markdown(one)


def test_merging_shards_writes_the_class_part_to_the_summary_and_the_job_summary(
    tmp_path, monkeypatch
):
    job_summary = tmp_path / "job-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(job_summary))
    shards = []
    for number, students in enumerate([class_report().students[:2], class_report().students[2:]]):
        shard = class_report()
        shard.students = students
        shards.append(tmp_path / f"shard-{number}.json")
        shards[-1].write_text(shard.to_json(), encoding="utf-8")
    written = tmp_path / "summary.md"
    assert main(["merge", *map(str, shards), "--markdown", str(written)]) == 0
    first = "- **Leaves → Containers and leaves**: 3 learners of the 4 who started its functions"
    for summary in (written, job_summary):
        assert first in summary.read_text(encoding="utf-8")
        assert "### Pass rates per function" in summary.read_text(encoding="utf-8")


HOSTILE = "<img src=x onerror=alert(1)>|[click](http://evil)"
SHOWN = "&lt;img src=x onerror=alert(1)&gt;|[click](http://evil)"


def test_hostile_names_stay_text_in_a_class_summary():
    # A report is a file: a merged shard could carry any name, function or heading.
    report = class_report()
    report.students[3].student = HOSTILE
    report.students[1].exercises[1].name = HOSTILE
    report.students[1].exercises[1].tests[0].pointer = TestPointer("x", "leaves", HOSTILE, "x")
    summary = markdown_summary(report)
    rendered = MarkdownIt("commonmark").enable("table").render(summary)
    assert "<img" not in rendered and "<a " not in rendered
    assert f"<td>{SHOWN}</td>" in rendered  # the learner's row
    assert f"<strong>Leaves → {SHOWN}</strong>" in rendered  # what to reteach
    assert f"<td><code>{SHOWN}</code></td>" in rendered  # the pass rates' function
    table = section_lines(summary, "Pass rates per function")[1:]
    assert {cells(row) for row in table} == {10}
