"""What a learner waits for at a terminal: ``status``, and ``check`` of one answered notebook,
in a process of its own and in the warm checker, timed on the clock.

    python benchmarks/terminal.py               # the Leaves notebook, 5 runs of each
    python benchmarks/terminal.py --chapter mapping --runs 9

Writes the chapter's exercise notebook with every answer cell holding the reference
solution (what a learner who solved it has), into a temporary folder, then times:
``status``; ``check`` with ``AUTOGRADER_WARM_CHECK=0`` (a fresh process each time); the
first warm check (it starts the checker); the warm checks after it, of the same file, and
of the file just edited; the first check after a checker was started ahead, as
``./course serve`` starts it (``python -m autograder.warm``, then a pause); the first check
of the next chapter's notebook (just edited) a few seconds after a check of this one. Prints
the median and range of each. Run it on an otherwise idle machine, from the repository's root.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nbformat  # noqa: E402

from autograder.load.course import EXERCISES, REPO_ROOT, SOLUTIONS, load_course  # noqa: E402


def answered(chapter: str, target: Path) -> Path:
    """The released notebook of ``chapter`` with the reference solution in each answer cell."""
    solutions = nbformat.read(SOLUTIONS / chapter / f"{chapter}.ipynb", as_version=4)
    answers = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in solutions.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    notebook = nbformat.read(EXERCISES / chapter / f"{chapter}.ipynb", as_version=4)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    nbformat.write(notebook, target)
    return target


def timed(arguments: list[str], environment: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "autograder", *arguments],
        cwd=REPO_ROOT, env=environment, capture_output=True, check=False,
    )  # fmt: skip
    return time.perf_counter() - started


def edited(notebook: Path, check: list[str], environment: dict[str, str], number: int) -> float:
    """A warm check of ``notebook`` just after a learner's edit (a comment added to a cell)."""
    content = nbformat.read(notebook, as_version=4)
    content.cells[-1].source += f"\n# edit {number}"
    nbformat.write(content, notebook)
    return timed(check, environment)


AHEAD_SECONDS = 10.0
"""How long after the checker was started ahead the first check comes: a learner opens the
book and a notebook before their first check."""


def after_start_ahead(check: list[str], environment: dict[str, str], sockets: Path) -> float:
    """The first check after a new checker was started ahead, the last one stopped."""
    stop_checkers(sockets)
    command = [sys.executable, "-m", "autograder.warm"]
    subprocess.run(command, cwd=REPO_ROOT, env=environment, check=True)
    time.sleep(AHEAD_SECONDS)
    return timed(check, environment)


READING_SECONDS = 3.0
"""How long a learner reads the feedback of one check before the next."""


def next_chapter_first(
    check: list[str], following: Path, environment: dict[str, str], sockets: Path
) -> float:
    """The first check of the next chapter's notebook ``following``, just edited, a few
    seconds after a check of this chapter's started a new checker."""
    stop_checkers(sockets)
    timed(check, environment)
    time.sleep(READING_SECONDS)
    return edited(following, ["check", str(following)], environment, 0)


def stop_checkers(sockets: Path) -> None:
    for lock in sockets.glob("*/*.lock"):
        with contextlib.suppress(ValueError, ProcessLookupError):
            os.kill(int(lock.read_text()), signal.SIGTERM)
        lock.unlink()
    time.sleep(0.5)  # each removes its socket as it ends


def shown(name: str, seconds: list[float]) -> str:
    middle, low, high = statistics.median(seconds), min(seconds), max(seconds)
    return f"{name:<28} median {middle:.2f} s  ({low:.2f}-{high:.2f}, {len(seconds)} runs)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapter", default="leaves")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    ids = [notebook.id for notebook in load_course(EXERCISES).notebooks]
    following_id = ids[(ids.index(args.chapter) + 1) % len(ids)]
    with tempfile.TemporaryDirectory(prefix="bench") as folder:
        for chapter in (args.chapter, following_id):  # where the course keeps them: ID/ID.ipynb
            (Path(folder) / chapter).mkdir()
        notebook = answered(args.chapter, Path(folder) / args.chapter / f"{args.chapter}.ipynb")
        following = answered(following_id, Path(folder) / following_id / f"{following_id}.ipynb")
        sockets = Path(folder) / "run"
        sockets.mkdir()
        base = {
            **os.environ,
            "PYTREES_PROGRESS": str(Path(folder) / "progress.json"),
            "XDG_RUNTIME_DIR": str(sockets),
        }
        cold = {**base, "AUTOGRADER_WARM_CHECK": "0"}
        hot = {**base, "AUTOGRADER_WARM_CHECK": "1"}
        check = ["check", str(notebook)]
        try:
            print(shown("status", [timed(["status"], cold) for _ in range(args.runs)]))
            print(shown("check, own process", [timed(check, cold) for _ in range(args.runs)]))
            print(shown("check, starting the checker", [timed(check, hot)]))
            print(shown("check, warm", [timed(check, hot) for _ in range(args.runs)]))
            print(
                shown(
                    "check, warm, after an edit",
                    [edited(notebook, check, hot, n) for n in range(args.runs)],
                )
            )
            print(
                shown(
                    "check, checker started ahead",
                    [after_start_ahead(check, hot, sockets) for _ in range(args.runs)],
                )
            )
            print(
                shown(
                    f"check, first of {following_id}",
                    [next_chapter_first(check, following, hot, sockets) for _ in range(args.runs)],
                )
            )
        finally:
            stop_checkers(sockets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
