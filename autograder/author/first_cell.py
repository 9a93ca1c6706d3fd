"""The first cell of a notebook the course publishes to run outside a clone of it.

Given the address of the learners' package (``release --package-url``), the cell
installs the course's checker and the libraries it was tested with, through pip, when
the kernel's Python lacks them: a notebook opened in Colab, Binder or any Jupyter
then works with nothing but pip. In the course's own environment (a clone, or the
learners' release, set up from the pinned requirements) it does nothing.
"""

from __future__ import annotations

import nbformat
from nbformat import NotebookNode
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.author.learner_package import distribution
from autograder.load.install_cell import install_cell_source

REQUIREMENTS = "pip install -r requirements.txt && pip install --no-deps -e ."
INSTALL_MINUTES = "a few minutes the first time, seconds once pip has them"


def first_cell(package_url: str | None, pins: str = "") -> NotebookNode:
    """The cell a published notebook opens with.

    ``package_url`` is where the learners' package can be installed from: a wheel's
    address (a release asset, a path), or else a folder or page that links the wheel
    (pip's ``--find-links``: a local folder, an index's page of the package). ``pins``
    are the lines of the requirements file that pins the course's libraries (the
    release's ``requirements.txt``): pip installs what the package depends on at those
    versions. With ``package_url``, a code cell that installs them unless the checker is
    importable with the pinned JAX, saying in one line what it installs and how long it
    may take. Without, a markdown line naming the course's own installation, from a clone.
    """
    if package_url is None:
        line = f"To run this notebook, install the course in a clone of it: `{REQUIREMENTS}`."
        return nbformat.v4.new_markdown_cell(line)
    name, version = distribution()
    if package_url.endswith(".whl"):
        requirement, find_links = package_url, None
    else:
        requirement, find_links = f"{name}=={version}", package_url
    constraints = [line.strip() for line in pins.splitlines() if _pinned(line)]
    versions = {canonicalize_name(Requirement(line).name): line for line in constraints}
    jax = versions["jax"].split("==", 1)[1] if "jax" in versions else None
    said = (
        f"Installing the course's checker ({name} {version}) and the libraries it was tested "
        f"with{f' (JAX {jax})' if jax else ''} from {package_url}: {INSTALL_MINUTES}."
    )
    source = install_cell_source(requirement, find_links, constraints, jax, said)
    # one id, not a random one: a release's two copies of a notebook are the same file
    return nbformat.v4.new_code_cell(source, id="install-course")


def _pinned(line: str) -> bool:
    """Whether a requirements file's ``line`` pins one distribution to one version."""
    line = line.split("#", 1)[0].strip()
    return bool(line) and not line.startswith("-") and "==" in line
