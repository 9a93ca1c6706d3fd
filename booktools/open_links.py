""" "Open in Colab" and "Open in Binder" links on each chapter and beside each exercise link.

Colab opens a notebook only from GitHub (``colab.research.google.com/github/...``),
and the book itself is published as a Pages artifact, which is no branch of the
repository. So the book's workflow (``.github/workflows/book.yml``) pushes the
chapter and exercise notebooks it built (:mod:`booktools.chapter_notebooks`) to the
branch ``NOTEBOOKS_BRANCH``: the commit it built, plus its ``notebooks/`` folder. The
links open those notebooks there; Binder builds the course's environment from that
branch (``.binder/``). Colab has none of the course, so its link is given only when
the notebooks open with the cell that installs it (``course_package_url`` set).
Links are left out while ``repository.url`` is the placeholder (see
:mod:`booktools.binder`), or names no GitHub repository.
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


def colab_url(repository: str, branch: str, path: str) -> str:
    """The address that opens notebook ``path`` of ``repository`` at ``branch`` in Colab."""
    return f"https://colab.research.google.com/github/{repository}/blob/{branch}/{quote(path)}"


def binder_url(repository: str, branch: str, path: str) -> str:
    """The address that opens notebook ``path`` of ``repository`` at ``branch`` on Binder."""
    return f"https://mybinder.org/v2/gh/{repository}/{branch}?labpath={quote(path)}"


def _links(intro: str, repository: str, path: str, colab: bool) -> nodes.paragraph:
    paragraph = nodes.paragraph(classes=["pt-open-links"])
    paragraph += nodes.Text(intro)
    if colab:
        colab_address = colab_url(repository, NOTEBOOKS_BRANCH, path)
        paragraph += nodes.reference("", "Open in Colab", refuri=colab_address)
        paragraph += nodes.Text(" · ")
    binder_address = binder_url(repository, NOTEBOOKS_BRANCH, path)
    paragraph += nodes.reference("", "Open in Binder", refuri=binder_address)
    return paragraph


def _insert_after(node: nodes.Node, added: nodes.Node) -> None:
    node.parent.insert(node.parent.index(node) + 1, added)


def _exercise_notebook(docname: str, download: addnodes.download_reference) -> str | None:
    """The repository path of the exercise notebook a ``{download}`` link offers, if it does."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(docname), download["reftarget"]))
    return path if path.startswith("exercises/") and path.endswith(".ipynb") else None


def _exercise_id(path: str) -> str:
    """``exercises/<id>/<id>.ipynb``'s id."""
    return posixpath.splitext(posixpath.basename(path))[0]


def add_open_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: the links under a chapter's title and after each exercise link."""
    options = app.config.html_theme_options
    repository = github_repository(options.get("repository_url", ""))
    if repository is None or not has_code(Path(app.env.doc2path(docname))):
        return
    colab = bool(app.config.course_package_url)
    title = next(iter(doctree.findall(nodes.title)), None)
    if title is not None:
        notebook = site_path(Path(docname).name)
        intro = "This chapter as a notebook: "
        _insert_after(title, _links(intro, repository, notebook, colab))
    for download in list(doctree.findall(addnodes.download_reference)):
        exercise = _exercise_notebook(docname, download)
        if exercise is not None:
            paragraph = download.parent
            while not isinstance(paragraph, nodes.paragraph):
                paragraph = paragraph.parent
            intro = f"The exercise, {posixpath.basename(exercise)}: "
            published = exercise_site_path(_exercise_id(exercise))
            _insert_after(paragraph, _links(intro, repository, published, colab))
