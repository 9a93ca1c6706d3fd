"""The first cell of a notebook the course publishes to run outside a clone of it."""

from __future__ import annotations

import nbformat
from nbformat import NotebookNode

REQUIREMENTS = "pip install -r requirements.txt && pip install --no-deps -e ."


def first_cell(package_url: str | None) -> NotebookNode:
    """The cell a published notebook opens with: one line saying what to install.

    ``package_url`` is where the course's package can be installed from (a release
    asset or an index), or ``None`` when there is none: the line then names the
    course's own installation, from a clone of its repository. Today the cell is a
    markdown cell; it is the one place to change to make it a cell that installs.
    """
    if package_url is None:
        line = f"To run this notebook, install the course in a clone of it: `{REQUIREMENTS}`."
    else:
        line = f"To run this notebook, install the course first: `pip install {package_url}`."
    return nbformat.v4.new_markdown_cell(line)
