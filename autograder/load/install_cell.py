"""The cell that installs the course where a notebook runs, and how the grader knows it.

A published notebook opens with this cell (made by :mod:`autograder.author.first_cell`):
the source of :func:`install_course`, then one call of it with literal arguments. It is
the course's cell, not the learner's work: the grader neither runs it nor reports it
(:func:`is_install_cell`), as long as it is unchanged but for its arguments, which being
literals run nothing. "Unchanged" means as some release of the course shipped it: a
learner may hand in a notebook from an older release, whose cell holds an older
:func:`install_course` (``SHIPPED``).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect

HEADER = "# Installs the course's checker and its libraries where they are missing."
CALL = "install_course("

# The SHA-256 of each definition (:func:`_definition`) the install cell has held, oldest
# first. Never remove one: a released notebook keeps the cell it was released with. A
# test fails while the current definition's is missing.
SHIPPED = (
    "2f0d1c520515266cf1b9126f6ec0d1c667c56956d9ee099806d01712e58b6cd0",
    "655e664928511072385b4c850caeb2dd6660bf47026e2a5cbc42de4edc09f7e2",
)


def install_cell_source(
    requirement: str, find_links: str | None, pins: list[str], jax: str | None, said: str
) -> str:
    """The install cell's source: :func:`install_course` called with these arguments."""
    arguments = "".join(f"    {value!r},\n" for value in (requirement, find_links, pins, jax, said))
    return f"{_definition()}{CALL}\n{arguments})\ndel install_course"


def is_install_cell(source: str) -> bool:
    """Whether ``source`` is :func:`install_cell_source`'s, whatever its arguments, with
    the definition of this or an earlier release (``SHIPPED``).

    Never raises: a cell nested deeper than the parser goes (RecursionError, or on
    Python 3.11 MemoryError for a long chain of unary operators) is not it.
    Its call and ``del`` are matched node by node, not unparsed: ``ast.unparse`` recurses
    as deep as the learner's expression.
    """
    definition = shipped_definition(source)
    if definition is None:
        return False
    try:
        call, delete = ast.parse(source.removeprefix(definition)).body
        for argument in call.value.args:  # type: ignore[attr-defined]
            ast.literal_eval(argument)
    except (SyntaxError, ValueError, TypeError, AttributeError, RecursionError, MemoryError):
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


def shipped_definition(source: str) -> str | None:
    """The definition ``source`` opens with, up to its call of :func:`install_course`,
    when it is one a release shipped (``SHIPPED``); else None."""
    if not source.startswith(HEADER):
        return None
    end = source.find(f"\n\n\n{CALL}")
    definition = source[: end + 3]
    digest = hashlib.sha256(definition.encode("utf-8")).hexdigest()
    return definition if end >= 0 and digest in SHIPPED else None


def _is_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == install_course.__name__


@functools.cache  # asked of each cell twice: inspect.getsource takes a millisecond
def _definition() -> str:
    return f"{HEADER}\n{inspect.getsource(install_course).rstrip()}\n\n\n"


def install_course(
    requirement: str, find_links: str | None, pins: list[str], jax: str | None, said: str
) -> None:
    """Unless ``autograder.notebook`` imports here with JAX ``jax``, print ``said`` and
    install ``requirement`` (found also in ``find_links``) with ``sys.executable -m pip``,
    each library it depends on held to ``pins`` but for those this kernel has imported
    (IPython, ipykernel and whatever else its host runs on), which stay as they are when
    they fit: replacing them under a running kernel can break it, and Colab's warns
    against it. JAX and jaxlib are held to their pins always. pip's own configuration
    and environment (``PIP_FIND_LINKS``, ``PIP_NO_INDEX``, ...) apply. When pip replaced
    a library the kernel had imported, says to restart the kernel. Raises RuntimeError
    with pip's last lines when pip fails. The cell holds this function's source, so it
    imports only the standard library."""
    import importlib.metadata as metadata
    import importlib.util
    import os
    import re
    import subprocess
    import sys
    import tempfile

    try:
        ready = importlib.util.find_spec("autograder.notebook") is not None
        ready = ready and (jax is None or metadata.version("jax") == jax)
    except (ImportError, metadata.PackageNotFoundError):
        ready = False
    if ready:
        return
    print(said, flush=True)

    def normal(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    def installed() -> dict[str, str]:
        return {normal(d.metadata["Name"] or ""): d.version for d in metadata.distributions()}

    providers = metadata.packages_distributions()
    modules = {module.partition(".")[0] for module in list(sys.modules)}
    loaded = {normal(dist) for module in modules for dist in providers.get(module, [])}
    kept = loaded - {"jax", "jaxlib"}
    held = [pin for pin in pins if normal(re.split(r"[\[=<>!~;\s]", pin)[0]) not in kept]
    before = installed()
    with tempfile.TemporaryDirectory() as folder:
        constraints = os.path.join(folder, "constraints.txt")
        with open(constraints, "w", encoding="utf-8") as file:
            file.write("\n".join(held) + "\n")
        command = [sys.executable, "-m", "pip", "install", "--quiet", "-c", constraints]
        command += ["--find-links", find_links] if find_links else []
        done = subprocess.run([*command, requirement], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip could not install the course:\n{done.stderr[-3000:]}")
    importlib.invalidate_caches()
    after = installed()
    replaced = sorted(dist for dist in loaded if before.get(dist) != after.get(dist))
    if replaced:
        print(
            f"pip replaced {', '.join(replaced)}, which this kernel had imported: restart "
            "the kernel (in Colab: Runtime > Restart session), then run the notebook again."
        )
