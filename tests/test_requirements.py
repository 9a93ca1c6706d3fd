"""The pinned requirements: requirements-grading.txt holds what the grader imports, and
requirements.txt includes it and adds only what the book, the tests and the tools need."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nbformat

from autograder.load.course import PACKAGE_DIR, REPO_ROOT, SOLUTIONS
from autograder.load.learner_notebook import to_python

GRADING = REPO_ROOT / "requirements-grading.txt"
FULL = REPO_ROOT / "requirements.txt"

# The distribution that provides each third-party module the grader imports.
# packaging is not pinned: it comes with pytest (release reads requirements with it).
# SQLAlchemy is not pinned: it comes with nbgrader, whose gradebook --gradebook writes;
# nor is traitlets, nbgrader's configuration, which `generate` hands nbgrader_config.py in.
PROVIDED_BY = {
    "IPython": "ipython",
    "jax": "jax",
    "jaxlib": "jaxlib",
    "jinja2": "jinja2",
    "matplotlib": "matplotlib",
    "nbformat": "nbformat",
    "nbgrader": "nbgrader",
    "numpy": "numpy",
    "packaging": "pytest",
    "pytest": "pytest",
    "pyseccomp": "pyseccomp",
    "rich": "rich",
    "sqlalchemy": "nbgrader",
    "traitlets": "nbgrader",
    "yaml": "pyyaml",
}


def pinned(requirements: Path) -> set[str]:
    """The normalized names of the packages ``requirements`` lists itself (not its ``-r``)."""
    names = set()
    for line in requirements.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line.split("#", 1)[0])
        if match:
            names.add(re.sub(r"[-_.]+", "-", match.group(1)).lower())
    return names


def third_party_imports(package: Path) -> dict[str, Path]:
    """Each top-level module outside the standard library that ``package`` imports, with
    one file that imports it."""
    found: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        for top in imported_modules(path.read_text(encoding="utf-8")) - {package.name}:
            found.setdefault(top, path.relative_to(REPO_ROOT))
    return found


def imported_modules(source: str) -> set[str]:
    """The top-level modules outside the standard library that ``source`` imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        found |= {m.split(".")[0] for m in modules} - set(sys.stdlib_module_names)
    return found


def test_requirements_txt_includes_the_graders_requirements():
    lines = [line.strip() for line in FULL.read_text(encoding="utf-8").splitlines()]
    assert f"-r {GRADING.name}" in lines


def test_no_package_is_pinned_in_both_files():
    both = pinned(GRADING) & pinned(FULL)
    assert not both, f"pinned in both {GRADING.name} and {FULL.name}: {sorted(both)}"


def test_requirements_grading_provides_every_module_the_grader_imports():
    grading = pinned(GRADING)
    imports = third_party_imports(PACKAGE_DIR)
    assert {"jax", "nbformat", "nbgrader", "rich"} <= set(imports)
    for module, where in imports.items():
        assert module in PROVIDED_BY, (
            f"{where} imports {module}: pin its distribution in {GRADING.name} "
            "and name it in PROVIDED_BY"
        )
        assert PROVIDED_BY[module] in grading, (
            f"{where} imports {module}, but {GRADING.name} does not pin {PROVIDED_BY[module]}"
        )


# The distribution that provides each module the exercise notebooks import, beyond the
# grader's own; a worker imports them when it runs a learner's notebook.
NOTEBOOKS_IMPORT = {**PROVIDED_BY, "equinox": "equinox", "flax": "flax", "optax": "optax"}


def test_requirements_grading_provides_every_module_the_notebooks_import():
    grading = pinned(GRADING)
    for path in sorted(SOLUTIONS.glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for module in imported_modules(to_python(cell.source)) - {"autograder"}:
                assert NOTEBOOKS_IMPORT.get(module) in grading, (
                    f"{path.name} imports {module}: pin its distribution in {GRADING.name}"
                )
