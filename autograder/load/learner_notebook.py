"""A learner's notebook file, read as data: which cells of it the worker should run."""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from dataclasses import dataclass
from json import JSONDecodeError
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.load.checksum import cell_checksum
from autograder.load.course import Course, ExerciseNotebook
from autograder.load.file_names import shown_name
from autograder.load.install_cell import is_install_cell

if TYPE_CHECKING:
    import nbformat

HINT_RECORD = "application/vnd.pytrees-hands-on.hints+json"
"""The output type ``hint`` leaves in a saved notebook: ``{"function": name, "opened": n}``."""
MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024


class NotebookUnreadable(Exception):
    """The file cannot be graded; the message names it and says why."""


class NotebookDamaged(NotebookUnreadable):
    """The file's contents are not a notebook; the message names it, says why in plain
    words, and what to do: re-save or re-download it."""

    def __init__(self, filename: str, why: str) -> None:
        super().__init__(
            f"the notebook file {filename} is damaged ({why}): re-save or re-download it"
        )


@dataclass(frozen=True)
class CourseCells:
    """What the course's own copy of a notebook says about a learner's copy of it.

    ``accepted`` holds, per grade_id of a locked cell, the checksums a learner's copy of
    that cell may have (nbgrader's, stored in the released notebook, and the course
    source's). ``given`` are the locked cells that are neither tests nor graded, as
    (grade_id, source) in notebook order: the setup cell and the "given" helper cells.
    ``graded_names`` are the names the course's solution cells bind at module level.
    """

    accepted: dict[str, frozenset[str | None]]
    given: tuple[tuple[str, str], ...]
    graded_names: frozenset[str]

    def owns(self, cell: nbformat.NotebookNode) -> bool:
        """Whether ``cell`` is one of the course's locked cells, unchanged.

        Decided by grade_id and checksum (which covers the source and the nbgrader
        flags), never by the cell's own ``locked`` flag, which the learner can set.
        """
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        checksums = self.accepted.get(grade_id) if isinstance(grade_id, str) else None
        return checksums is not None and _checksum(cell) in checksums

    @property
    def given_names(self) -> frozenset[str]:
        """The module-level names the given cells bind, the graded ones left out."""
        names = {name for _, source in self.given for name in top_level_names(source)}
        return frozenset(names - self.graded_names)


def course_cells(released: nbformat.NotebookNode, source: nbformat.NotebookNode) -> CourseCells:
    """Read :class:`CourseCells` from the released notebook and the course's source."""
    accepted: dict[str, set[str | None]] = {}
    for cell in released.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("locked") and "checksum" in meta:
            accepted[meta["grade_id"]] = {meta["checksum"]}
    for grade_id, cell in _by_grade_id(source).items():
        if grade_id in accepted:
            accepted[grade_id].add(_checksum(cell))
    given, graded = [], set()
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        if meta.get("solution"):
            graded |= top_level_names(_source(cell))
        elif meta.get("locked") and not meta.get("grade") and meta.get("grade_id"):
            given.append((meta["grade_id"], _source(cell)))
    return CourseCells(
        {grade_id: frozenset(checksums) for grade_id, checksums in accepted.items()},
        tuple(given),
        frozenset(graded),
    )


