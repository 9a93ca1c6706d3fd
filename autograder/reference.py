"""The course's reference solutions, run in this process (they are the course's own code).

Used to seal each solution for :func:`autograder.notebook.solution`: the key is
made from the reference function's results on its probes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat

from autograder import sealing
from autograder.registry import ExerciseNotebook, GradedFunction

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def readable_solution(source: str) -> str:
    """A solution cell as a learner should read it: nbgrader's markers removed."""
    lines = [line for line in source.splitlines(True) if line.strip() not in MARKERS]
    return "".join(lines).strip("\n") + "\n"


def label(function: GradedFunction) -> str:
    return f"{function.notebook}/{function.name}"


def probe_results(function: GradedFunction, namespace: dict[str, Any]) -> list[Any]:
    """Call the function named ``function.name`` in ``namespace`` on each of its probes."""
    target = namespace[function.name]
    results = []
    for probe in function.probes:
        args = eval(probe, dict(namespace))  # noqa: S307 - the course's own probe expressions
        results.append(target(*args))
    return results


def reference_namespace(notebook: ExerciseNotebook) -> dict[str, Any]:
    """The setup cell and every reference solution of ``notebook``, run in order."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(notebook.setup_source, f"<setup of {notebook.id}>", "exec"), namespace)
    for function in notebook.functions:
        code = readable_solution(function.source)
        exec(compile(code, f"<solution of {function.name}>", "exec"), namespace)
    return namespace


def sealed_solution(function: GradedFunction, namespace: dict[str, Any]) -> str:
    """``function``'s reference solution sealed with the key its probe results make."""
    key = sealing.fingerprint(label(function), probe_results(function, namespace))
    return sealing.seal(readable_solution(function.source), key)


def seal_notebook(notebook: ExerciseNotebook) -> bool:
    """Write each function's seal into its solution cell; return whether anything changed."""
    namespace = reference_namespace(notebook)
    seals = {f.name: sealed_solution(f, namespace) for f in notebook.functions if f.probes}
    nb = nbformat.read(notebook.path, as_version=4)
    changed = False
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in seals and cell.metadata.get("course", {}).get("sealed") != seals[grade_id]:
            cell.metadata.setdefault("course", {})["sealed"] = seals[grade_id]
            changed = True
    if changed:
        nbformat.write(nb, Path(notebook.path))
    return changed
