"""The course's exercises, read from the exercise notebooks themselves.

A notebook ``<dir>/<id>/<id>.ipynb`` is one chapter's exercise. Its nbgrader
metadata says everything the grader needs: the setup cell (``grade_id: setup``),
each graded function's solution cell (``solution: true``, ``grade_id`` the
function's name, hints in ``metadata.course.hints``) and its test cells
(``grade: true``, ``grade_id`` ``test_<function>``, ``points``). Nothing here is
declared a second time.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import importlib.util
import json
import sys
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PACKAGE_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE_DIR.parent
SOLUTIONS = REPO_ROOT / "solutions"
EXERCISES = REPO_ROOT / "exercises"
# Only in a learners' release: the checker's own copy of exercises/, and the chapters'
# order (the release has no _toc.yml).
COURSE_COPY = PACKAGE_DIR / "course"
CHAPTERS_FILE = COURSE_COPY / "chapters.json"

ALWAYS_IMPORTED = frozenset({"jax", "jaxlib", "numpy", "autograder"})
"""What every worker has imported before it runs a notebook (see ``Course.library_imports``)."""
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"


def grader_sources() -> list[Path]:
    """The grader's own Python files, in a fixed order (what a release or bundle copies)."""
    return sorted(p for p in PACKAGE_DIR.rglob("*.py") if "__pycache__" not in p.parts)


def course_fingerprint(course: Course) -> bytes:
    """A digest of the grader's code and ``course``'s notebooks (source and released).

    What a stored result or a compiled operation depends on, besides what its
    store adds (the seed, the limits, the versions of Python and JAX).
    """
    notebooks = [p for n in course.notebooks for p in (n.path, n.released_path) if p.exists()]
    digest = hashlib.sha256()
    for path in grader_sources() + sorted(notebooks):
        name = path.relative_to(REPO_ROOT).as_posix() if REPO_ROOT in path.parents else path.name
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


class CourseError(Exception):
    """An exercise notebook breaks the authoring conventions (see AUTHORING.md)."""


class CourseChanged(CourseError):
    """A course notebook does not hold the bytes it held when the course was loaded.

    The grader runs the course's setup and test cells in its own process, so what it
    runs must be the course's own. It runs them from what :func:`load_course` read,
    once, and keeps each notebook's bytes (and its released version's) from then on.
    Every later use of a course file (the tamper checks, the reference's timing) reads
    those bytes, and each notebook graded first checks that the source's file still
    holds them (:meth:`ExerciseNotebook.check_unchanged`). The grading processes of
    ``--jobs N`` are handed the loaded :class:`Course` itself, bytes included, so
    they check against the parent's snapshot, not one of their own. Checking, rather
    than only keeping the bytes in memory, makes a course changed during a run (a
    ``collect`` writing into it, a worker run without bubblewrap) stop the run with a
    message instead of grading a class against two versions of a notebook.
    """


@dataclass(frozen=True)
class TestCell:
    """One nbgrader test cell: its source, its points, and which lines are hidden."""

    __test__ = False  # not a pytest test class, despite the name

    grade_id: str
    function: str
    points: float
    source: str
    hidden_lines: frozenset[int]

    @property
    def filename(self) -> str:
        return f"<tests of {self.function}>"

    @property
    def free_names(self) -> frozenset[str]:
        """Names the cell reads but neither binds nor finds among Python's builtins.

        Those are the setup cell's names and the learner's: the grader gives each
        of the learner's a stand-in that calls it in the worker.
        """
        return free_names(self.source)

    @property
    def visible_source(self) -> str:
        """The cell as a learner sees it: hidden regions removed, as nbgrader does."""
        return "".join(
            line
            for number, line in enumerate(self.source.splitlines(True), start=1)
            if number not in self.hidden_lines
        )


