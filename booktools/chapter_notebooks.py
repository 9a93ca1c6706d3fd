"""Each chapter as a notebook, published with the book at ``notebooks/<id>.ipynb``.

A chapter with code is a MyST markdown notebook; jupytext reads it into the same
cells a Jupyter kernel runs, and the published copy opens with the course's first
cell (:func:`autograder.author.first_cell.first_cell`). With the learners' package's
address (``course_package_url`` in ``_config.yml``'s ``sphinx.config``, unset by
default) that cell installs the package, which holds the ``booktools`` the chapters
import, and the course's pinned libraries; without, it says what to install.
The notebook is what the chapter's Colab and Binder links open
(:mod:`booktools.open_links`), and what a learner downloads to run it in any Jupyter.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
from nbformat import NotebookNode
from sphinx.application import Sphinx

from autograder.author.first_cell import first_cell
from autograder.author.release import course_pins

NOTEBOOKS_FOLDER = "notebooks"


def site_path(chapter_id: str) -> str:
    """Where chapter ``chapter_id``'s notebook is, relative to the site's root."""
    return f"{NOTEBOOKS_FOLDER}/{chapter_id}.ipynb"


def has_code(source: Path) -> bool:
    """Whether the page at ``source`` has code cells, which makes it a chapter notebook."""
    return source.suffix == ".md" and any(
        cell.cell_type == "code" for cell in jupytext.read(source, fmt="myst").cells
    )


def chapter_notebook(source: Path, package_url: str | None = None) -> NotebookNode:
    """The notebook of the chapter at ``source``: the course's first cell, installing from
    ``package_url`` at the course's pins when given, then its cells."""
    notebook = jupytext.read(source, fmt="myst")
    # what jupytext records of the markdown file it read; the notebook is no longer paired to it
    notebook.metadata.pop("jupytext", None)
    notebook.cells.insert(0, first_cell(package_url, course_pins() if package_url else ""))
    return notebook


def write_chapter_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: write the notebook of every chapter with code into the site."""
    if exception is not None or app.builder.format != "html":
        return
    for docname in sorted(app.env.found_docs):
        source = Path(app.env.doc2path(docname))
        if has_code(source):
            target = Path(app.outdir) / site_path(Path(docname).name)
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(chapter_notebook(source, app.config.course_package_url), target)
