"""A graded function's probes: the inputs whose results make the key of its sealed solution.

Run in the learner's kernel by ``solution()`` on the learner's function, and by
the author's ``seal`` on the reference solution (:mod:`autograder.author.seal`).
"""

from __future__ import annotations

from typing import Any

from autograder.load.course import GradedFunction


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
