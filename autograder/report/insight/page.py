"""A class's page of insight: one self-contained HTML file, made from a report.

The file asks nothing of another machine: its charts are inline SVG, its style and
its one script are inline, and its Content-Security-Policy forbids every request and
every script but that one (named by its hash), so a name or message that slipped
past escaping could still load or run nothing. Links (to the book's sections and to
feedback files) are followed only when clicked.
"""

from __future__ import annotations

import base64
import hashlib
import statistics
from functools import cache
from pathlib import Path

import jinja2

from autograder.load.book import chapter_titles, page_url
from autograder.report.insight import charts
from autograder.report.insight.stats import (
    DISCRIMINATION_LEARNERS,
    EASY_MEAN,
    GROUPS,
    LOW_DISCRIMINATION,
    NOT_ATTEMPTED,
    ClassInsight,
    ReteachSection,
    class_insight,
)
from autograder.report.model import HINTS_RECORD_NOTE, NO_HINTS, Report
from autograder.safe_text import points

_HERE = Path(__file__).parent


def class_page(
    report: Report,
    sources: list[str],
    book: str,
    feedback: dict[str, str] | None = None,
    anonymise: bool = False,
    insight: ClassInsight | None = None,
) -> str:
    """The page for ``report``, read from the files named ``sources``.

    ``book`` is the built book's address: a URL, or a path relative to the page; each
    section is linked as ``<book>/book/<chapter>.html#<anchor>``. ``feedback`` gives
    the address of each learner's feedback file (by their name in the report), to
    link their row to it; None leaves out the column. ``anonymise`` shows pseudonyms
    instead of names. ``insight`` is the report's, already worked out with the same
    ``anonymise``, where the caller has it.
    """
    insight = insight or class_insight(report, anonymise)
    script = (_HERE / "sort.js").read_text(encoding="utf-8")
    titles = chapter_titles()
    book = book.rstrip("/")
    return _template().render(
        insight=insight,
        mean=statistics.fmean(insight.totals) if insight.totals else 0.0,
        median=statistics.median(insight.totals) if insight.totals else 0.0,
        sources=", ".join(sources),
        settings=report.settings,
        caveats=report.caveats,
        not_attempted=NOT_ATTEMPTED,
        min_learners=DISCRIMINATION_LEARNERS,
        anonymised=anonymise,
        groups=GROUPS,
        palette=charts.PALETTE,
        low=f"{LOW_DISCRIMINATION:g}",
        easy=f"{EASY_MEAN:g}",
        hinted=[f for f in insight.functions if f.hints_opened_by],
        hints_note=HINTS_RECORD_NOTE,
        no_hints=NO_HINTS,
        outcome_chart=charts.outcome_chart([f for f in insight.functions if f.started]),
        unstarted=sum(not f.started for f in insight.functions),
        total_chart=charts.histogram(insight.totals, "Total scores"),
        chapter_chart=charts.chapter_histograms({c.chapter: c.scores for c in insight.chapters}),
        chapter_title=lambda chapter: titles.get(chapter, chapter),
        section_link=lambda item: _section_link(book, item),
        feedback=feedback,
        points=points,
        script=script,
        script_hash="sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode(),
    )


def _section_link(book: str, item: ReteachSection) -> str:
    return f"{page_url(book, item.chapter)}#{item.anchor}"


@cache
def _template() -> jinja2.Template:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_HERE),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return environment.get_template("page.html.j2")
