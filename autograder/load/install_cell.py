"""The cell that installs the course where a notebook runs, and how the grader knows it.

A published notebook opens with this cell (made by :mod:`autograder.author.first_cell`):
the source of :func:`install_course`, then one call of it with literal arguments. It is
the course's cell, not the learner's work: the grader neither runs it nor reports it
(:func:`is_install_cell`), as long as it is unchanged but for its arguments, which being
literals run nothing.
"""

from __future__ import annotations

import ast
import functools
import inspect

HEADER = "# Installs the course's checker and its libraries where they are missing."


def install_cell_source(
    requirement: str, find_links: str | None, pins: list[str], jax: str | None, said: str
) -> str:
    """The install cell's source: :func:`install_course` called with these arguments."""
    arguments = "".join(f"    {value!r},\n" for value in (requirement, find_links, pins, jax, said))
    return f"{_definition()}install_course(\n{arguments})\ndel install_course"


def is_install_cell(source: str) -> bool:
    """Whether ``source`` is :func:`install_cell_source`'s, whatever its arguments.

    Never raises: a cell nested deeper than the parser goes (RecursionError) is not it.
    Its call and ``del`` are matched node by node, not unparsed: ``ast.unparse`` recurses
    as deep as the learner's expression.
    """
    if not source.startswith(_definition()):
        return False
    try:
        call, delete = ast.parse(source.removeprefix(_definition())).body
        for argument in call.value.args:  # type: ignore[attr-defined]
            ast.literal_eval(argument)
    except (SyntaxError, ValueError, TypeError, AttributeError, RecursionError):
        return False
    return (
        isinstance(call, ast.Expr)
        and isinstance(call.value, ast.Call)
        and _is_name(call.value.func)
        and not call.value.keywords
        and isinstance(delete, ast.Delete)
        and len(delete.targets) == 1
        and _is_name(delete.targets[0])
    )


def _is_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == install_course.__name__


@functools.cache  # asked of each cell twice: inspect.getsource takes a millisecond
def _definition() -> str:
    return f"{HEADER}\n{inspect.getsource(install_course).rstrip()}\n\n\n"


def install_course(
    requirement: str, find_links: str | None, pins: list[str], jax: str | None, said: str
) -> None:
    """Unless ``autograder.notebook`` imports here with JAX ``jax``, print ``said`` and
    install ``requirement`` (found also in ``find_links``), each library it depends on
    held to ``pins``, with ``sys.executable -m pip``: pip's own configuration and
    environment (``PIP_FIND_LINKS``, ``PIP_NO_INDEX``, ...) apply. Raises RuntimeError
    with pip's last lines when pip fails. The cell holds this function's source, so it
    imports only the standard library."""
    import importlib.metadata
    import importlib.util
    import os
    import subprocess
    import sys
    import tempfile

    try:
        ready = importlib.util.find_spec("autograder.notebook") is not None
        ready = ready and (jax is None or importlib.metadata.version("jax") == jax)
    except (ImportError, importlib.metadata.PackageNotFoundError):
        ready = False
    if ready:
        return
    print(said, flush=True)
    with tempfile.TemporaryDirectory() as folder:
        constraints = os.path.join(folder, "constraints.txt")
        with open(constraints, "w", encoding="utf-8") as file:
            file.write("\n".join(pins) + "\n")
        command = [sys.executable, "-m", "pip", "install", "--quiet", "-c", constraints]
        command += ["--find-links", find_links] if find_links else []
        done = subprocess.run([*command, requirement], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip could not install the course:\n{done.stderr[-3000:]}")
    importlib.invalidate_caches()
    if "jax" in sys.modules:
        print("This kernel had imported another JAX: restart it, then run the notebook again.")
