"""The ``insight`` command (``insight REPORT… --html FILE``), and ``--html`` of ``grade``
and ``merge``: a class's page, written from its report."""

from __future__ import annotations

import json
import os
from pathlib import Path

from autograder.load.course import REPO_ROOT
from autograder.load.submissions import UnusableInput
from autograder.report.feedback import feedback_filename
from autograder.report.formats import write_text
from autograder.report.insight.page import class_page
from autograder.report.model import Report, merge_reports

BUILT_BOOK = REPO_ROOT / "_build" / "html"
"""Where ``jupyter-book build .`` writes the book: the sections' links lead there by default."""


def read_reports(paths: list[Path]) -> Report:
    """One report from the JSON reports ``paths`` (one, several shards, or a merged one).

    Raises UnusableInput naming the file that is not a report, or why the reports
    cannot be joined (graded otherwise, or a learner in two of them).
    """
    reports = []
    for path in paths:
        try:
            reports.append(Report.from_dict(json.loads(path.read_text(encoding="utf-8"))))
        except FileNotFoundError:
            raise UnusableInput(f"{path}: no such file") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise UnusableInput(f"{path} is not a report written by grade --json ({exc})") from None
    try:
        return reports[0] if len(reports) == 1 else merge_reports(reports, [str(p) for p in paths])
    except ValueError as exc:
        raise UnusableInput(str(exc)) from None


def write_page(
    html: Path,
    report: Report,
    sources: list[str],
    book_url: str | None = None,
    feedback: Path | None = None,
    anonymise: bool = False,
) -> None:
    """Write ``report``'s page to ``html``.

    Sections link into the book at ``book_url``, else into the built book of this
    course (:data:`BUILT_BOOK`) by a path relative to the page. ``feedback``, the
    folder the learners' feedback files were written to, links each learner's row to
    their file there, where it exists.
    """
    where = html.resolve().parent
    book = book_url or _relative(BUILT_BOOK, where)
    links = None
    if feedback is not None:
        files = {
            s.student: feedback.resolve() / feedback_filename(s.student) for s in report.students
        }
        links = {name: _relative(file, where) for name, file in files.items() if file.is_file()}
    write_text(html, class_page(report, sources, book, links, anonymise))


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
    write_page(html, report, [p.name for p in paths], book_url, feedback, anonymise)
    print(f"wrote the page of {len(report.students)} learners to {html}")
    return 0


def _relative(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target, start)).as_posix()
