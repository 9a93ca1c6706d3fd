"""The class's short version in the Markdown summary (and so in GitHub's job summary):
the sections to reteach first and each function's pass rates, from
:mod:`autograder.report.insight.stats`; the class's page has the long version.

It lives apart from :mod:`autograder.report.formats` because the page's command
writes its file with ``formats``: the formats cannot import the page's package back.
"""

from __future__ import annotations

from autograder.load.book import SEPARATOR, chapter_titles
from autograder.report.formats import to_markdown
from autograder.report.insight.stats import GROUPS, ClassInsight, class_insight
from autograder.report.model import Report
from autograder.report.text import markdown_cell

RETEACH_SHOWN = 3
"""How many of the sections to reteach the summary lists, the most learners first."""


def markdown_summary(report: Report, insight: ClassInsight | None = None) -> str:
    """The Markdown summary ``grade --markdown`` and ``merge --markdown`` write and GitHub's
    job summary gets: :func:`~autograder.report.formats.to_markdown`, with
    :func:`class_summary` after the score table. ``insight``, when given, is the
    report's, already worked out (anonymised or not: the summary shows no names)."""
    return to_markdown(report, class_summary(report, insight))


def class_summary(report: Report, insight: ClassInsight | None = None) -> str:
    """For a report of two learners or more, Markdown with two sections: "What to
    reteach", the top :data:`RETEACH_SHOWN` sections of the book failed tests sent
    learners to (how many learners, their share of the class, through which functions),
    and "Pass rates per function", a table of each function's share of the class in
    every outcome of :data:`~autograder.report.insight.stats.GROUPS`, hardest first.
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
        share = section.learners / insight.learners
        functions = ", ".join(f"`{name}` ({count})" for name, count in section.functions)
        lines.append(
            f"- **{markdown_cell(where)}**: {learners} ({share:.0%} of the class), "
            f"through {markdown_cell(functions)}"
        )
    if not insight.reteach:
        lines.append("No failed test sent a learner back to a section of the book.")
    return lines


def _pass_rates(insight: ClassInsight) -> list[str]:
    groups = " | ".join(words.capitalize() for words in GROUPS.values())
    lines = [
        "### Pass rates per function",
        "",
        "Each function's learners by how it ended for them, in percent of the class, "
        "the hardest function first.",
        "",
        f"| Chapter | Function | {groups} |",
        "| --- | --- |" + " ---: |" * len(GROUPS),
    ]
    for function in insight.functions:
        shares = " | ".join(f"{function.share(group):.0%}" for group in GROUPS)
        name = markdown_cell(f"`{function.name}`")
        lines.append(f"| {markdown_cell(_chapter_title(function.chapter))} | {name} | {shares} |")
    return lines


def _chapter_title(chapter: str) -> str:
    """The title of the book's chapter ``chapter``; its id where the book has no such page."""
    return chapter_titles().get(chapter, chapter)
