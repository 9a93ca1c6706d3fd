"""The learners' package: the checker the exercise notebooks import, as a wheel.

A learner's kernel imports :data:`ENTRY_POINTS` (the setup cells import
``autograder.notebook``, the test cells ``autograder.watchers`` and, in hidden tests,
``autograder.seeding``; the chapters' notebooks ``booktools``, for their diagrams and
quizzes). The package holds what those import, directly or not
(:func:`package_modules`, read from the modules' own import statements), and the
release's copy of the course (the released notebooks with their visible tests and
sealed solutions, ``chapters.json``, ``book.json``): none of the grading machinery, and
no hidden test, since the released notebooks hold none.

Its distribution name and version are those of ``learners/pyproject.toml``
(:func:`distribution`), the one place that says them; a release writes the wheel into
its ``dist/`` folder (:func:`build_wheel`).
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from autograder.load.course import PACKAGE_DIR, REPO_ROOT

ENTRY_POINTS = ("autograder.notebook", "autograder.watchers", "autograder.seeding", "booktools")
LEARNERS_PYPROJECT = REPO_ROOT / "learners" / "pyproject.toml"
_ROOT = PACKAGE_DIR.name


class PackageError(Exception):
    """The wheel cannot be built; the message says why."""


def learners_project() -> dict[str, Any]:
    """The ``[project]`` table of ``learners/pyproject.toml``."""
    return tomllib.loads(LEARNERS_PYPROJECT.read_text(encoding="utf-8")).get("project", {})


def distribution() -> tuple[str, str]:
    """The learners' package's distribution name and version, from ``learners/pyproject.toml``."""
    project = learners_project()
    return project["name"], project["version"]


def wheel_name() -> str:
    """The file name of the wheel :func:`build_wheel` makes (pure Python, any platform)."""
    name, version = distribution()
    return f"{canonicalize_name(name).replace('-', '_')}-{version}-py3-none-any.whl"


def module_file(module: str, root: Path | None = None) -> Path | None:
    """The source file of ``module`` (``autograder.x.y``) under ``root``, its top-level
    package's folder (by default the repository's folder of that name); None when it is
    not one of that package's modules."""
    root = root or REPO_ROOT / module.split(".")[0]
    path = root.joinpath(*module.split(".")[1:])
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def imported_by(module: str, root: Path | None = None) -> set[str]:
    """Every module that ``module``'s import statements name, wherever they stand (a
    function's own imports included), but for those under ``if TYPE_CHECKING:``, which
    never run. ``from a import b`` names ``a``, and ``a.b`` too where it is a module."""
    path = module_file(module, root)
    assert path is not None, module
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in _run_time_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[: len(package) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def _run_time_nodes(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` but for the bodies of ``if TYPE_CHECKING:``."""
    nodes = []
    todo = [tree]
    while todo:
        node = todo.pop()
        nodes.append(node)
        if isinstance(node, ast.If) and _type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return nodes


def _type_checking(test: ast.expr) -> bool:
    """Whether ``test`` is ``TYPE_CHECKING`` (or ``typing.TYPE_CHECKING``), false at run time."""
    name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
    return name == "TYPE_CHECKING"


def package_modules(
    entry_points: tuple[str, ...] = ENTRY_POINTS, root: Path | None = None
) -> list[str]:
    """The modules of the entry points' top-level packages that importing ``entry_points``
    may import, sorted: theirs, what they import, directly or not, and each one's parent
    packages (importing a module runs its packages' ``__init__``). ``root`` is the one
    top-level package's folder (see :func:`module_file`)."""
    tops = {module.split(".")[0] for module in entry_points}
    found: set[str] = set()
    todo = list(entry_points)
    while todo:
        module = todo.pop()
        if module in found or module_file(module, root) is None:
            continue
        found.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:end]) for end in range(1, len(parts))]
        todo += [name for name in imported_by(module, root) if name.split(".")[0] in tops]
    return sorted(found)


def requirements(modules: list[str], notebook_imports: set[str]) -> list[str]:
    """The distributions the package needs, by name, sorted: those providing the modules
    that ``modules`` import, and ``notebook_imports`` (what the course's notebooks, whose
    setup and test cells ``check`` runs, import). Their versions are the course's, which
    the release's ``requirements.txt`` pins: an install names them beside the wheel."""
    imported = set(notebook_imports)
    for module in modules:
        imported |= {name.split(".")[0] for name in imported_by(module)}
    imported -= {module.split(".")[0] for module in ENTRY_POINTS} | set(sys.stdlib_module_names)
    providers = importlib.metadata.packages_distributions()
    missing = sorted(name for name in imported if name not in providers)
    if missing:
        raise PackageError(f"no installed distribution provides {', '.join(missing)}")
    return sorted({canonicalize_name(dist) for name in imported for dist in providers[name]})


def build_wheel(course_files: Mapping[Path, bytes], notebook_imports: set[str]) -> bytes:
    """The wheel of the learners' package: :func:`package_modules`, and ``course_files``
    (the release's copy of the course, by path relative to the package's folder).

    Built by ``pip wheel`` with setuptools, as pinned in ``requirements.txt``, from this
    environment (``--no-build-isolation``: nothing is downloaded, so a release builds
    offline, and with the versions the course pins); pip is in every venv, where the
    ``build`` front end is not. Raises PackageError with pip's message when the build fails.
    """
    modules = package_modules()
    with tempfile.TemporaryDirectory(prefix="learners-wheel-") as temporary:
        source = Path(temporary) / "source"
        for module in modules:
            path = module_file(module)
            assert path is not None
            _write(source / path.relative_to(REPO_ROOT), path.read_bytes())
        for relative, content in course_files.items():
            _write(source / _ROOT / relative, content)
        _write(source / "LICENSE", (REPO_ROOT / "LICENSE").read_bytes())
        pyproject = _pyproject(modules, course_files, requirements(modules, notebook_imports))
        _write(source / "pyproject.toml", pyproject.encode())
        dist = Path(temporary) / "dist"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "--no-index", "--quiet", "--wheel-dir", str(dist), str(source)],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        built = dist / wheel_name()
        if done.returncode != 0 or not built.is_file():
            raise PackageError(f"pip wheel failed:\n{(done.stderr or done.stdout).strip()}")
        return built.read_bytes()


def _write(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


def _is_package(module: str) -> bool:
    path = module_file(module)
    return path is not None and path.name == "__init__.py"


def _pyproject(modules: list[str], course_files: Mapping[Path, bytes], needs: list[str]) -> str:
    """The wheel's ``pyproject.toml``: ``learners/pyproject.toml``'s name, version and
    description, the packages among ``modules`` and the course's files as package data."""
    project = learners_project()
    packages = [m for m in modules if _is_package(m)]
    data = sorted(path.as_posix() for path in course_files)
    lines = [
        "[build-system]",
        'requires = ["setuptools>=77"]',
        'build-backend = "setuptools.build_meta"',
        "[project]",
        *(f"{key} = {json.dumps(project[key])}" for key in ("name", "version", "description")),
        f"requires-python = {json.dumps(project['requires-python'])}",
        f"license = {json.dumps(project['license'])}",
        f"dependencies = {json.dumps(needs)}",
        "[tool.setuptools]",
        f"packages = {json.dumps(packages)}",
        "[tool.setuptools.package-data]",
        f"{_ROOT} = {json.dumps(data)}",
    ]
    return "\n".join(lines) + "\n"
