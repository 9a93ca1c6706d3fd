"""The learners' repository: what ``python -m autograder release OUT`` writes.

It holds what a learner works on and what ``check`` and ``status`` need there,
and nothing from which a reference solution or a hidden test can be read:

- ``exercises/<id>/<id>.ipynb`` as nbgrader generated them, but for their links to
  the book (``../../book/<id>.md``, which the release does not hold): with a book's
  address (``--book-url``) they link its page there, else they name the chapter in
  the course's book. nbgrader has removed the solution regions and the hidden tests,
  and each reference solution is there only sealed (see :mod:`autograder.learner.sealing`),
  or not at all with ``--no-solutions``;
- the ``autograder`` package, with its own copy of those notebooks in
  ``autograder/course/`` and the chapters' reading order in its
  ``chapters.json``: ``check`` and ``status`` read the visible tests, points and
  hints from that copy (there is no ``solutions/`` to read them from, and the
  learner's notebooks are what is being checked), and, with a book's address, the
  address of each section of the book in ``book.json`` (see :mod:`autograder.load.book`);
- ``requirements.txt``, the learner's share of the course's pinned requirements
  (``requirements.txt`` with the ``requirements-grading.txt`` it includes): what the
  released notebooks import and what the checker needs (see :func:`learner_requirements`);
- the files under ``learners/``: the README (with the list of notebooks filled
  in), ``pyproject.toml`` (to install the package for the notebooks' kernel),
  ``.gitignore``, the check workflow and the one that publishes the wheel;
- the course's ``LICENSE``;
- ``dist/``, the wheel of the learners' package (see :mod:`autograder.author.learner_package`):
  the checker and that copy of the course, for a notebook opened anywhere, without this
  repository around it.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import nbformat
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.author.checks import stale_exercises
from autograder.author.first_cell import first_cell
from autograder.author.learner_package import (
    ENTRY_POINTS,
    PackageError,
    build_wheel,
    learners_project,
    wheel_name,
)
from autograder.author.seal import MARKERS as SOLUTION_MARKERS
from autograder.load.book import BOOK_LINKS_FILE, book_links, page_url
from autograder.load.book import book_url as checked_book_url
from autograder.load.course import (
    CHAPTERS_FILE,
    COURSE_COPY,
    EXERCISES,
    HIDDEN_BEGIN,
    HIDDEN_END,
    PACKAGE_DIR,
    REPO_ROOT,
    SOLUTIONS,
    Course,
    grader_sources,
    load_course,
)
from autograder.load.learner_notebook import to_python

SKELETON = REPO_ROOT / "learners"
REQUIREMENTS = REPO_ROOT / "requirements.txt"

# The checker's own needs (what ``check``, ``hint``, ``status`` and the notebooks' helpers
# import, and the kernel and JupyterLab that run the notebooks) are the ``dependencies``
# its package declares in learners/pyproject.toml, where a package declares them; what the
# notebooks import is read from the notebooks. Not nbgrader: nothing a learner runs imports it,
# and it would add its instructor tools (formgrader, Create Assignment, the Nbgrader menu) to
# JupyterLab.

_MARKERS = (*SOLUTION_MARKERS, HIDDEN_BEGIN, HIDDEN_END)
CHAPTERS_PLACEHOLDER = "<!-- chapters -->"
BOOK_PLACEHOLDER = "<!-- book -->"
# A notebook's link to its chapter in the course's repository: [Title](../../book/<id>.md).
_BOOK_LINK = re.compile(r"\[([^\]\"\\\n]+)\]\(\.\./\.\./book/([\w-]+)\.md(#[\w-]+)?\)")
_RELATIVE_BOOK = "../../book/"
# A requirements file's line that includes another: ``-r FILE``.
_INCLUDE = re.compile(r"(?:-r|--requirement)\s*=?\s*(\S+)")


class ReleaseError(Exception):
    """The release cannot be written; the message is the reason (a line, or a line for
    each notebook to fix)."""


def write_release(
    out: Path,
    book_url: str | None = None,
    solutions: bool = True,
    say: Callable[[str], None] | None = None,
    package_url: str | None = None,
) -> list[Path]:
    """Write the learners' repository into ``out``; return its files, relative to ``out``.

    ``book_url`` is the published book's address (see :mod:`autograder.load.book`),
    which the notebooks, the checker's messages and the README link to. Without
    ``solutions`` the notebooks hold no sealed solution (see :func:`withheld`).
    ``say`` is told of each slow step (see :func:`require_current`). With ``package_url``,
    the learners' package's address (see :func:`autograder.author.first_cell.first_cell`),
    each notebook opens with a cell that installs the package and the libraries it needs,
    pinned as the release's ``requirements.txt``, where they are missing.

    ``out`` must not exist or be an empty folder. Everything is checked before
    anything is written: raises ReleaseError, and writes nothing, when ``out``
    is not empty, when ``exercises/`` is out of date with ``solutions/`` or holds
    answers, or when an exercise notebook still holds a solution region or a hidden test.
    """
    _require_empty(out)
    files = release_files(book_url, solutions, say, package_url)
    for relative, content in files.items():
        target = out / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        except OSError as exc:
            raise ReleaseError(f"cannot write {target}: {exc.strerror}") from None
    return sorted(files)


def release_files(
    book_url: str | None = None,
    solutions: bool = True,
    say: Callable[[str], None] | None = None,
    package_url: str | None = None,
) -> dict[Path, bytes]:
    """Every file of the release, by its path relative to the release's root."""
    if book_url is not None:
        try:
            book_url = checked_book_url(book_url)
        except ValueError as exc:
            raise ReleaseError(f"--book-url: {exc}") from None
    if package_url is not None:
        require_absolute(package_url)
    course = load_course(EXERCISES)
    require_current(course, load_course(SOLUTIONS), say)
    copy = COURSE_COPY.relative_to(REPO_ROOT)
    files: dict[Path, bytes] = {}
    for notebook in course.notebooks:
        text = notebook.path.read_text(encoding="utf-8")
        require_no_markers(notebook.path, text)
        if not solutions:
            text = withheld(text)
        content = released_notebook(notebook.path, text, book_url).encode()
        files[notebook.path.relative_to(REPO_ROOT)] = content
        files[copy / notebook.id / notebook.filename] = content
    files[CHAPTERS_FILE.relative_to(REPO_ROOT)] = chapters_file(course).encode()
    if book_url is not None:
        links = book_links(book_url)
        files[BOOK_LINKS_FILE.relative_to(REPO_ROOT)] = links.to_json().encode()
    for module in grader_sources():
        files[module.relative_to(REPO_ROOT)] = module.read_bytes()
    for path in sorted(SKELETON.rglob("*")):
        if path.is_file():
            files[path.relative_to(SKELETON)] = path.read_bytes()
    readme = (SKELETON / "README.md").read_text(encoding="utf-8")
    files[Path("README.md")] = learners_readme(readme, course, book_url).encode()
    files[Path("LICENSE")] = (REPO_ROOT / "LICENSE").read_bytes()
    notebooks = {
        path: content.decode() for path, content in files.items() if path.parts[0] == "exercises"
    }
    requirements = learner_requirements(read_requirements(REQUIREMENTS), notebooks)
    files[Path("requirements.txt")] = requirements.encode()
    if package_url is not None:
        # the course's copy too: check and grading read the notebook the learner was given
        for path in [*notebooks, *(copy / Path(*path.parts[1:]) for path in notebooks)]:
            files[path] = with_first_cell(files[path].decode(), package_url, requirements).encode()
    files[Path("dist") / wheel_name()] = learners_wheel(files, notebooks)
    return files


