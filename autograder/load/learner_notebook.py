"""A learner's notebook file, read as data: which cells of it the worker should run."""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.load.checksum import cell_checksum
from autograder.load.course import Course, ExerciseNotebook

HINT_RECORD = "application/vnd.pytrees-hands-on.hints+json"
"""The output type ``hint`` leaves in a saved notebook: ``{"function": name, "opened": n}``."""
MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024


class NotebookUnreadable(Exception):
    """The file cannot be graded; the message names it and says why."""


def cells_to_run(nb: nbformat.NotebookNode, exercise: ExerciseNotebook) -> list[tuple[int, str]]:
    """The learner's code cells, as (cell number from 1, source).

    The learner's copies of the test cells are left out: tests always come from
    the course's own notebook, so editing them changes nothing.
    """
    cells = []
    for number, cell in enumerate(nb.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in exercise.test_grade_ids:
            continue
        cells.append((number, _source(cell)))
    return cells


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


def cells_naming_the_grader(nb: nbformat.NotebookNode) -> list[str]:
    """The learner's own code cells that mention ``autograder``, by :func:`cell_label`.

    The locked cells import it on the course's behalf; a cell of the learner's that
    does could patch what the watchers report (see book/security.md), so the report
    points the instructor to it.
    """
    found = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        source = _source(cell)
        if cell.get("cell_type") == "code" and not meta.get("locked") and "autograder" in source:
            found.append(cell_label(source))
    return found


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read ``path`` as an nbformat-4 notebook or raise :class:`NotebookUnreadable`."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise NotebookUnreadable(f"{path.name} cannot be read: {exc.strerror}") from None
    if size == 0:
        raise NotebookUnreadable(f"{path.name} is an empty file, not a notebook")
    if size > MAX_NOTEBOOK_BYTES:
        raise NotebookUnreadable(f"{path.name} is {size // 2**20} MiB, over the 100 MiB limit")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookUnreadable(f"{path.name} is not UTF-8 text (byte {exc.start})") from None
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for bad input
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise NotebookUnreadable(f"{path.name} is not a valid notebook: {reason}") from None
    if not isinstance(nb.get("cells"), list):
        raise NotebookUnreadable(f"{path.name} is not a valid notebook: it has no list of cells")
    return nb


def chapter_of(nb: nbformat.NotebookNode, course: Course) -> str | None:
    """The chapter whose exercise ``nb`` is, told by its cells' nbgrader ids, whatever the
    file is called; None when it holds no test cell of any chapter."""
    ids = set(_by_grade_id(nb))
    shared = {notebook.id: len(ids & notebook.test_grade_ids) for notebook in course.notebooks}
    best = max(shared, key=shared.__getitem__, default=None)
    return best if best is not None and shared[best] else None


def tampered_cells(
    nb: nbformat.NotebookNode, released: nbformat.NotebookNode, source: nbformat.NotebookNode
) -> dict[str, str]:
    """Locked cells of the released notebook that the submission changed or deleted.

    Compared as nbgrader does, by checksum: a locked cell must match the learner's
    version (the checksum nbgrader stored when it generated it) or the course's
    source. Returns ``{grade_id: "changed" | "deleted"}``.
    """
    accepted: dict[str, set[str | None]] = {}
    for cell in released.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("locked") and "checksum" in meta:
            accepted[meta["grade_id"]] = {meta["checksum"]}
    for grade_id, cell in _by_grade_id(source).items():
        if grade_id in accepted:
            accepted[grade_id].add(_checksum(cell))
    submitted = _by_grade_id(nb)
    tampered = {}
    for grade_id, checksums in accepted.items():
        if grade_id not in submitted:
            tampered[grade_id] = "deleted"
        elif _checksum(submitted[grade_id]) not in checksums:
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
