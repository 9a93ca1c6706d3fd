"""The class's short version in the Markdown summary (and so in GitHub's job summary)
and on the terminal: each chapter's hand-ins at the top, then the sections to reteach
first and each function's pass rates, from :mod:`autograder.report.insight.stats`; the
class's page has the long version.

It lives apart from :mod:`autograder.report.formats` because the page's command
writes its file with ``formats``: the formats cannot import the page's package back.
"""

from __future__ import annotations

from autograder.load.book import SEPARATOR, chapter_titles
from autograder.report.formats import to_markdown
from autograder.report.insight.stats import (
    GROUPS,
    NOT_ATTEMPTED,
    ChapterStats,
    ClassInsight,
    chapter_stats,
    class_insight,
)
from autograder.report.model import Report
from autograder.report.text import markdown_cell

RETEACH_SHOWN = 3
"""How many of the sections to reteach the summary lists, the most learners first."""


def markdown_summary(report: Report, insight: ClassInsight | None = None) -> str:
    """The Markdown summary ``grade --markdown`` and ``merge --markdown`` write and GitHub's
    job summary gets: :func:`~autograder.report.formats.to_markdown`, with
    :func:`class_summary` after the score table. ``insight``, when given, is the
    report's, already worked out (anonymised or not: the summary shows no names)."""
    return to_markdown(report, class_summary(report, insight), chapters_summary(report))


CHAPTER_COLUMNS = ("Chapter", "Handed in, readable", "Started", "Mean of those who started")
"""The columns of the class's chapters, at the top of the summary and the terminal's report."""


def chapter_rows(report: Report) -> list[tuple[str, ...]]:
    """For a report of two learners or more, one row of :data:`CHAPTER_COLUMNS` per
    chapter, in the report's order: how many learners handed it in and started it (of
    the class), and the mean score of those who started it. None for one learner."""
    if len(report.students) < 2:
        return []
    return [_chapter_row(chapter) for chapter in chapter_stats(report.students)]


def _chapter_row(chapter: ChapterStats) -> tuple[str, ...]:
    mean = "—" if chapter.mean is None else f"{chapter.mean:.0f}%"
    return (
        _chapter_title(chapter.chapter),
        f"{chapter.handed_in} of {chapter.learners}",
        f"{chapter.started} of {chapter.learners}",
        mean,
    )


def chapters_summary(report: Report) -> str:
    """:func:`chapter_rows` as a Markdown table under a heading; empty for one learner."""
    rows = chapter_rows(report)
    if not rows:
        return ""
    lines = [
        "### Chapters",
        "",
        f"| {' | '.join(CHAPTER_COLUMNS)} |",
        "| --- |" + " ---: |" * (len(CHAPTER_COLUMNS) - 1),
        *(f"| {' | '.join(markdown_cell(cell) for cell in row)} |" for row in rows),
    ]
    return "\n".join(lines) + "\n"


def class_summary(report: Report, insight: ClassInsight | None = None) -> str:
    """For a report of two learners or more, Markdown with two sections: "What to
    reteach", the top :data:`RETEACH_SHOWN` sections of the book failed tests sent
    learners to (how many learners, of those who started the functions that sent them
    there, through which functions), and "Pass rates per function", a table of how many
    learners started each function, the share of them in every outcome of
    :data:`~autograder.report.insight.stats.GROUPS`, and how many did not start it or
    hand it in, hardest first; a function no learner started is only counted.
    Empty for one learner or none: their summary already says it all. ``insight`` is
    the report's, where already worked out.
    """
    if len(report.students) < 2:
        return ""
    insight = insight or class_insight(report)
    return "\n".join([*_reteach(insight), "", *_pass_rates(insight)]) + "\n"


def _reteach(insight: ClassInsight) -> list[str]:
    lines = ["### What to reteach", ""]
    for section in insight.reteach[:RETEACH_SHOWN]:
        where = f"{_chapter_title(section.chapter)}{SEPARATOR}{section.section}"
        learners = f"{section.learners} learner{'' if section.learners == 1 else 's'}"
        share = section.learners / section.started if section.started else 0.0
        functions = ", ".join(f"`{name}` ({count})" for name, count in section.functions)
        lines.append(
            f"- **{markdown_cell(where)}**: {learners} of the {section.started} who started "
            f"its functions ({share:.0%}), through {markdown_cell(functions)}"
        )
    if not insight.reteach:
        lines.append("No failed test sent a learner back to a section of the book.")
    return lines


def _pass_rates(insight: ClassInsight) -> list[str]:
    outcomes = [group for group in GROUPS if group not in NOT_ATTEMPTED]
    groups = " | ".join(GROUPS[group].capitalize() for group in (*outcomes, *NOT_ATTEMPTED))
    lines = [
        "### Pass rates per function",
        "",
        "How each function ended for the learners who started it, in percent of them, "
        "the hardest function first; then how many learners did not start it or hand it in.",
        "",
        f"| Chapter | Function | Started | {groups} |",
        "| --- | --- |" + " ---: |" * (1 + len(GROUPS)),
    ]
    unstarted = [function for function in insight.functions if not function.started]
    for function in insight.functions:
        if not function.started:
            continue
        rates = [f"{function.rate(group):.0%}" for group in outcomes]
        counts = [str(function.counts.get(group, 0)) for group in NOT_ATTEMPTED]
        cells = " | ".join([f"{function.started} of {function.learners}", *rates, *counts])
        name = markdown_cell(f"`{function.name}`")
        lines.append(f"| {markdown_cell(_chapter_title(function.chapter))} | {name} | {cells} |")
    if unstarted:
        lines += ["", f"{len(unstarted)} function(s) that no learner started are left out."]
    return lines


def _chapter_title(chapter: str) -> str:
    """The title of the book's chapter ``chapter``; its id where the book has no such page."""
    return chapter_titles().get(chapter, chapter)
