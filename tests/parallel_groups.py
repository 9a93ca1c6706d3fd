"""Which tests must run in the same pytest-xdist worker (``./course test`` runs two or more).

xdist gives each worker its own session: a session fixture used in two workers is
computed twice. Building the book (3 minutes) or grading the misconception class
(9 minutes) twice would cost more than running in parallel saves, so the tests that
use one of them go to one worker, with the rest of their files (whose module
fixtures are costly too: nbgrader's autograding, a copy of the course). A group is
a file, or files joined by a costly fixture they share.
"""

from __future__ import annotations

from collections.abc import Iterable

COSTLY_FIXTURES = frozenset({"built", "graded_cases", "graded_solutions", "graded_exercises"})
"""The session fixtures that take minutes (tests/conftest.py)."""

WRITES_THE_BOOK = {"test_course_script.py": "built"}
"""Files that rebuild ``_build/html`` in place (``./course serve``), so they run beside the
tests that read it, never at the same time."""


def xdist_groups(tests: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """The group of each test file, from ``(file name, fixture names)`` pairs, one per test.

    Files are joined when their tests use the same costly fixture, directly or through
    another file; the group is named after the first file of it in sorted order.
    """
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            node = parent[node]
        return node

    def join(a: str, b: str) -> None:
        first, second = sorted((root(a), root(b)))
        parent[second] = first

    files = set()
    for file, fixtures in tests:
        files.add(file)
        root(file)
        for fixture in COSTLY_FIXTURES.intersection(fixtures):
            join(file, f"~{fixture}")  # "~" sorts after letters: a file names the group
        if file in WRITES_THE_BOOK:
            join(file, f"~{WRITES_THE_BOOK[file]}")
    return {file: root(file) for file in files}
