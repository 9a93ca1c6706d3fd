"""The ``insight`` command (``insight REPORT… --html FILE``), and ``--html`` of ``grade``
and ``merge``: a class's page, written from its report."""

from __future__ import annotations

import os
from pathlib import Path

from autograder.load.course import REPO_ROOT
from autograder.load.submissions import UnusableInput
from autograder.report.feedback import feedback_filename
from autograder.report.formats import write_text
from autograder.report.insight.page import class_page
from autograder.report.insight.stats import ClassInsight
from autograder.report.model import Report, read_reports

BUILT_BOOK = REPO_ROOT / "_build" / "html"
"""Where ``jupyter-book build .`` writes the book: the sections' links lead there by default."""


def write_page(
    html: Path,
    report: Report,
    sources: list[str],
    book_url: str | None = None,
    feedback: Path | None = None,
    anonymise: bool = False,
    insight: ClassInsight | None = None,
) -> None:
    """Write ``report``'s page to ``html``.

    Sections link into the book at ``book_url``, else into the built book of this
    course (:data:`BUILT_BOOK`) by a path relative to the page. ``feedback``, the
    folder the learners' feedback files were written to, links each learner's row to
    their file there, where it exists, but on an anonymised page, whose links would
    name the files and so the learners. ``insight``: see
    :func:`~autograder.report.insight.page.class_page`.
    """
    where = html.resolve().parent
    book = book_url or _relative(BUILT_BOOK, where)
    links = None
    if feedback is not None and not anonymise:
        files = {
            s.student: feedback.resolve() / feedback_filename(s.student) for s in report.students
        }
        links = {name: _relative(file, where) for name, file in files.items() if file.is_file()}
    write_text(html, class_page(report, sources, book, links, anonymise, insight))


def insight(
    paths: list[Path],
    html: Path,
    book_url: str | None = None,
    feedback: Path | None = None,
    anonymise: bool = False,
) -> int:
    """The ``insight`` command: read the reports, write the page, say where. Exit code 0."""
    if html.is_dir():
        raise UnusableInput(f"{html} is a folder; give a file name")
    report = read_reports(paths)
    if not report.students:
        raise UnusableInput(f"{', '.join(map(str, paths))}: no learner to show")
    write_page(html, report, [p.name for p in paths], book_url, feedback, anonymise)
    print(f"wrote the page of {len(report.students)} learners to {html}")
    return 0


def _relative(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target, start)).as_posix()