@dataclass(frozen=True)
class GradedFunction:
    """One graded function. ``source`` is its solution cell as this notebook has it
    (the reference in ``solutions/``, the stub in ``exercises/``); ``probes`` and
    ``sealed`` serve :mod:`autograder.learner.sealing`. ``answered_by`` names the
    library call that computes the function's answers (``"jax.tree.leaves"``): a seal
    made from those answers would open without solving the exercise, so none is made.
    ``withheld`` is set by a release that ships no reference solutions."""

    name: str
    notebook: str
    hints: tuple[str, ...]
    tests: tuple[TestCell, ...]
    probes: tuple[str, ...] = ()
    sealed: str = ""
    source: str = ""
    answered_by: str = ""
    withheld: bool = False

    @property
    def points(self) -> float:
        return sum(test.points for test in self.tests)


@dataclass(frozen=True)
class ExerciseNotebook:
    """One chapter's exercise notebook and its graded functions, in notebook order."""

    id: str
    title: str
    path: Path
    setup_source: str
    functions: tuple[GradedFunction, ...]
    test_grade_ids: frozenset[str]
    source: bytes = field(default=b"", repr=False, compare=False)
    """The notebook's bytes as loaded: every later use of the notebook reads these."""
    released: bytes | None = field(default=None, repr=False, compare=False)
    """:attr:`released_path`'s bytes when the notebook was loaded (None if absent)."""

    def source_bytes(self) -> bytes:
        """The notebook's bytes as loaded; CourseChanged when its file no longer holds them."""
        self.check_unchanged()
        return self.source

    def released_bytes(self) -> bytes | None:
        """The released notebook's bytes as loaded (None: there was none)."""
        return self.released

    def check_unchanged(self) -> None:
        """Raise CourseChanged when the notebook's file no longer holds the bytes loaded.

        Only a course whose source is not the learner's own notebook is checked: in the
        course's repository, ``check`` reads the course from ``exercises/``, the very
        files a learner edits and saves while a check runs, on their own machine.
        """
        if self.path != self.released_path and _read_if_there(self.path) != self.source:
            raise CourseChanged(
                f"the course file {self.path} changed after grading started (its content "
                "is not what was read at the start); nothing was graded against it. Find "
                "what writes into the course, then grade again"
            )

    @property
    def filename(self) -> str:
        return f"{self.id}.ipynb"

    @property
    def library_imports(self) -> tuple[str, ...]:
        """The modules beyond the standard library, JAX, NumPy and the grader's own that the
        setup cell imports (``equinox``, ``flax``, and ``flax.nnx`` for ``from flax import
        nnx``), in the order it imports them."""
        found: list[str] = []
        try:
            tree = ast.parse(self.setup_source)
        except SyntaxError:
            return ()
        for node in tree.body:
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [alias.name for alias in node.names]
                modules = [node.module, *_submodules(node.module, names)]
            else:
                continue
            found += [
                module
                for module in modules
                if module.split(".")[0] not in ALWAYS_IMPORTED | sys.stdlib_module_names
                and module not in found
            ]
        return tuple(found)

    @property
    def released_path(self) -> Path:
        """The learner's version of this notebook, as nbgrader generated it."""
        return learner_course_folder() / self.id / self.filename

    @property
    def points(self) -> float:
        return sum(function.points for function in self.functions)


def _submodules(package: str, names: list[str]) -> list[str]:
    """``package.name`` for each of ``names`` that is a module of ``package`` on disk.

    Read from the package's folder, not by importing it: a package (Flax) need not
    import a submodule (``flax.nnx``) itself, and the zygote preloads only what is named.
    """
    try:
        spec = importlib.util.find_spec(package.split(".")[0])
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    folders = [Path(f, *package.split(".")[1:]) for f in spec.submodule_search_locations]

    def on_disk(name: str) -> bool:
        return any(
            (f / name / "__init__.py").is_file() or (f / f"{name}.py").is_file() for f in folders
        )

    return [f"{package}.{name}" for name in names if on_disk(name)]


