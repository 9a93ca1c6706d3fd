"""Each chapter and each exercise is published as a notebook whose markdown Jupyter renders;
it opens in Colab and Binder from the course's repository where the notebooks install the
course; while the repository is the placeholder, or without the package, no page links
either. A chapter's download link serves the published exercise notebook."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import jupytext
import nbformat
import pytest
import yaml
from markdown_it import MarkdownIt
from nbclient import NotebookClient

from autograder.author.first_cell import first_cell
from autograder.author.release import course_pins
from autograder.load.course import REPO_ROOT
from autograder.load.install_cell import is_install_cell
from booktools.binder import PLACEHOLDER_REPOSITORY
from booktools.chapter_notebooks import CLONE_ONLY, published_chapter, published_exercise
from booktools.open_links import NOTEBOOKS_BRANCH, github_repository
from booktools.plain_markdown import Book
from conftest import build_book

A_REAL_REPOSITORY = "https://github.com/someone/pytrees-course"
PACKAGE_URL = "https://example.org/wheels/"
LOCAL_PACKAGE = "/srv/course-wheels/"
BOOK_URL = "https://someone.github.io/pytrees-course"
CHAPTER = "leaves"
EXERCISE = f"exercises/{CHAPTER}/{CHAPTER}.ipynb"
CHAPTER_SOURCES = (f"book/{CHAPTER}.md", "book/_static", "book/favicon.svg", EXERCISE)


def _build_chapter(
    folder: Path, repository_url: str, package_url: str | None = None, book: str | None = None
) -> Path:
    """Build a book of the one chapter, with the course's configuration, ``repository_url``,
    ``package_url`` (``course_package_url``) and ``book`` (``html.baseurl``); the built site."""
    for name in CHAPTER_SOURCES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        copy = shutil.copytree if (REPO_ROOT / name).is_dir() else shutil.copy
        copy(REPO_ROOT / name, folder / name)
    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["execute"]["execute_notebooks"] = "off"
    config["repository"]["url"] = repository_url
    if package_url is not None:
        config["sphinx"]["config"]["course_package_url"] = package_url
    if book is not None:
        config["html"]["baseurl"] = book
    (folder / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    # the one section of another chapter that the chapter links to
    (folder / "book" / "custom_nodes.md").write_text(
        "# Custom nodes\n\n(custom_nodes-register)=\n## Registering a class\n", encoding="utf-8"
    )
    (folder / "_toc.yml").write_text(
        f"format: jb-book\nroot: book/{CHAPTER}\nchapters:\n- file: book/custom_nodes\n",
        encoding="utf-8",
    )
    done = build_book(folder)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return folder / "_build" / "html"


@pytest.fixture(scope="module")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_chapter(tmp_path_factory.mktemp("real"), A_REAL_REPOSITORY)


@pytest.fixture(scope="module")
def placeholder_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_chapter(tmp_path_factory.mktemp("placeholder"), PLACEHOLDER_REPOSITORY)


@pytest.fixture(scope="module")
def packaged_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("packaged")
    return _build_chapter(folder, A_REAL_REPOSITORY, PACKAGE_URL, BOOK_URL + "/")


@pytest.fixture(scope="module")
def local_package_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_chapter(tmp_path_factory.mktemp("local"), A_REAL_REPOSITORY, LOCAL_PACKAGE)


def _page(site: Path) -> str:
    return (site / "book" / f"{CHAPTER}.html").read_text(encoding="utf-8")


def test_with_a_package_the_first_cell_is_the_install_cell_pinned_as_the_course():
    cell = first_cell("https://example.org/simple/pytrees-course/", course_pins())
    assert cell.cell_type == "code" and is_install_cell(cell.source)
    assert "'https://example.org/simple/pytrees-course/'" in cell.source
    assert "'jax==0.10.2'" in cell.source


def test_without_a_package_the_first_cell_names_the_course_installation():
    assert "pip install -r requirements.txt" in first_cell(None).source


@pytest.mark.parametrize(
    "url",
    [PLACEHOLDER_REPOSITORY, PLACEHOLDER_REPOSITORY + ".git", "https://gitlab.com/someone/course"],
)
def test_the_placeholder_and_other_hosts_name_no_github_repository(url):
    assert github_repository(url) is None


def test_a_github_address_names_its_repository():
    assert github_repository(A_REAL_REPOSITORY + ".git") == "someone/pytrees-course"


MYST_HEADER = "---\njupytext:\n  text_representation:\n    format_name: myst\n---\n\n"


def _published(folder: Path, body: str) -> nbformat.NotebookNode:
    """The published notebook of a chapter ``book/here.md`` whose MyST is ``body``."""
    source = folder / "here.md"
    source.write_text(MYST_HEADER + body, encoding="utf-8")
    book = Book(None, {"book/here": "Here"}, {}, published_exercise)
    return published_chapter(source, first_cell(None), book, "book/here")


def test_a_published_chapter_leaves_out_the_markdown_cells_for_a_clone_of_the_course(tmp_path):
    notebook = _published(
        tmp_path,
        "Open the exercise.\n\n"
        f'+++ {{"tags": ["{CLONE_ONLY}"]}}\n\n'
        "In a clone of the course, run `./course serve`.\n\n"
        "+++\n\n"
        "```{code-cell} ipython3\n1 + 1\n```\n",
    )
    markdown = [cell.source for cell in notebook.cells[1:] if cell.cell_type == "markdown"]
    assert markdown == ["Open the exercise."]


def test_a_published_chapter_hides_the_source_and_output_its_page_hides(tmp_path):
    notebook = _published(
        tmp_path,
        "```{code-cell} ipython3\n:tags: [hide-output]\n\n1 + 1\n```\n\n"
        "```{code-cell} ipython3\n:tags: [remove-input]\n\nquiz()\n```\n\n"
        "```{code-cell} ipython3\nshown = 1\n```\n",
    )
    question, answer, shown = notebook.cells[1:]
    assert question.metadata["jupyter"] == {"outputs_hidden": True}
    assert answer.metadata["jupyter"] == {"source_hidden": True}
    assert answer.metadata["cellView"] == "form"
    assert "jupyter" not in shown.metadata and "cellView" not in shown.metadata


@pytest.mark.slow
def test_a_built_chapter_publishes_its_notebook_with_the_first_cell_then_the_pages_cells(
    placeholder_site,
):
    published = nbformat.read(placeholder_site / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    page = jupytext.read(REPO_ROOT / "book" / f"{CHAPTER}.md", fmt="myst")
    expected = first_cell(None)
    assert (published.cells[0].cell_type, published.cells[0].source) == (
        expected.cell_type,
        expected.source,
    )
    code = [cell.source for cell in published.cells if cell.cell_type == "code"]
    assert code == [cell.source for cell in page.cells if cell.cell_type == "code"]
    assert len(code) > 10


@pytest.mark.slow
def test_a_book_given_the_packages_address_opens_each_chapter_notebook_with_the_install_cell(
    packaged_site,
):
    published = nbformat.read(packaged_site / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    assert published.cells[0].source == first_cell(PACKAGE_URL, course_pins()).source


@pytest.mark.slow
def test_a_published_chapter_notebook_runs_top_to_bottom(placeholder_site, tmp_path):
    notebook = nbformat.read(placeholder_site / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    NotebookClient(notebook, timeout=300, resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")


@pytest.mark.slow
def test_a_book_given_the_packages_address_publishes_the_exercise_as_released_with_it(
    packaged_site,
):
    published = nbformat.read(
        packaged_site / "notebooks" / "exercises" / f"{CHAPTER}.ipynb", as_version=4
    )
    exercise = nbformat.read(REPO_ROOT / EXERCISE, as_version=4)
    assert published.cells[0].source == first_cell(PACKAGE_URL, course_pins()).source
    assert [cell.get("id") for cell in published.cells[1:]] == [cell.id for cell in exercise.cells]
    assert "../../book/" in nbformat.writes(exercise)
    assert "../../book/" not in nbformat.writes(published)
    assert f"]({BOOK_URL}/book/{CHAPTER}.html)" in nbformat.writes(published)


@pytest.mark.slow
def test_a_chapter_page_opens_its_notebook_and_its_exercise_in_colab_and_binder(packaged_site):
    html = _page(packaged_site)
    for path in (f"notebooks/{CHAPTER}.ipynb", f"notebooks/exercises/{CHAPTER}.ipynb"):
        for url in (
            f"https://colab.research.google.com/github/someone/pytrees-course/blob/notebooks/{path}",
            f"https://mybinder.org/v2/gh/someone/pytrees-course/notebooks?labpath={path}",
        ):
            assert f'href="{url}"' in html, url


@pytest.mark.slow
def test_without_the_packages_address_a_chapter_page_has_no_colab_or_binder_link(real_site):
    html = _page(real_site)
    assert "colab.research.google.com" not in html
    assert "pt-open-links" not in html
    assert "mybinder.org/v2/gh/someone/pytrees-course/notebooks" not in html


@pytest.mark.slow
def test_a_package_at_a_local_path_installs_in_the_notebook_but_gives_no_colab_or_binder_link(
    local_package_site,
):
    published = nbformat.read(local_package_site / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    assert published.cells[0].source == first_cell(LOCAL_PACKAGE, course_pins()).source
    html = _page(local_package_site)
    assert "pt-open-links" not in html
    assert "colab.research.google.com" not in html


@pytest.mark.slow
def test_a_chapter_pages_exercise_link_serves_the_notebook_the_book_publishes(placeholder_site):
    hrefs = re.findall(r'href="([^"]*\.ipynb)"', _page(placeholder_site))
    assert f"../notebooks/exercises/{CHAPTER}.ipynb" in hrefs
    assert not [href for href in hrefs if "_downloads" in href]
    published = (placeholder_site / "book" / f"../notebooks/exercises/{CHAPTER}.ipynb").resolve()
    notebook = nbformat.read(published, as_version=4)
    assert notebook.cells[0].source == first_cell(None).source


@pytest.mark.slow
def test_a_chapter_page_has_no_colab_or_binder_link_while_the_repository_is_the_placeholder(
    placeholder_site,
):
    html = _page(placeholder_site)
    assert "colab.research.google.com" not in html
    assert "mybinder.org" not in html


def test_the_book_workflow_pushes_the_tree_notebooks_branch_writes_to_the_branch_links_open():
    workflow = yaml.safe_load(
        (REPO_ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8")
    )
    build = "\n".join(step.get("run", "") for step in workflow["jobs"]["build"]["steps"])
    assert "python -m booktools.notebooks_branch _build/html _build/notebooks-branch" in build
    uploads = [
        step
        for step in workflow["jobs"]["build"]["steps"]
        if "upload-artifact" in step.get("uses", "")
    ]
    assert uploads[0]["with"]["path"] == "_build/notebooks-branch"
    assert uploads[0]["with"]["include-hidden-files"] is True
    job = workflow["jobs"]["notebooks"]
    commands = "\n".join(step.get("run", "") for step in job["steps"])
    assert f"git checkout --quiet --orphan {NOTEBOOKS_BRANCH}" in commands
    assert f"git push --force origin {NOTEBOOKS_BRANCH}" in commands
    assert job["permissions"] == {"contents": "write"}


def _markdown_cells(built: Path) -> list[tuple[Path, str]]:
    """Each published chapter notebook's markdown cells, with the notebook's path."""
    notebooks = sorted((built / "notebooks").glob("*.ipynb"))
    assert len(notebooks) >= 10
    return [
        (path, cell.source)
        for path in notebooks
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "markdown"
    ]


def _hrefs(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    inline = [child for token in tokens for child in token.children or []]
    return [str(child.attrs["href"]) for child in inline if child.type == "link_open"]


# what MyST leaves in markdown that Jupyter shows as it is: a role, "{name}" then a
# backtick (but not a code span's text, as `{V:data}`), or a directive's fence,
# "```{name}" or ":::{name}"
MYST = re.compile(r"(?<!`)\{[\w:-]+\}`|^\s*(```|:::)\s*\{", re.MULTILINE)


@pytest.mark.slow
def test_no_published_chapter_notebook_of_the_book_keeps_a_myst_role_or_directive(built):
    for path, markdown in _markdown_cells(built):
        found = MYST.search(markdown)
        assert found is None, f"{path.name}: {markdown[found.start() : found.start() + 80]}"


@pytest.mark.slow
def test_every_link_of_a_published_chapter_notebook_is_an_address_or_a_file_beside_it(built):
    for path, markdown in _markdown_cells(built):
        for href in _hrefs(markdown):
            if not urlsplit(href).scheme:
                assert (path.parent / href.partition("#")[0]).is_file(), f"{path.name}: {href}"


@pytest.mark.slow
def test_no_published_chapter_notebook_asks_its_reader_for_a_clone_of_the_course(built):
    for path, markdown in _markdown_cells(built):
        for clone_only in ("./course serve", "localhost:8888", ".venv/bin/python"):
            assert clone_only not in markdown, f"{path.name}: {markdown[:300]}"