def learners_wheel(files: Mapping[Path, bytes], notebooks: Mapping[Path, str]) -> bytes:
    """The learners' package's wheel, with the course's copy among the release's ``files``;
    ``notebooks`` are the released notebooks' texts, whose imports it depends on."""
    package = PACKAGE_DIR.relative_to(REPO_ROOT)
    copy = COURSE_COPY.relative_to(REPO_ROOT)
    course = {path.relative_to(package): files[path] for path in files if copy in path.parents}
    imported = {
        module for path, text in notebooks.items() for module in notebook_imports(path, text)
    }
    try:
        return build_wheel(course, imported)
    except PackageError as exc:
        raise ReleaseError(f"cannot build the learners' wheel: {exc}") from None


def require_absolute(package_url: str) -> None:
    """Raise ReleaseError unless ``package_url`` is an address (``https://...``) or an
    absolute path: pip runs in the folder of each learner's notebook, where a relative
    path finds nothing."""
    if "://" not in package_url and not Path(package_url).is_absolute():
        raise ReleaseError(
            f"--package-url: {package_url!r} is a relative path; give an address "
            "(https://...) or an absolute path, as pip is run from each learner's notebook folder"
        )


def _require_empty(out: Path) -> None:
    if not out.exists():
        return
    if not out.is_dir():
        raise ReleaseError(f"{out} exists and is not a folder; give a new or empty folder")
    if any(out.iterdir()):
        raise ReleaseError(f"{out} exists and is not empty; give a new or empty folder")


