"""AUTHORING.md, followed: a one-function chapter added to a copy of the course, its way.

The cells' metadata, the setup cell's imports and the commands are read from
AUTHORING.md itself, so the guide and this test cannot drift apart.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from autograder.load.course import REPO_ROOT
from conftest import write_variant

GUIDE = (REPO_ROOT / "AUTHORING.md").read_text(encoding="utf-8")
CHAPTER = "tiny"

LESSON = """# Tiny

## Adding one

Adding one to a number is the whole lesson.
"""
SOLUTION = '''def add_one(x):
    """Return ``x`` plus one.

    >>> add_one(1)
    2
    >>> add_one(-1.5)
    -0.5
    """
    ### BEGIN SOLUTION
    return x + 1
    ### END SOLUTION
'''
TEST = """assert add_one(1) == 2, "add_one(1) should be 2"
### BEGIN HIDDEN TESTS
for value in (10, -3, 0.25):
    assert add_one(value) == value + 1, "add_one adds one. Reread Tiny → Adding one."
### END HIDDEN TESTS
"""
CASES = """CASES = [
    {
        "function": "add_one",
        "misconception": f"adding means adding {n}",
        "teaches": "Reread Tiny → Adding one",
        "source": "def add_one(x):\\n    return x + %d\\n" % n,
    }
    for n in (0, 2, 10)
]
"""


def guide_section(title: str) -> str:
    """The text of AUTHORING.md's ``## title`` section."""
    start = GUIDE.index(f"## {title}\n")
    end = GUIDE.find("\n## ", start + 1)
    return GUIDE[start : end if end != -1 else None]


def guide_metadata(cell: str) -> dict:
    """The nbgrader metadata AUTHORING.md gives for the **``cell``**, as a dict (its
    placeholder ``N`` for points read as 0)."""
    after = guide_section("The solution notebook").split(f"**{cell}**", 1)[1]
    literal = re.search(r"`(\{\"grade\".*?\})`", after, re.DOTALL)[1]
    return json.loads(re.sub(r":\s*N\b", ": 0", literal))


def guide_commands() -> list[str]:
    """The commands of "Adding a chapter"'s shell block, for this chapter."""
    block = re.search(r"```bash\n(.*?)```", guide_section("Adding a chapter"), re.DOTALL)[1]
    return [line.strip().replace("<id>", CHAPTER) for line in block.splitlines() if line.strip()]


