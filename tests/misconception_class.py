"""The misconception cases of ``tests/misconceptions/`` as a class of learners.

Each learner hands in the exercise notebook of one chapter with some of its functions
written as cases' wrong ones, at most one case a function, and never two functions
of which one names the other (one may call the other). So a chapter is graded about
as many times as its function with the most cases has cases, not once a case (the
README gives the counts). The functions a case's function, its cases or its tests name
are handed in right, the reference solutions: a case's mistake costing one of them
points shows there. The learner leaves the chapter's other functions as released, which
fail at once, so the class costs little more than its cases' functions.
``test_misconceptions`` grades this class; an instructor can grade it too, to see a
class's page of insight on known mistakes::

    .venv/bin/python tests/misconception_class.py /tmp/misconceptions
    .venv/bin/python -m autograder grade /tmp/misconceptions --json report.json --html class.html
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # run as a script: the cases and conftest are imported from here
    sys.path.insert(0, str(TESTS))

from autograder.load.course import SOLUTIONS, load_course  # noqa: E402
from conftest import names, write_variant  # noqa: E402

COURSE = load_course(SOLUTIONS)
CASES = [
    (notebook, case)
    for notebook in COURSE.notebooks
    for case in importlib.import_module(f"misconceptions.{notebook.id}").CASES
]


def _named_together(notebook_id: str) -> set[frozenset[str]]:
    """The pairs of a chapter's functions of which one names the other, in its reference
    solution or in one of its cases: a learner never has both wrong, so that the one's
    mistake is not read as the other's."""
    notebook = COURSE.notebook(notebook_id)
    sources = {f.name: [f.source] for f in notebook.functions}
    for other, case in CASES:
        if other.id == notebook_id:
            sources[case["function"]].append(case["source"])
    return {
        frozenset((caller, called))
        for caller in sources
        for called in sources
        if called != caller and names(sources[caller], called)
    }


def _learners() -> list[str]:
    """The learner of each case, in the order of ``CASES``: a chapter's first learner
    with neither the case's function nor one named together with it wrong."""
    together = {notebook.id: _named_together(notebook.id) for notebook in COURSE.notebooks}
    wrong_by_chapter: dict[str, list[set[str]]] = {}
    learners = []
    for notebook, case in CASES:
        function, wrong = case["function"], wrong_by_chapter.setdefault(notebook.id, [])
        pairs = together[notebook.id]
        rank = next(
            (rank for rank, others in enumerate(wrong) if _fits(function, others, pairs)),
            len(wrong),
        )
        if rank == len(wrong):
            wrong.append(set())
        wrong[rank].add(function)
        learners.append(f"{notebook.id}-{rank:02d}")
    return learners


def _fits(function: str, others: set[str], together: set[frozenset[str]]) -> bool:
    """Whether ``function`` may be wrong beside ``others``: neither it nor a function
    named together with it is among them."""
    return function not in others and all(frozenset((function, o)) not in together for o in others)


LEARNERS = _learners()
CLASS = {name: [i for i, other in enumerate(LEARNERS) if other == name] for name in LEARNERS}
"""Each learner's cases, by index into ``CASES``."""


def learner(index: int) -> str:
    """The learner who hands in case ``index``."""
    return LEARNERS[index]


def _named_by(notebook_id: str, function: str) -> set[str]:
    """The chapter's other functions that ``function``'s reference solution, its cases or
    its test cells name: those it or its tests may call."""
    notebook = COURSE.notebook(notebook_id)
    graded = COURSE.function(function)
    sources = [graded.source, *(test.source for test in graded.tests)]
    sources += [case["source"] for other, case in CASES if case["function"] == function]
    return {f.name for f in notebook.functions if f.name != function and names(sources, f.name)}


def kept_right(name: str) -> set[str]:
    """The functions learner ``name`` hands in right: those its cases' functions name."""
    notebook = CASES[CLASS[name][0]][0]
    wrong = {CASES[i][1]["function"] for i in CLASS[name]}
    return set().union(*(_named_by(notebook.id, f) for f in wrong)) - wrong


def write_class(folder: Path) -> Path:
    """Write every learner's notebook, with their cases in it, under ``folder``; return it."""
    for name, indices in CLASS.items():
        notebook = CASES[indices[0]][0]
        written = {CASES[i][1]["function"]: CASES[i][1]["source"] for i in indices}
        written |= {f: COURSE.function(f).source for f in kept_right(name)}
        write_variant(notebook.released_path, folder / name / notebook.filename, written)
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: python {sys.argv[0]} FOLDER")
    written = write_class(Path(sys.argv[1]))
    print(
        f"wrote {len(CASES)} misconception cases, handed in by {len(CLASS)} learners, to {written}"
    )
