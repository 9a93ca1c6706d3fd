"""The book's Sphinx extension (``sphinx.extra_extensions`` in ``_config.yml``).

- ``{course-progress}``: the progress page's table (see :mod:`booktools.progress_page`).
  The page is read again whenever a chapter, an exercise or the table of contents
  changes, so its rows never fall behind the book.
- ``progress.json`` at the site's root says that this copy of the book has no
  exercise record: only the server of ``./course serve`` (:mod:`booktools.serve`)
  answers that path with the learner's own.
- Each inline script is written once per page. Sphinx 7.4 writes an inline script
  that an extension adds while the sources are read twice, and sphinx-thebe's
  ``const`` declarations then fail in the browser the second time.
- A hidden output's "Show code cell output" is named by that text, not another.
- No Binder button while ``repository.url`` is the placeholder (see :mod:`booktools.binder`).
- A change to ``booktools``' code runs every chapter again
  (:mod:`booktools.execution_cache`).
- Questions written for the book's page while it is built (see :mod:`booktools.quiz`).
- Each chapter as a notebook in the site (:mod:`booktools.chapter_notebooks`), and
  links that open it, and each exercise notebook, in Colab and Binder
  (:mod:`booktools.open_links`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from autograder.load.course import REPO_ROOT
from booktools import progress_page
from booktools.binder import hide_binder_for_the_placeholder
from booktools.chapter_notebooks import exercise_source, write_chapter_notebooks
from booktools.execution_cache import read_all_after_a_booktools_change
from booktools.open_links import add_open_links
from booktools.quiz import IN_THE_BOOK


class CourseProgress(SphinxDirective):
    """The progress table of every chapter but the page it is on."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        docname = self.env.docname
        listed = progress_page.chapters(skip=docname.rsplit("/", 1)[-1])
        self.env.note_dependency(str(REPO_ROOT / "_toc.yml"))
        self.env.note_dependency(progress_page.__file__)  # the table's markup
        for chapter in listed:
            self.env.note_dependency(str(progress_page.chapter_source(chapter.id)))
            exercise = exercise_source(chapter.id)
            if exercise.exists():
                self.env.note_dependency(str(exercise))
        builder = self.env.app.builder
        markup = progress_page.table_html(
            listed, lambda page: builder.get_relative_uri(docname, page)
        )
        return [nodes.raw("", markup, format="html")]


def write_each_inline_script_once(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    kept = []
    for script in scripts:
        key = (script.filename or "", tuple(sorted(script.attributes.items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    scripts[:] = kept


# What myst-nb writes for a hidden output's "Show code cell output": a name that is not
# the text it shows, so a learner who says "click Show code cell output" to a speech
# program is not understood.
UNSPOKEN_TOGGLE = '<summary aria-label="Toggle hidden content">'


def name_toggles_by_their_text(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if "body" in context:
        context["body"] = context["body"].replace(UNSPOKEN_TOGGLE, "<summary>")


def write_empty_progress(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / progress_page.PROGRESS_FILE
        target.write_text(json.dumps({"functions": None}) + "\n", encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    # the kernels that run the chapters inherit it: their questions answer in the page
    os.environ[IN_THE_BOOK] = "1"
    app.add_directive("course-progress", CourseProgress)
    # the learners' package's address: the chapter notebooks' first cell installs from it
    app.add_config_value("course_package_url", None, "html", types=[str])
    app.connect("config-inited", hide_binder_for_the_placeholder)
    app.connect("env-get-outdated", read_all_after_a_booktools_change)
    app.connect("build-finished", write_empty_progress)
    app.connect("build-finished", write_chapter_notebooks)
    app.connect("doctree-resolved", add_open_links)
    app.connect("html-page-context", write_each_inline_script_once, priority=900)
    app.connect("html-page-context", name_toggles_by_their_text)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
