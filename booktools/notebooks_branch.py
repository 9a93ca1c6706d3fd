"""The tree of the branch the book's notebooks are published on, and nothing more.

Colab and Binder open a notebook only from a GitHub repository, so the book's workflow
commits this tree as the one commit of the branch ``notebooks`` (an orphan: none of the
course's history, solutions, hidden tests or grader comes with it), where the chapters'
links open it (:mod:`booktools.open_links`). It holds:

- ``notebooks/``: the chapter and exercise notebooks the build wrote into the site
  (:mod:`booktools.chapter_notebooks`);
- ``README.md``: what the branch is and where the book is;
- ``.binder/``: the environment Binder builds, the libraries the published notebooks
  import at the course's pins (:func:`autograder.author.release.course_pins`) on the
  Python the course's own Binder uses. The checker itself is not in it: each
  notebook's first cell installs it from ``course_package_url``, and finding the
  pinned libraries there, installs only the checker.

Run ``python -m booktools.notebooks_branch SITE TARGET [--commit SHA]`` after the build.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

import yaml

from autograder.author.release import course_pins
from autograder.load.book import book_url
from autograder.load.course import REPO_ROOT
from booktools.chapter_notebooks import NOTEBOOKS_FOLDER

CONFIG = REPO_ROOT / "_config.yml"
RUNTIME = REPO_ROOT / ".binder" / "runtime.txt"


def branch_readme(config: dict[str, Any], commit: str | None = None) -> str:
    """The branch's README: what it is, where the book is, what it was built from."""
    title = config.get("title", "the course")
    built = f" It was built from the course's commit {commit}." if commit else ""
    baseurl = (config.get("html") or {}).get("baseurl")
    repository = (config.get("repository") or {}).get("url")
    package = ((config.get("sphinx") or {}).get("config") or {}).get("course_package_url")
    opening = (
        "Open a notebook in Colab, on Binder (which builds `.binder/`) or in any Jupyter: its "
        "first cell installs the course's checker and the libraries it was tested with where "
        "they are missing."
        if package
        else "Each notebook's first cell says how to install the course to run it."
    )
    book = (
        f"The book: <{book_url(baseurl)}/>."
        if baseurl
        else "The book is built from the course's repository."
    )
    source = f" The course: <{repository}>." if repository else ""
    return (
        f"# {title}: the notebooks\n\n"
        f"This branch holds the notebooks the book publishes, and only them: each chapter "
        f"as `{NOTEBOOKS_FOLDER}/<chapter>.ipynb`, each exercise as "
        f"`{NOTEBOOKS_FOLDER}/exercises/<exercise>.ipynb`. The book's workflow replaces it "
        f"with every build; do not commit to it.{built}\n\n"
        f"{book}{source}\n\n"
        f"{opening}\n"
    )


def write_branch(
    site: Path, target: Path, config: dict[str, Any], commit: str | None = None
) -> None:
    """Write the branch's tree into ``target`` (created; it must not exist): the
    notebooks of the built ``site`` (``_build/html``), the README for ``config`` (the
    book's ``_config.yml``) and ``commit``, and ``.binder/``.

    Raises FileNotFoundError when ``site`` holds no notebooks folder, FileExistsError
    when ``target`` exists.
    """
    notebooks = site / NOTEBOOKS_FOLDER
    if not notebooks.is_dir():
        raise FileNotFoundError(f"{notebooks} does not exist: build the book first")
    target.mkdir(parents=True)
    shutil.copytree(notebooks, target / NOTEBOOKS_FOLDER)
    (target / "README.md").write_text(branch_readme(config, commit), encoding="utf-8")
    binder = target / ".binder"
    binder.mkdir()
    (binder / "requirements.txt").write_text(course_pins(), encoding="utf-8")
    shutil.copy(RUNTIME, binder / "runtime.txt")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built site, _build/html")
    parser.add_argument("target", type=Path, help="the folder to write the tree into")
    parser.add_argument("--commit", help="the course's commit the site was built from")
    parser.add_argument("--config", type=Path, default=CONFIG, help="the book's _config.yml")
    arguments = parser.parse_args(argv)
    config = yaml.safe_load(arguments.config.read_text(encoding="utf-8"))
    write_branch(arguments.site, arguments.target, config, arguments.commit)


if __name__ == "__main__":
    main()