@dataclass(frozen=True)
class Course:
    notebooks: tuple[ExerciseNotebook, ...]

    def notebook(self, notebook_id: str) -> ExerciseNotebook:
        for notebook in self.notebooks:
            if notebook.id == notebook_id:
                return notebook
        raise KeyError(notebook_id)

    def function(self, name: str) -> GradedFunction:
        for notebook in self.notebooks:
            for function in notebook.functions:
                if function.name == name:
                    return function
        raise KeyError(name)

    @property
    def functions(self) -> tuple[GradedFunction, ...]:
        return tuple(f for notebook in self.notebooks for f in notebook.functions)

    @property
    def points(self) -> float:
        return sum(notebook.points for notebook in self.notebooks)

    def only(self, notebook_ids: Collection[str]) -> Course:
        """The course cut down to ``notebook_ids`` (what a class was assigned), in course order.

        Raises KeyError naming an id that is not one of the course's notebooks.
        """
        unknown = sorted(set(notebook_ids) - {notebook.id for notebook in self.notebooks})
        if unknown:
            raise KeyError(", ".join(unknown))
        return Course(tuple(n for n in self.notebooks if n.id in notebook_ids))


def learner_course_folder() -> Path:
    """Where ``check``, ``status`` and the notebooks' helpers read the course from.

    In the course's repository that is ``exercises/``. A learners' release holds
    the checker's own copy of it, so that editing a locked cell of a notebook
    changes neither the tests that run nor what counts as tampering.
    """
    return COURSE_COPY if COURSE_COPY.is_dir() else EXERCISES


@cache
def load_course(directory: Path = SOLUTIONS) -> Course:
    """Every ``<id>/<id>.ipynb`` under ``directory``, sorted by chapter order.

    Chapter order is :func:`chapter_order`'s when the chapter is listed there, then
    the id.
    """
    paths = sorted(path for path in directory.glob("*/*.ipynb") if path.stem == path.parent.name)
    if not paths:
        raise CourseError(f"no exercise notebooks under {directory}")
    order = chapter_order()
    paths.sort(key=lambda path: (order.get(path.stem, len(order)), path.stem))
    return Course(tuple(load_notebook(path) for path in paths))


def chapter_order() -> dict[str, int]:
    """Chapter ids in reading order: ``_toc.yml``'s, or else a release's ``chapters.json``'s."""
    return toc_order() or released_order()


def released_order() -> dict[str, int]:
    """Chapter ids in the order a release's ``chapters.json`` lists them (none without one)."""
    try:
        chapters = json.loads(CHAPTERS_FILE.read_text(encoding="utf-8")).get("chapters")
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(chapters, list):
        return {}
    return {str(chapter): index for index, chapter in enumerate(chapters)}


def toc_order() -> dict[str, int]:
    """Chapter ids in the order ``_toc.yml`` lists ``book/<id>`` (parts and sections included)."""
    toc = REPO_ROOT / "_toc.yml"
    try:
        tree = yaml.safe_load(toc.read_text(encoding="utf-8"))
    except OSError:
        return {}
    except yaml.YAMLError as exc:
        raise CourseError(f"_toc.yml is not valid YAML: {exc}") from None
    ids = [entry.removeprefix("book/") for entry in toc_files(tree)]
    return {chapter: index for index, chapter in enumerate(ids) if "/" not in chapter}


def toc_files(tree: object) -> list[str]:
    """Every ``file`` entry of a Jupyter Book table of contents, in reading order."""
    if isinstance(tree, list):
        return [path for item in tree for path in toc_files(item)]
    if not isinstance(tree, dict):
        return []
    found = [str(tree["file"]).removesuffix(".md")] if "file" in tree else []
    for key in ("parts", "chapters", "sections"):
        found += toc_files(tree.get(key))
    return found