def cells_to_run(
    nb: nbformat.NotebookNode, exercise: ExerciseNotebook, course: CourseCells
) -> list[tuple[int, str]]:
    """The learner's code cells, as (cell number from 1, source), then the course's given cells.

    The learner's copies of the test cells are left out: tests always come from
    the course's own notebook, so editing them changes nothing; so is the course's
    install cell (:func:`autograder.load.install_cell.is_install_cell`), which installs
    nothing where the grader runs. After the learner's
    last cell the course's own copies of the given cells (setup and helpers) run
    again, numbered after the notebook's last cell, so that what they define is the
    course's whatever the learner's cells rebound. A statement of theirs that binds a
    name the course's solution cells bind is left out of the re-run: those names are
    the learner's to define.
    """
    cells = []
    for number, cell in enumerate(nb.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in exercise.test_grade_ids or is_install_cell(_source(cell)):
            continue
        cells.append((number, _source(cell)))
    after = len(nb.cells)
    for offset, (_, source) in enumerate(course.given, start=1):
        cells.append((after + offset, _without_bindings_of(source, course.graded_names)))
    return cells


def to_python(source: str) -> str:
    """Cell source as plain Python: IPython turns magics into ``get_ipython()`` calls."""
    if "%" not in source and "!" not in source:
        return source
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def top_level_names(source: str) -> set[str]:
    """Names ``source`` binds in the module's namespace: at its top level (inside
    ``if``, ``for``, ``with`` or ``try`` too, not inside a function or class body),
    and names a function declares ``global``. Empty for a source that does not parse."""
    tree = parsed(source)
    if tree is None:
        return set()
    names: set[str] = set()
    for statement in tree.body:
        names |= _statement_names(statement)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            names.update(node.names)
    return names


TOO_DEEP = (RecursionError, MemoryError)
"""What ``ast.parse`` raises for a cell nested deeper than its parser goes."""


def parsed(source: str) -> ast.Module | None:
    """``source``'s syntax tree; None when it does not parse, for a syntax error or for
    nesting deeper than the parser goes: its RecursionError (MemoryError from Python
    3.11's parser), raised in the grading process, would otherwise stop the whole batch."""
    try:
        return ast.parse(source)
    except (SyntaxError, *TOO_DEEP):
        return None


def _statement_names(statement: ast.stmt) -> set[str]:
    """The module-level names one top-level statement binds."""
    names: set[str] = set()
    pending: list[ast.AST] = [statement]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            pending += node.decorator_list  # a walrus in a decorator binds at module level
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        pending += ast.iter_child_nodes(node)
    return names


def _without_bindings_of(source: str, names: frozenset[str]) -> str:
    """``source`` with each top-level statement that binds one of ``names`` blanked out
    (line numbers kept, so a traceback still points at the course's lines)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines(True)
    for statement in tree.body:
        if _statement_names(statement) & names:
            first = min([statement.lineno, *(d.lineno for d in _decorators(statement))])
            for index in range(first - 1, statement.end_lineno or statement.lineno):
                lines[index] = "\n"
    return "".join(lines)


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    return list(getattr(statement, "decorator_list", []))


def cells_rebinding_given(nb: nbformat.NotebookNode, course: CourseCells) -> list[str]:
    """The learner's own code cells that rebind a name a course's given cell defines, as
    ``"<cell label> (names)"``. Re-importing a module under the name the setup cell gave
    it (``import jax``) is no rebinding."""
    given = course.given_names
    course_imports: dict[str, str] = {}
    for _, source in course.given:
        course_imports.update(_imports(source))
    found = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code" or course.owns(cell):
            continue
        source = _source(cell)
        same = {n for n, target in _imports(source).items() if course_imports.get(n) == target}
        rebound = (top_level_names(source) & given) - same
        if rebound:
            found.append(f"{cell_label(source)} ({', '.join(sorted(rebound))})")
    return found


def _imports(source: str) -> dict[str, str]:
    """Names ``source``'s top-level imports bind, each with what it is bound to."""
    tree = parsed(source)
    if tree is None:
        return {}
    bound: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                name = alias.asname or alias.name.split(".")[0]
                bound[name] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(statement, ast.ImportFrom) and not statement.level:
            for alias in statement.names:
                bound[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    return bound


def _source(cell: nbformat.NotebookNode) -> str:
    """A cell's source as one string (a notebook file may store it as a list of lines)."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def hints_opened(nb: nbformat.NotebookNode) -> dict[str, int]:
    """How many hints of each function the notebook's saved outputs say were opened.

    ``hint`` leaves a :data:`HINT_RECORD` output each time it runs; the largest count
    per function wins. It is the learner's own file: outputs can be cleared or
    edited, so this is what the notebook says, not a proof.
    """
    opened: dict[str, int] = {}
    for cell in nb.cells:
        outputs = cell.get("outputs", []) if cell.get("cell_type") == "code" else []
        for output in outputs if isinstance(outputs, list) else []:
            data = output.get("data", {}) if isinstance(output, dict) else {}
            record = data.get(HINT_RECORD) if isinstance(data, dict) else None
            if not isinstance(record, dict):
                continue
            name, count = record.get("function"), record.get("opened")
            if isinstance(name, str) and type(count) is int and count > 0:
                opened[name] = max(opened.get(name, 0), count)
    return opened


def cell_label(source: str) -> str:
    """How a report names a code cell: by its first line, as the learner sees it.

    Not by a number: counting cells would count Markdown cells too, and JupyterLab
    shows no cell numbers.
    """
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    if not first:
        return "an empty cell"
    return f'the cell "{first[:60]}{"…" if len(first) > 60 else ""}"'


GRADER_TOUCHING = re.compile(
    r"autograder|sys\s*\.\s*modules|\bjax\s*\.\s*_src\b|\bimport\s+_src\b|\b_src\s*\.|"
    r"__import__|\bimportlib\b|\bctypes\b|\bpythonapi\b|\bdefault_registry\b"
)
"""Text that reaches the grader's modules or JAX's internals: ``sys.modules`` also catches a
name spelled in pieces (``'auto' + 'grader'``)."""


LEARNER_TOOLS = frozenset({"check", "hint", "solution", "status"})
"""The names ``autograder.notebook`` offers a learner (its ``__all__``)."""


def cells_touching_the_grader(nb: nbformat.NotebookNode, course: CourseCells) -> list[str]:
    """The learner's own code cells that could patch what the watchers see, by :func:`cell_label`.

    A cell is the learner's unless it is one of the course's locked cells, unchanged
    (:meth:`CourseCells.owns`), or its install cell; its own ``locked`` flag counts for
    nothing. It is reported when it mentions ``autograder``, ``sys.modules``, ``jax._src``,
    ``importlib``, ``__import__``, ``ctypes`` or JAX's ``default_registry``, or assigns
    to (or ``setattr``s, or deletes) an attribute of ``jax`` or of one of JAX's tree
    modules (see book/security.md); unless all it does is import the learner's tools
    (:func:`imports_learner_tools_only`).
    """
    found = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code" or course.owns(cell):
            continue
        source = _source(cell)
        if is_install_cell(source):
            continue
        # Python reads identifiers in NFKC form, so a full-width ``ａｕｔｏｇｒａｄｅｒ`` imports
        # the grader: the text is searched as Python will read it. The exemption parses the
        # cell, so it is asked only of a cell the search finds.
        mentions = GRADER_TOUCHING.search(unicodedata.normalize("NFKC", source))
        if (mentions and not imports_learner_tools_only(source)) or _patches_jax(source):
            found.append(cell_label(source))
    return found


def imports_learner_tools_only(source: str) -> bool:
    """Whether ``source`` is nothing but ``from autograder.notebook import ...`` of
    :data:`LEARNER_TOOLS`, each under its own name: the import the course's docs once told
    learners to add, which touches nothing the watchers see. Any other statement, module,
    alias or form of import leaves the cell to be reported."""
    tree = parsed(source)
    return (
        tree is not None
        and bool(tree.body)
        and all(
            isinstance(node, ast.ImportFrom)
            and node.module == "autograder.notebook"
            and node.level == 0
            and all(alias.name in LEARNER_TOOLS and alias.asname is None for alias in node.names)
            for node in tree.body
        )
    )


PATCHED_MODULES = ("jax", "tree_util", "jtu")
"""Names whose attributes a learner's cell should not set: ``jax`` itself (``jax.tree``,
``jax.tree_util``, ``jax.vmap``) and ``tree_util`` by its usual names (not ``tree``: a
learner's own variable is often called that)."""


def _patches_jax(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    except TOO_DEEP:  # how deep the parser goes depends on the caller's stack:
        return True  # a worker, less deep, may run what is too deep to read here
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
            "setattr",
            "delattr",
        ):
            targets = [ast.Attribute(value=node.args[0], attr="?")] if node.args else []
        for target in targets:
            while isinstance(target, ast.Attribute | ast.Subscript):
                if isinstance(target, ast.Attribute) and _rooted_at_jax(target.value):
                    return True
                target = target.value
    return False


def _rooted_at_jax(node: ast.expr) -> bool:
    """Whether ``node`` is ``jax``, ``jax.tree``, ``tree_util``... (a dotted name whose
    first or last part names JAX or one of its tree modules)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    parts.append(node.id)
    return parts[-1] == "jax" or parts[0] in PATCHED_MODULES


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read ``path`` as an nbformat-4 notebook.

    Raises :class:`NotebookDamaged` when the file's contents are not a notebook
    (empty, cut-off JSON, JSON of something else, not text), and
    :class:`NotebookUnreadable` when it cannot be read or is over the size limit.
    """
    name = shown_name(path.name)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise NotebookUnreadable(f"{name} cannot be read: {exc.strerror}") from None
    if size > MAX_NOTEBOOK_BYTES:
        raise NotebookUnreadable(f"{name} is {size // 2**20} MiB, over the 100 MiB limit")
    if size == 0:
        raise NotebookDamaged(name, "it is empty")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise NotebookUnreadable(f"{name} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise NotebookDamaged(name, f"it is not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise NotebookDamaged(name, f"its JSON is cut off or broken at {where}") from None
    except RecursionError:
        raise NotebookDamaged(name, "its JSON is nested too deeply to read") from None
    if not isinstance(data, dict) or not any(
        isinstance(data.get(key), list) for key in ("cells", "worksheets")
    ):
        raise NotebookDamaged(name, "it is JSON, but not a notebook: it holds no cells")
    if not all(isinstance(cell, dict) for cell in data.get("cells", [])):
        raise NotebookDamaged(name, "it is JSON, but its cells are not notebook cells")
    # imported here: nbformat (with its schema validator) takes a third of a second to
    # import, and status, which reads no learner notebook, should not wait for it
    import nbformat

    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for bad input
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise NotebookDamaged(name, f"nbformat cannot read it: {reason}") from None
    cells = nb.get("cells")
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise NotebookDamaged(name, "it is JSON, but not a notebook: it holds no cells")
    return nb


def chapter_of(nb: nbformat.NotebookNode, course: Course) -> str | None:
    """The chapter whose exercise ``nb`` is, told by its cells' nbgrader ids, whatever the
    file is called; None when it holds no test cell of any chapter."""
    ids = set(_by_grade_id(nb))
    shared = {notebook.id: len(ids & notebook.test_grade_ids) for notebook in course.notebooks}
    best = max(shared, key=shared.__getitem__, default=None)
    return best if best is not None and shared[best] else None


def tampered_cells(nb: nbformat.NotebookNode, course: CourseCells) -> dict[str, str]:
    """Locked cells of the released notebook that the submission changed or deleted.

    Compared as nbgrader does, by checksum: a locked cell must match the learner's
    version (the checksum nbgrader stored when it generated it) or the course's
    source. Returns ``{grade_id: "changed" | "deleted"}``.
    """
    submitted = _by_grade_id(nb)
    tampered = {}
    for grade_id in course.accepted:
        if grade_id not in submitted:
            tampered[grade_id] = "deleted"
        elif not course.owns(submitted[grade_id]):
            tampered[grade_id] = "changed"
    return tampered


def _by_grade_id(nb: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    cells: dict[str, nbformat.NotebookNode] = {}
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if isinstance(grade_id, str):
            cells.setdefault(grade_id, cell)
    return cells


def _checksum(cell: nbformat.NotebookNode) -> str | None:
    try:
        return cell_checksum(cell)
    except Exception:  # a cell whose metadata was mangled cannot match
        return None


def chapter_named(filename: str, course: Course) -> str | None:
    """The chapter a file's name says it is, for a file whose cells cannot say.

    ``aux_data.ipynb``, ``aux_data-Copy1.ipynb`` and ``aux_data (1).ipynb`` say
    ``aux_data``: the longest chapter id the name's stem starts with, followed by
    nothing or by anything but a letter (``aux_data_v2``, ``leaves2``). None when no id fits.
    """
    stem = Path(filename).stem
    fitting = [
        notebook.id
        for notebook in course.notebooks
        if stem.startswith(notebook.id)
        and not stem[len(notebook.id) : len(notebook.id) + 1].isalpha()
    ]
    return max(fitting, key=len, default=None)
