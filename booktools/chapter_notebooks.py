"""Each chapter as a notebook, published with the book at ``notebooks/<id>.ipynb``,
and each exercise notebook at ``notebooks/exercises/<id>.ipynb``.

A chapter with code is a MyST markdown notebook; jupytext reads it into the same
cells a Jupyter kernel runs, and the published copy opens with the course's first
cell (:func:`autograder.author.first_cell.first_cell`). With the learners' package's
address (``course_package_url`` in ``_config.yml``'s ``sphinx.config``, unset by
default) that cell installs the package, which holds the ``booktools`` the chapters
import, and the course's pinned libraries; without, it says what to install.
Its markdown cells are made plain markdown (:mod:`booktools.plain_markdown`): what
only the book's build reads, cross-references, directives and links to other chapters'
sources, becomes links to the book's pages (``html_baseurl``) or the text and the chapter
it names. A markdown cell tagged ``clone-only`` (what only a reader with a clone of the
course can follow, as ``./course serve``) is left out; a cell whose input or output the
page hides (``remove-input``, ``hide-output``) has it hidden in Jupyter and Colab too.
The notebook is what the chapter's Colab and Binder links open
(:mod:`booktools.open_links`), and what a learner downloads to run it in any Jupyter.
An exercise notebook is published as a release gives it to learners
(:func:`autograder.author.release.released_notebook`: its links to the book made
absolute with the book's ``html_baseurl`` when set), with the same first cell.
"""

from __future__ import annotations

import copy
from pathlib import Path

import jupytext
import nbformat
from nbformat import NotebookNode
from sphinx.application import Sphinx

from autograder.author.first_cell import first_cell
from autograder.author.release import course_pins, released_notebook
from autograder.load.book import book_url
from autograder.load.course import EXERCISES
from booktools.plain_markdown import Book, plain_markdown

NOTEBOOKS_FOLDER = "notebooks"
# a chapter's markdown cell for the reader with a clone of the course, not in its notebook
CLONE_ONLY = "clone-only"


def site_path(chapter_id: str) -> str:
    """Where chapter ``chapter_id``'s notebook is, relative to the site's root."""
    return f"{NOTEBOOKS_FOLDER}/{chapter_id}.ipynb"


def exercise_site_path(exercise_id: str) -> str:
    """Where exercise ``exercise_id``'s notebook is published, relative to the site's root."""
    return f"{NOTEBOOKS_FOLDER}/exercises/{exercise_id}.ipynb"


def exercise_source(exercise_id: str) -> Path:
    """The exercise notebook of ``exercise_id`` in the course (it may not exist)."""
    return EXERCISES / exercise_id / f"{exercise_id}.ipynb"


def has_code(source: Path) -> bool:
    """Whether the page at ``source`` has code cells, which makes it a chapter notebook."""
    return _read_with_code(source) is not None


def _read_with_code(source: Path) -> NotebookNode | None:
    """The page at ``source`` as jupytext reads it, or None unless it is a MyST page with
    code cells."""
    if source.suffix != ".md":
        return None
    notebook = jupytext.read(source, fmt="myst")
    return notebook if any(cell.cell_type == "code" for cell in notebook.cells) else None


def course_first_cell(package_url: str | None) -> NotebookNode:
    """The first cell of every chapter notebook: installing from ``package_url`` at the
    course's pins when given (see :func:`autograder.author.first_cell.first_cell`)."""
    return first_cell(package_url, course_pins() if package_url else "")


def chapter_notebook(source: Path, first: NotebookNode) -> NotebookNode:
    """The notebook of the chapter at ``source``: ``first`` (see :func:`course_first_cell`),
    then its cells."""
    notebook = jupytext.read(source, fmt="myst")
    return _opened_with(notebook, first)


def published_chapter(
    source: Path, first: NotebookNode, book: Book, docname: str
) -> NotebookNode | None:
    """:func:`chapter_notebook` of the chapter ``docname`` at ``source``, its markdown cells
    made plain markdown against ``book`` (:func:`booktools.plain_markdown.plain_markdown`);
    None for a page without code cells, which is no chapter notebook."""
    read = _read_with_code(source)
    if read is None:
        return None
    notebook = _opened_with(read, first)
    notebook.cells = [cell for cell in notebook.cells if CLONE_ONLY not in _tags(cell)]
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = plain_markdown(cell.source, book, docname, source)
        else:
            _hidden_as_on_the_page(cell)
    return notebook


def _tags(cell: NotebookNode) -> list[str]:
    return list(cell.metadata.get("tags", []))


def _hidden_as_on_the_page(cell: NotebookNode) -> None:
    """Hide in the notebook what the page hides of code ``cell``: its source (a question's
    ``quiz(...)`` call, which holds the answer) in Jupyter and in Colab's form view, and
    its output (a question's answer) in Jupyter until the reader opens it."""
    if "remove-input" in _tags(cell):
        cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
        cell.metadata["cellView"] = "form"
    if "hide-output" in _tags(cell):
        cell.metadata.setdefault("jupyter", {})["outputs_hidden"] = True


def exercise_notebook(path: Path, first: NotebookNode, book_url: str | None) -> NotebookNode:
    """The exercise notebook at ``path`` as the book publishes it: as a release gives it,
    its links to the book's chapters pointing at ``book_url`` (or naming the chapter
    where it is None), opening with ``first``."""
    text = released_notebook(path, path.read_text(encoding="utf-8"), book_url)
    return _opened_with(nbformat.reads(text, as_version=4), first)


def _opened_with(notebook: NotebookNode, first: NotebookNode) -> NotebookNode:
    # what jupytext records of the markdown file it read; the notebook is no longer paired to it
    notebook.metadata.pop("jupytext", None)
    notebook.cells.insert(0, copy.deepcopy(first))
    return notebook


def write_chapter_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: write the notebook of every chapter with code, and of its
    exercise, into the site."""
    if exception is not None or app.builder.format != "html":
        return
    # the course's pins are read from every exercise notebook: once a build
    first = course_first_cell(app.config.course_package_url)
    address = _book_address(app)
    book = _book(app, address)
    for docname in sorted(app.env.found_docs):
        notebook = published_chapter(Path(app.env.doc2path(docname)), first, book, docname)
        if notebook is None:
            continue
        chapter = Path(docname).name
        _write(Path(app.outdir) / site_path(chapter), notebook)
        exercise = exercise_source(chapter)
        if exercise.is_file():
            published = exercise_notebook(exercise, first, address)
            _write(Path(app.outdir) / exercise_site_path(chapter), published)


def _book(app: Sphinx, address: str | None) -> Book:
    """What the chapters' references resolve against in the book ``app`` built, published
    at ``address``."""
    titles = {docname: title.astext() for docname, title in app.env.titles.items()}
    labels = app.env.domaindata["std"]["labels"]
    return Book(address, titles, labels, published_exercise)


def published_exercise(path: str) -> str | None:
    """Where the exercise notebook at course path ``path`` (``exercises/<id>/<id>.ipynb``)
    is published, relative to the chapter notebooks' folder; None for another path."""
    parts = path.split("/")
    if len(parts) == 3 and parts[0] == "exercises" and parts[2] == f"{parts[1]}.ipynb":
        return exercise_site_path(parts[1]).removeprefix(f"{NOTEBOOKS_FOLDER}/")
    return None


def _book_address(app: Sphinx) -> str | None:
    """The book's address, ``html_baseurl``, as a release takes one (no trailing ``/``)."""
    return book_url(app.config.html_baseurl) if app.config.html_baseurl else None


def _write(target: Path, notebook: NotebookNode) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
