"""The progress page's table: one row per chapter, for ``progress.js`` to fill in.

The rows are written at build time from the course's own files, so the table always
lists every chapter of ``_toc.yml``, the questions each chapter asks and the
functions its exercise grades. What the learner has done is only known in their
browser and on their machine, so the state cells are left for
``book/_static/progress.js``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.load.course import EXERCISES, REPO_ROOT, CourseError, load_course, toc_order

# Where the progress page finds the exercise record, from the site's root: a file in
# the built book that says there is none, which ./course serve answers with the record.
PROGRESS_FILE = "progress.json"

# Every question in a lesson is a ``quiz("key", ...)`` call whose first argument is its key.
_QUIZ_KEY = re.compile(r"\bquiz\(\s*[\"']([^\"']+)[\"']")


@dataclass(frozen=True)
class Chapter:
    """One chapter as the progress page lists it."""

    page: str  # the Sphinx page name, e.g. "book/leaves"
    title: str
    questions: tuple[str, ...]
    functions: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.page.rsplit("/", 1)[-1]


def chapter_source(chapter_id: str, root: Path = REPO_ROOT) -> Path:
    return root / "book" / f"{chapter_id}.md"


def read_chapter(chapter_id: str, root: Path = REPO_ROOT) -> Chapter:
    """The title, question keys and graded functions of ``book/<chapter_id>.md``."""
    text = chapter_source(chapter_id, root).read_text(encoding="utf-8")
    title = next(
        (line[2:].strip() for line in text.splitlines() if line.startswith("# ")), chapter_id
    )
    return Chapter(
        page=f"book/{chapter_id}",
        title=title,
        questions=tuple(_QUIZ_KEY.findall(text)),
        functions=_graded_functions(chapter_id),
    )


def _graded_functions(chapter_id: str) -> tuple[str, ...]:
    try:
        notebook = load_course(EXERCISES).notebook(chapter_id)
    except (KeyError, CourseError):
        return ()
    return tuple(function.name for function in notebook.functions)


def chapters(skip: str = "", root: Path = REPO_ROOT) -> list[Chapter]:
    """Every chapter ``_toc.yml`` lists, in its order: the pages with an exercise to solve.

    The reference and instructors' pages are not chapters a learner works through,
    and the page ``skip`` is left out.
    """
    listed = [read_chapter(chapter_id, root) for chapter_id in toc_order() if chapter_id != skip]
    return [chapter for chapter in listed if chapter.functions]


def table_html(listed: list[Chapter], href: Callable[[str], str]) -> str:
    """The table's markup; ``href(page)`` gives the link to a page from the progress page."""
    rows = "".join(_row(chapter, href(chapter.page)) for chapter in listed)
    return (
        '<div class="pt-progress">'
        '<p class="pt-progress-summary" role="status"></p>'
        # The theme scrolls a table in this box when it is wider than the window, rather
        # than the page, and lets the keyboard focus it when it does.
        '<div class="pst-scrollable-table-container" role="region" aria-label="Your progress">'
        '<table class="table pt-progress-table"><thead><tr>'
        "<th>Chapter</th><th>Read</th><th>Questions answered</th><th>Exercise</th>"
        f"</tr></thead><tbody>{rows}</tbody></table></div>"
        '<p class="pt-progress-note"></p>'
        "<noscript><p>This page needs JavaScript to show your progress.</p></noscript>"
        "</div>"
    )


def _row(chapter: Chapter, link: str) -> str:
    def words(items: tuple[str, ...]) -> str:
        return html.escape(" ".join(items))

    return (
        f'<tr data-page="{html.escape(chapter.page)}" '
        f'data-questions="{words(chapter.questions)}" '
        f'data-functions="{words(chapter.functions)}">'
        f'<td><a href="{html.escape(link)}">{html.escape(chapter.title)}</a></td>'
        '<td class="pt-progress-read"></td>'
        '<td class="pt-progress-questions"></td>'
        '<td class="pt-progress-exercise"></td></tr>'
    )
