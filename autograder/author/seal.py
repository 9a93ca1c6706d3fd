"""Sealing the reference solutions into the generated exercise notebooks.

The reference solutions run in this process (they are the course's own code); each
is sealed for :func:`autograder.learner.feedback.solution` with the key made from
its results on its probes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import nbformat

from autograder.cache import cache_root
from autograder.devices import CPU_DEVICES, use_cpu_devices
from autograder.learner import probes, sealing
from autograder.learner.probes import label, probe_results
from autograder.load.course import ExerciseNotebook, GradedFunction

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def readable_solution(source: str) -> str:
    """A solution cell as a learner should read it: nbgrader's markers removed."""
    lines = [line for line in source.splitlines(True) if line.strip() not in MARKERS]
    return "".join(lines).strip("\n") + "\n"


def reference_namespace(notebook: ExerciseNotebook) -> dict[str, Any]:
    """The setup cell and every reference solution of ``notebook``, run in order."""
    use_cpu_devices()  # before the first setup cell's JAX operation, as the grader does
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(notebook.setup_source, f"<setup of {notebook.id}>", "exec"), namespace)
    for function in notebook.functions:
        code = readable_solution(function.source)
        exec(compile(code, f"<solution of {function.name}>", "exec"), namespace)
    return namespace


FEWEST_YES_NO_PROBES = 24
"""The probes a function answering only True or False needs, with both answers among
them: a learner guessing answers would try 2 ** 24 functions to open its seal."""


class TooFewProbes(ValueError):
    """A yes-or-no function whose probes a learner could answer by guessing."""


def sealed_solution(function: GradedFunction, namespace: dict[str, Any]) -> str:
    """``function``'s reference solution sealed with the key its probe results make.

    Raises :class:`TooFewProbes` when every result is True or False and there are fewer
    than :data:`FEWEST_YES_NO_PROBES` of them, or only one of the two answers.
    """
    results = probe_results(function, namespace)
    if all(isinstance(result, bool) for result in results) and (
        len(results) < FEWEST_YES_NO_PROBES or len(set(results)) < 2
    ):
        raise TooFewProbes(
            f"{function.name} answers its {len(results)} probes with "
            f"{' and '.join(sorted(map(str, set(results))))} only: a yes-or-no function needs "
            f"at least {FEWEST_YES_NO_PROBES} probes, and both answers among them, or guessing "
            "opens its sealed solution"
        )
    key = sealing.fingerprint(label(function), results)
    return sealing.seal(readable_solution(function.source), key)


def sealable(function: GradedFunction) -> bool:
    """Whether ``function``'s reference solution ships sealed: it has probes, and no library
    call computes its answers (``answered_by``), which would open the seal unsolved."""
    return bool(function.probes) and not function.answered_by


def reference_seals(notebook: ExerciseNotebook) -> dict[str, str]:
    """Each probed function's sealed solution, by name.

    Running a notebook's reference solutions takes seconds, and the course's checks
    compare every chapter's seals each time they run; so the seals are kept in the
    author's cache (``<cache>/seals``), under a key made of everything they depend on:
    the notebook's bytes, the code that seals and probes, the device count and every
    installed package's version. Measured on 2 cores with nothing else running: the
    checks of sixteen chapters took 61 s computing every seal, and 0.7 s reading them back.
    """
    kept = _kept(notebook)
    with contextlib.suppress(OSError, ValueError):
        seals = json.loads(kept.read_text(encoding="utf-8"))
        if isinstance(seals, dict) and all(isinstance(v, str) for v in seals.values()):
            return seals
    namespace = reference_namespace(notebook)
    seals = {f.name: sealed_solution(f, namespace) for f in notebook.functions if sealable(f)}
    with contextlib.suppress(OSError):  # an unwritable cache only costs the next run time
        kept.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=kept.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(seals, out)
        os.replace(temporary, kept)
    return seals


def seals_kept(notebook: ExerciseNotebook) -> bool:
    """Whether :func:`reference_seals` reads ``notebook``'s seals from the cache."""
    return _kept(notebook).is_file()


def _kept(notebook: ExerciseNotebook) -> Path:
    key = hashlib.sha256(_environment_digest() + notebook.path.read_bytes()).hexdigest()
    return cache_root() / "seals" / f"{key}.json"


@functools.cache
def _environment_digest() -> bytes:
    """What every notebook's seals depend on besides the notebook: the same for a whole
    process, and reading every package's metadata takes a tenth of a second or more."""
    digest = hashlib.sha256()
    for module in (sealing, probes):
        digest.update(Path(module.__file__).read_bytes())
    digest.update(Path(__file__).read_bytes())
    digest.update(str(CPU_DEVICES).encode())
    versions = sorted(
        f"{dist.metadata['Name']}=={dist.version}" for dist in importlib.metadata.distributions()
    )
    digest.update("\n".join(versions).encode())
    return digest.digest()


def seal_released(notebook: ExerciseNotebook, released: Path) -> None:
    """Write each function's sealed solution into the generated notebook at ``released``.

    The seals are derived, so the course's source notebook never holds them: a seal
    is the same for the same solution and probes (see :mod:`autograder.learner.sealing`),
    and generating again changes nothing.
    """
    seals = reference_seals(notebook)
    nb = nbformat.read(released, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in seals:
            cell.metadata.setdefault("course", {})["sealed"] = seals[grade_id]
    nbformat.write(nb, released)