def _read_if_there(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@dataclass(frozen=True)
class CourseCell:
    """A cell of one of the course's own notebooks, as its file holds it."""

    cell_type: str
    source: str
    metadata: dict[str, Any]


def read_course_cells(data: bytes) -> list[CourseCell]:
    """The cells of a course notebook's bytes (nbformat 4, the course's own file).

    Read as JSON, not with nbformat: importing nbformat (and the JSON schema validator it
    brings) would cost ``status`` a third of a second, and the course's files need neither
    conversion nor validation on every load.
    """
    cells = json.loads(data.decode("utf-8"))["cells"]
    return [
        CourseCell(
            cell["cell_type"],
            "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"],
            cell.get("metadata", {}),
        )
        for cell in cells
    ]


def load_notebook(path: Path) -> ExerciseNotebook:
    data = path.read_bytes()
    cells = read_course_cells(data)
    setup = ""
    solutions: dict[str, CourseCell] = {}
    tests: dict[str, list[TestCell]] = {}
    order: list[str] = []
    for cell in cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id", "")
        if cell.cell_type != "code" or not grade_id:
            continue
        if grade_id == "setup":
            setup = cell.source
        elif meta.get("solution"):
            order.append(grade_id)
            solutions[grade_id] = cell
        elif meta.get("grade"):
            if not grade_id.startswith("test_"):
                raise CourseError(f"{path}: test cell {grade_id!r} must be named test_<function>")
            function = grade_id.removeprefix("test_")
            tests.setdefault(function, []).append(
                TestCell(
                    grade_id=grade_id,
                    function=function,
                    points=float(meta.get("points", 0)),
                    source=cell.source,
                    hidden_lines=hidden_lines(cell.source),
                )
            )
    for function in tests:
        if function not in solutions:
            raise CourseError(f"{path}: tests for {function!r} but no solution cell of that name")
    title = next(
        (
            c.source.splitlines()[0].lstrip("# ").strip()
            for c in cells
            if c.cell_type == "markdown" and c.source
        ),
        path.stem,
    )
    functions = tuple(
        _graded_function(name, path.stem, solutions[name], tuple(tests.get(name, ())))
        for name in order
    )
    return ExerciseNotebook(
        id=path.stem,
        title=title,
        path=path,
        setup_source=setup,
        functions=functions,
        test_grade_ids=frozenset(t.grade_id for f in functions for t in f.tests),
        source=data,
        released=_read_if_there(learner_course_folder() / path.stem / path.name),
    )


def _graded_function(
    name: str, notebook: str, cell: CourseCell, tests: tuple[TestCell, ...]
) -> GradedFunction:
    course = cell.metadata.get("course", {})
    return GradedFunction(
        name=name,
        notebook=notebook,
        hints=tuple(course.get("hints", ())),
        tests=tests,
        probes=tuple(course.get("probes", ())),
        sealed=str(course.get("sealed", "")),
        source=cell.source,
        answered_by=str(course.get("answered_by", "")),
        withheld=course.get("withheld") is True,
    )


@cache
def free_names(source: str) -> frozenset[str]:
    """Names ``source`` loads without binding them anywhere, builtins left out."""
    loaded, bound = _names(source)
    return frozenset(loaded - bound - set(dir(builtins)))


def bound_names(source: str) -> frozenset[str]:
    """Names ``source`` binds anywhere: assignments, definitions, imports, arguments."""
    return frozenset(_names(source)[1])


def _names(source: str) -> tuple[set[str], set[str]]:
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loaded, bound


def hidden_lines(source: str) -> frozenset[int]:
    """1-based numbers of the lines inside hidden-test regions, markers included."""
    return region_lines(source, HIDDEN_BEGIN, HIDDEN_END)


def region_lines(source: str, begin: str, end: str) -> frozenset[int]:
    """1-based numbers of the lines from each ``begin`` marker line to its ``end``, both
    included (markers stand on lines of their own, as nbgrader's do)."""
    region: set[int] = set()
    inside = False
    for number, line in enumerate(source.splitlines(), start=1):
        marker = line.strip()
        if marker == begin:
            inside = True
        if inside:
            region.add(number)
        if marker == end:
            inside = False
    return frozenset(region)