def require_current(
    exercises: Course, solutions: Course, say: Callable[[str], None] | None = None
) -> None:
    """Raise ReleaseError unless ``exercises`` is what nbgrader makes of ``solutions`` now,
    naming each notebook that holds answers or is out of date, and what to do about it.

    ``say`` is told of each chapter whose seals are checked by running its reference
    solutions (see :func:`autograder.author.checks.stale_exercises`).
    """
    stale = stale_exercises(exercises, solutions, say)
    if stale:
        raise ReleaseError(
            "exercises/ is not what generate makes of solutions/:\n  " + "\n  ".join(stale)
        )


def require_no_markers(path: Path, text: str) -> None:
    """Raise ReleaseError when ``text`` holds a solution region or a hidden test's markers."""
    for marker in _MARKERS:
        if marker in text:
            raise ReleaseError(
                f"{path} holds {marker!r}: exercises/ must be made by python -m autograder generate"
            )


def read_requirements(path: Path) -> str:
    """The requirements file ``path``, each ``-r FILE`` in it replaced by that file's lines.

    As pip does, ``FILE`` is relative to the folder of the file that names it.
    Raises ReleaseError when an included file cannot be read.
    """
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        include = _INCLUDE.fullmatch(line.split("#", 1)[0].strip())
        if not include:
            lines.append(line)
            continue
        included = path.parent / include.group(1)
        if not included.is_file():
            raise ReleaseError(f"{path.name} includes {include.group(1)}, which is not a file")
        lines.append(read_requirements(included).rstrip("\n"))
    return "\n".join(lines) + "\n"


def learner_requirements(course_requirements: str, notebooks: Mapping[Path, str]) -> str:
    """The lines of ``course_requirements`` that pin what a release of ``notebooks`` needs,
    in their order.

    ``notebooks`` holds each released notebook's text by its path. What they need: the
    distribution providing each module a notebook's code cells import (the learner's
    kernel runs every cell), the checker's ``dependencies`` in ``learners/pyproject.toml``,
    and each distribution those depend on, as installed here, that the course pins too
    (``jaxlib`` for ``jax``, ``orbax-checkpoint`` for ``flax``): the learner gets the
    versions the course was tested with, not whatever pip resolves. Raises ReleaseError
    naming the notebook and the module when the course pins no distribution providing it.
    """
    pins = {}
    for line in course_requirements.splitlines():
        if name := _requirement_name(line):
            pins[name] = line.strip()
    needed = set()
    for name in checker_dependencies():
        if name not in pins:
            raise ReleaseError(
                f"learners/pyproject.toml depends on {name}, which requirements.txt does not pin"
            )
        needed.add(name)
    providers = importlib.metadata.packages_distributions()
    for path, text in sorted(notebooks.items()):
        for module in notebook_imports(path, text):
            provided = {canonicalize_name(name) for name in providers.get(module, ())} & set(pins)
            if not provided:
                # the module's distribution is known only once it is installed here
                installed = "" if module in providers else " (none installed here provides it)"
                raise ReleaseError(
                    f"{path.as_posix()} imports {module}, and requirements.txt pins no "
                    f"distribution that provides it{installed}: pin it there and install it"
                )
            needed |= provided
    needed = _with_dependencies(needed) & set(pins)
    header = "# What the exercises and their checker need, as the course was tested (Python 3.11)."
    return "\n".join([header, *(line for name, line in pins.items() if name in needed)]) + "\n"


def course_pins() -> str:
    """:func:`learner_requirements` of the course's exercise notebooks: the pins of what
    they, their checker and the chapters' notebooks need (the release's requirements.txt)."""
    notebooks = {
        notebook.path.relative_to(REPO_ROOT): notebook.path.read_text(encoding="utf-8")
        for notebook in load_course(EXERCISES).notebooks
    }
    return learner_requirements(read_requirements(REQUIREMENTS), notebooks)


def checker_dependencies() -> list[str]:
    """The normalized names of the ``dependencies`` that ``learners/pyproject.toml`` declares."""
    project = learners_project()
    return [canonicalize_name(Requirement(line).name) for line in project.get("dependencies", [])]


