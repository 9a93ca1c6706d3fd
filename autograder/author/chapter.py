"""``python -m autograder chapter ID``: derive a chapter's files from its lesson and solution.

The author writes ``book/<id>.md`` and ``solutions/<id>/<id>.ipynb``; this adds the
chapter to ``_toc.yml``, starts ``tests/misconceptions/<id>.py`` for the author to
fill in, generates ``exercises/<id>/<id>.ipynb`` (nbgrader, then the seals), and
runs the course's checks (:mod:`autograder.author.checks`).
"""

from __future__ import annotations

import yaml

from autograder.author.checks import MISCONCEPTIONS, course_problems
from autograder.author.generate import update_exercises
from autograder.load.course import (
    REPO_ROOT,
    SOLUTIONS,
    CourseError,
    ExerciseNotebook,
    load_notebook,
    toc_files,
    toc_order,
)

TOC = REPO_ROOT / "_toc.yml"


def add_chapter(chapter: str, after: str | None = None) -> tuple[list[str], list[str]]:
    """Derive ``chapter``'s files; return (what was written, the course's problems).

    ``after`` names the chapter it follows in ``_toc.yml`` (default: the last
    chapter that has an exercise). Raises CourseError, writing nothing, when the
    lesson or the solution notebook is missing or breaks AUTHORING.md's rules.
    """
    notebook = _require_sources(chapter)
    written = []
    if chapter not in toc_order():
        _add_to_toc(chapter, after or _last_chapter(exclude=chapter))
        written.append(f"_toc.yml: book/{chapter}")
    stub = MISCONCEPTIONS / f"{chapter}.py"
    if not stub.exists():
        stub.write_text(misconceptions_stub(notebook), encoding="utf-8")
        written.append(f"{stub.relative_to(REPO_ROOT)} (to fill in)")
    written += [str(path.relative_to(REPO_ROOT)) for path in update_exercises([chapter]).written]
    return written, course_problems()


def _require_sources(chapter: str) -> ExerciseNotebook:
    page = REPO_ROOT / "book" / f"{chapter}.md"
    source = SOLUTIONS / chapter / f"{chapter}.ipynb"
    for path in (page, source):
        if not path.is_file():
            raise CourseError(
                f"{path.relative_to(REPO_ROOT)} is missing: write it first (see AUTHORING.md)"
            )
    return load_notebook(source)


def _last_chapter(exclude: str) -> str | None:
    """The chapter with an exercise that ``_toc.yml`` lists last."""
    order = toc_order()
    chapters = [p.parent.name for p in SOLUTIONS.glob("*/*.ipynb") if p.stem == p.parent.name]
    listed = [c for c in chapters if c in order and c != exclude]
    return max(listed, key=order.__getitem__, default=None)


def _add_to_toc(chapter: str, after: str | None) -> None:
    """Insert ``- file: book/<chapter>`` after ``after``'s entry (and its sections), or at the end.

    Edited as text so that the file's comments and layout stay; the result is
    read back as YAML and must list exactly the same files with the chapter added.
    """
    text = TOC.read_text(encoding="utf-8")
    tree = yaml.safe_load(text)
    listed = toc_files(tree)
    lines = text.splitlines(keepends=True)
    at, indent = len(lines), "  - "
    if after is not None:
        target = f"book/{after}"
        entry = next((i for i, line in enumerate(lines) if _toc_file(line) == target), None)
        if entry is None:
            raise CourseError(f"_toc.yml does not list book/{after}, the chapter to follow")
        depth = _indentation(lines[entry])
        at = entry + 1
        while at < len(lines) and (not lines[at].strip() or _indentation(lines[at]) > depth):
            at += 1
        indent = " " * depth + "- "
        block = len(toc_files(_entry(tree, target)))  # the entry and its sections
        listed.insert(listed.index(target) + block, f"book/{chapter}")
    else:
        listed.append(f"book/{chapter}")
    lines.insert(at, f"{indent}file: book/{chapter}\n")
    new_text = "".join(lines)
    try:
        taken = toc_files(yaml.safe_load(new_text)) == listed
    except yaml.YAMLError:
        taken = False
    if not taken:
        raise CourseError(f"_toc.yml could not take book/{chapter} here: add its entry by hand")
    TOC.write_text(new_text, encoding="utf-8")


def _entry(tree: object, file: str) -> object:
    """The entry of a table of contents whose ``file`` is ``file`` (None if there is none)."""
    if isinstance(tree, dict):
        if str(tree.get("file", "")).removesuffix(".md") == file:
            return tree
        tree = [tree.get(key) for key in ("parts", "chapters", "sections")]
    if isinstance(tree, list):
        for item in tree:
            found = _entry(item, file)
            if found is not None:
                return found
    return None


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _toc_file(line: str) -> str | None:
    """The ``file`` a line of ``_toc.yml`` names, if it names one."""
    stripped = line.strip().removeprefix("- ").strip()
    if not stripped.startswith("file:"):
        return None
    value = stripped.removeprefix("file:").split("#", 1)[0].strip().strip("\"'")
    return value.removesuffix(".md")


def misconceptions_stub(notebook: ExerciseNotebook) -> str:
    """A ``tests/misconceptions/<id>.py`` with no cases yet, saying what each case holds."""
    functions = ", ".join(function.name for function in notebook.functions)
    example = notebook.functions[0].name if notebook.functions else "fn"
    title = notebook.title.removeprefix("Exercise: ")
    return f'''"""Wrong-but-plausible versions of the {title} exercise.

Each case's ``source`` replaces the function's whole solution cell; it must lose that
function's points, and a failing test's message must contain ``teaches``.
"""

# At least three cases for each of: {functions}. For example:
#     {{
#         "function": "{example}",
#         "misconception": "what a learner wrongly believes",
#         "teaches": "Reread <Chapter> → <Section>",
#         "source": """
# def {example}(...):
#     ...
# """,
#     }},
CASES: list[dict[str, str]] = []
'''