def solution_notebook() -> nbformat.NotebookNode:
    """A solution notebook written as AUTHORING.md's "The solution notebook" says."""
    imports = re.findall(
        r"`(from autograder\.\w+ import [\w, ]+)`", guide_section("The solution notebook")
    )
    setup = guide_metadata("setup cell")
    solution = guide_metadata("solution cell")
    solution["grade_id"] = "add_one"
    test = guide_metadata("test cell")
    test |= {"grade_id": "test_add_one", "points": 2}
    course = {"hints": ["What does one more than x mean?", "Use +."], "probes": ["(1,)", "(7,)"]}
    cell = nbformat.v4
    return cell.new_notebook(
        cells=[
            cell.new_markdown_cell("# Exercise: Tiny\n\nPractise [Tiny](../../book/tiny.md)."),
            cell.new_code_cell("\n".join(imports), metadata={"nbgrader": setup}),
            cell.new_markdown_cell("## 1. Add one\n\nWrite `add_one(x)`."),
            cell.new_code_cell(SOLUTION, metadata={"nbgrader": solution, "course": course}),
            cell.new_code_cell('check("add_one")'),
            cell.new_code_cell(TEST, metadata={"nbgrader": test}),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )


@pytest.fixture(scope="module")
def course_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the course's tracked files."""
    return copy_course(tmp_path_factory.mktemp("course"))


def copy_course(root: Path) -> Path:
    """Copy the course's tracked files into ``root``; return it."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in filter(None, tracked):
        source = REPO_ROOT / name
        if source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    return root


def run(root: Path, command: str) -> subprocess.CompletedProcess[str]:
    """``command`` (``python ...``) run in the copy, with the copy's own grader."""
    words = command.split()
    if words[0] == "python":
        words[0] = sys.executable
    # The run's cache: the seals of the chapters the copy shares with the course are read
    # back, not computed again (every key there is made of content, not of paths).
    environment = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(words, cwd=root, env=environment, capture_output=True, text=True)


@pytest.mark.slow
def test_a_chapter_added_as_authoring_md_says_is_complete_and_graded(course_copy):
    root = course_copy
    (root / "book" / f"{CHAPTER}.md").write_text(LESSON, encoding="utf-8")
    (root / "solutions" / CHAPTER).mkdir()
    nbformat.write(solution_notebook(), root / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    (command,) = guide_commands()

    first = run(root, command)
    assert first.returncode == 1, first.stdout + first.stderr
    stub = root / "tests" / "misconceptions" / f"{CHAPTER}.py"
    assert f"tests/misconceptions/{CHAPTER}.py has 0 case(s) for add_one" in first.stderr
    assert "- file: book/capstone\n  - file: book/tiny\n" in (root / "_toc.yml").read_text()

    stub.write_text(stub.read_text(encoding="utf-8") + CASES, encoding="utf-8")
    second = run(root, command)
    assert second.returncode == 0, second.stdout + second.stderr

    # every rule of tests/test_course.py but the curriculum's three functions a chapter
    checks = run(
        root,
        "python -m pytest -q -p no:cacheprovider tests/test_course.py "
        "--deselect tests/test_course.py::test_every_chapter_has_at_least_three_graded_functions",
    )
    assert checks.returncode == 0, checks.stdout[-3000:]

    report = root / "report.json"
    graded = run(
        root, f"python -m autograder grade solutions/{CHAPTER}/{CHAPTER}.ipynb --json {report}"
    )
    assert graded.returncode == 0, graded.stderr
    assert json.loads(report.read_text())["students"][0]["exercises"][0]["score"] == 2
    untouched = run(
        root, f"python -m autograder grade exercises/{CHAPTER}/{CHAPTER}.ipynb --json {report}"
    )
    assert untouched.returncode == 0, untouched.stderr
    assert json.loads(report.read_text())["students"][0]["exercises"][0]["score"] == 0


@pytest.mark.slow
def test_a_chapter_without_its_lesson_is_refused_naming_the_file(course_copy):
    (command,) = guide_commands()
    refused = run(course_copy, command.replace(CHAPTER, "nowhere"))
    assert refused.returncode == 2
    assert "book/nowhere.md is missing" in refused.stderr


@pytest.mark.parametrize(
    ("toc", "expected"),
    [
        (
            "chapters:\n  - file: book/a\n    sections:\n      - file: book/a1\n  - file: book/b\n",
            ["book/a", "book/a1", "book/new", "book/b"],
        ),
        ('chapters:\n  - file: "book/a"\n  - file: book/b\n', ["book/a", "book/new", "book/b"]),
        (
            "chapters:\n  - file: book/a  # first\n\n  - file: book/b\n",
            ["book/a", "book/new", "book/b"],
        ),
    ],
    ids=["after an entry with sections", "a quoted entry", "a commented entry"],
)
def test_a_chapter_goes_into_the_toc_right_after_the_one_named(
    tmp_path, monkeypatch, toc, expected
):
    from autograder.author import chapter
    from autograder.load.course import toc_files

    monkeypatch.setattr(chapter, "TOC", tmp_path / "_toc.yml")
    chapter.TOC.write_text(toc, encoding="utf-8")
    chapter._add_to_toc("new", "a")
    assert toc_files(yaml.safe_load(chapter.TOC.read_text())) == expected


ANSWER = "def count_leaves(tree, *, none_is_leaf=False):\n    return 0\n"


def answered_leaves(root: Path) -> Path:
    """A copy of the course whose Leaves exercise has an answer in it, as a learner's does."""
    notebook = copy_course(root) / "exercises" / "leaves" / "leaves.ipynb"
    return write_variant(notebook, notebook, {"count_leaves": ANSWER})


@pytest.mark.slow
def test_generate_leaves_a_notebook_with_answers_as_it_is_and_says_how_to_discard_them(tmp_path):
    notebook = answered_leaves(tmp_path)
    answered = notebook.read_bytes()
    done = run(tmp_path, "python -m autograder generate")
    assert done.returncode == 1, done.stderr
    assert notebook.read_bytes() == answered
    assert done.stderr.splitlines() == [
        "left exercises/leaves/leaves.ipynb as it is: it has answers in it (count_leaves); "
        "python -m autograder generate --force discards them"
    ]
    assert "wrote exercises/mapping/mapping.ipynb" in done.stdout.splitlines()


@pytest.mark.slow
def test_generate_force_writes_the_stubs_over_the_answers(tmp_path):
    notebook = answered_leaves(tmp_path)
    done = run(tmp_path, "python -m autograder generate --force")
    assert done.returncode == 0, done.stderr
    assert "wrote exercises/leaves/leaves.ipynb" in done.stdout.splitlines()
    assert notebook.read_bytes() == (REPO_ROOT / notebook.relative_to(tmp_path)).read_bytes()