def notebook_imports(path: Path, text: str) -> list[str]:
    """The top-level modules the code cells of notebook ``text`` import, in order, but for
    Python's standard library and the learners' package's own (the release ships it).

    Raises ReleaseError naming ``path`` when a code cell is not Python.
    """
    found: list[str] = []
    for cell in nbformat.reads(text, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(to_python(cell.source))
        except SyntaxError as exc:
            raise ReleaseError(f"{path.as_posix()}: a code cell is not Python: {exc}") from None
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules = [node.module]
            else:
                continue
            found += [module.split(".")[0] for module in modules]
    own = {module.split(".")[0] for module in ENTRY_POINTS} | set(sys.stdlib_module_names)
    return [module for module in dict.fromkeys(found) if module not in own]


def _with_dependencies(names: set[str]) -> set[str]:
    """``names`` and every installed distribution they depend on, directly or not (extras
    and other platforms' dependencies left out)."""
    found = set(names)
    todo = list(names)
    while todo:
        try:
            requires = importlib.metadata.requires(todo.pop()) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for line in requires:
            requirement = Requirement(line)
            name = canonicalize_name(requirement.name)
            marker = requirement.marker
            if name not in found and (marker is None or marker.evaluate({"extra": ""})):
                found.add(name)
                todo.append(name)
    return found


def _requirement_name(line: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line.split("#", 1)[0])
    return canonicalize_name(match.group(1)) if match else ""


def with_first_cell(text: str, package_url: str, pins: str) -> str:
    """Notebook ``text`` opening with the cell that installs the learners' package from
    ``package_url`` and the libraries it needs at the versions ``pins`` (a requirements
    file's text) gives, where they are missing (see :mod:`autograder.author.first_cell`)."""
    nb = nbformat.reads(text, as_version=4)
    nb.cells.insert(0, first_cell(package_url, pins))
    return nbformat.writes(nb) + "\n"


def withheld(text: str) -> str:
    """Notebook ``text`` with no sealed solution: each solution cell says instead that the
    release withholds it, which ``solution()`` tells the learner."""
    nb = nbformat.reads(text, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            course = cell.metadata.setdefault("course", {})
            course.pop("sealed", None)
            course["withheld"] = True
    return nbformat.writes(nb) + "\n"


def released_notebook(path: Path, text: str, book_url: str | None) -> str:
    """Notebook ``text`` with its links to the course's book made to work in the release.

    With ``book_url``, ``[Title](../../book/<id>.md)`` links the chapter's page of the
    book published there; without, it becomes ``*Title* (in your course's book)``.
    Raises ReleaseError when a link to ``../../book/`` is left that neither fits.
    """

    def released(link: re.Match[str]) -> str:
        title, chapter, anchor = link.group(1), link.group(2), link.group(3) or ""
        if book_url is None:
            return f"*{title}* (in your course's book)"
        return f"[{title}]({page_url(book_url, chapter)}{anchor})"

    text = _BOOK_LINK.sub(released, text)
    if _RELATIVE_BOOK in text:
        raise ReleaseError(
            f"{path} links to {_RELATIVE_BOOK} in a way release cannot rewrite: link a chapter "
            f"as [Title]({_RELATIVE_BOOK}<id>.md)"
        )
    return text


def learners_readme(template: str, course: Course, book_url: str | None = None) -> str:
    """``template`` with its placeholders replaced: the list of notebooks, and the book."""
    for placeholder in (CHAPTERS_PLACEHOLDER, BOOK_PLACEHOLDER):
        if placeholder not in template:
            raise ReleaseError(f"learners/README.md has no {placeholder} line")
    items = [
        f"{number}. [{notebook.title.removeprefix('Exercise: ')}]"
        f"(exercises/{notebook.id}/{notebook.filename}): "
        f"{', '.join(f'`{function.name}`' for function in notebook.functions)} "
        f"({notebook.points:g} points)"
        for number, notebook in enumerate(course.notebooks, start=1)
    ]
    if book_url is None:
        book = (
            "Each notebook names its chapter of the course's book, which is not part of this "
            "repository: read the chapter in the book your course gives you."
        )
    else:
        book = (
            f"The course's book is at <{book_url}/>. Each notebook opens with a link to its "
            "chapter there, and the checker's messages link the section to reread."
        )
    return template.replace(CHAPTERS_PLACEHOLDER, "\n".join(items)).replace(BOOK_PLACEHOLDER, book)


def chapters_file(course: Course) -> str:
    """``chapters.json``: the chapters in reading order, for the release's registry."""
    return json.dumps({"chapters": [notebook.id for notebook in course.notebooks]}, indent=2) + "\n"
