""" "Open in Colab" and "Open in Binder" links on each chapter and beside each exercise link,
and the exercise's download link serving the notebook the book publishes.

Colab opens a notebook only from GitHub (``colab.research.google.com/github/...``),
and the book itself is published as a Pages artifact, which is no branch of the
repository. So the book's workflow (``.github/workflows/book.yml``) pushes the
chapter and exercise notebooks it built (:mod:`booktools.chapter_notebooks`) to the
branch ``NOTEBOOKS_BRANCH``, a tree of those notebooks alone
(:mod:`booktools.notebooks_branch`). The links open them there, in Colab and on
Binder alike; none of the course is there, so the links are given only when the
notebooks open with the cell that installs it from an http(s) address
(``course_package_url``: a local path installs only on the machine that has it), and
left out while ``repository.url`` is the placeholder (see :mod:`booktools.binder`),
or names no GitHub repository.

A chapter's ``{download}`` link to its exercise notebook serves the copy the book
publishes (``notebooks/exercises/<id>.ipynb``), which runs in any Jupyter, rather
than the course's ``exercises/<id>/<id>.ipynb``, which imports the course from a
clone of it: the reader of the web book gets the notebook the Colab and Binder links
open.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import quote, urlsplit

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from booktools.binder import is_placeholder
from booktools.chapter_notebooks import exercise_site_path, has_code, site_path

NOTEBOOKS_BRANCH = "notebooks"


def github_repository(url: str) -> str | None:
    """``owner/name`` of the GitHub repository at ``url``; ``None`` for the placeholder or
    an address that names no GitHub repository."""
    parts = urlsplit(url.strip())
    path = parts.path.strip("/").removesuffix(".git").split("/")
    if is_placeholder(url) or parts.netloc != "github.com" or len(path) != 2 or "" in path:
        return None
    return "/".join(path)


def is_web_address(package_url: str | None) -> bool:
    """Whether Colab and Binder can install the learners' package from ``package_url``:
    an http(s) address, not a local path (which still serves a test's install cell)."""
    return urlsplit(package_url or "").scheme in ("http", "https")


def colab_url(repository: str, branch: str, path: str) -> str:
    """The address that opens notebook ``path`` of ``repository`` at ``branch`` in Colab."""
    return f"https://colab.research.google.com/github/{repository}/blob/{branch}/{quote(path)}"


def binder_url(repository: str, branch: str, path: str) -> str:
    """The address that opens notebook ``path`` of ``repository`` at ``branch`` on Binder."""
    return f"https://mybinder.org/v2/gh/{repository}/{branch}?labpath={quote(path)}"


def _links(intro: str, repository: str, path: str) -> nodes.paragraph:
    paragraph = nodes.paragraph(classes=["pt-open-links"])
    paragraph += nodes.Text(intro)
    colab_address = colab_url(repository, NOTEBOOKS_BRANCH, path)
    paragraph += nodes.reference("", "Open in Colab", refuri=colab_address)
    paragraph += nodes.Text(" · ")
    binder_address = binder_url(repository, NOTEBOOKS_BRANCH, path)
    paragraph += nodes.reference("", "Open in Binder", refuri=binder_address)
    return paragraph


def _insert_after(node: nodes.Node, added: nodes.Node) -> None:
    node.parent.insert(node.parent.index(node) + 1, added)


def insert_after_its_block(paragraph: nodes.Element, added: nodes.Node) -> None:
    """Insert ``added`` after ``paragraph``, or after the list it is in, and after what
    it introduces: a paragraph ending in ":" is read with the code block or list under it."""
    block: nodes.Element = paragraph
    while isinstance(block.parent, (nodes.list_item, nodes.bullet_list, nodes.enumerated_list)):
        block = block.parent
    while block.astext().rstrip().endswith(":"):
        following = block.next_node(descend=False, siblings=True, ascend=False)
        if following is None:
            break
        block = following
    _insert_after(block, added)


def _exercise_notebook(docname: str, download: addnodes.download_reference) -> str | None:
    """The repository path of the exercise notebook a ``{download}`` link offers, if it does."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(docname), download["reftarget"]))
    return path if path.startswith("exercises/") and path.endswith(".ipynb") else None


def _exercise_id(path: str) -> str:
    """``exercises/<id>/<id>.ipynb``'s id."""
    return posixpath.splitext(posixpath.basename(path))[0]


def _exercise_downloads(
    doctree: nodes.document, docname: str
) -> list[tuple[addnodes.download_reference, str]]:
    """Each ``{download}`` link of the page to an exercise notebook, with the notebook's id."""
    found = []
    for download in doctree.findall(addnodes.download_reference):
        exercise = _exercise_notebook(docname, download)
        if exercise is not None:
            found.append((download, _exercise_id(exercise)))
    return found


def add_open_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: the links under a chapter's title and after each exercise link,
    and each exercise link made the link to the notebook the book publishes."""
    if not has_code(Path(app.env.doc2path(docname))):
        return
    downloads = _exercise_downloads(doctree, docname)
    repository = github_repository(app.config.html_theme_options.get("repository_url", ""))
    if repository is not None and is_web_address(app.config.course_package_url):
        _add_links(doctree, docname, repository, downloads)
    for download, exercise_id in downloads:
        published = posixpath.relpath(exercise_site_path(exercise_id), posixpath.dirname(docname))
        link = nodes.reference("", "", *download.children, refuri=published, classes=["download"])
        download.replace_self(link)


def _add_links(
    doctree: nodes.document,
    docname: str,
    repository: str,
    downloads: list[tuple[addnodes.download_reference, str]],
) -> None:
    title = next(iter(doctree.findall(nodes.title)), None)
    if title is not None:
        notebook = site_path(Path(docname).name)
        _insert_after(title, _links("This chapter as a notebook: ", repository, notebook))
    for download, exercise_id in downloads:
        paragraph = download.parent
        while not isinstance(paragraph, nodes.paragraph):
            paragraph = paragraph.parent
        intro = f"The exercise, {exercise_id}.ipynb: "
        published = exercise_site_path(exercise_id)
        insert_after_its_block(paragraph, _links(intro, repository, published))
