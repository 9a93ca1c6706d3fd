"""Grade a synthetic class with this grader and with ``nbgrader autograde``, and compare.

    python benchmarks/grading.py --students 10            # both graders
    python benchmarks/grading.py --students 100 --no-nbgrader

The class is made from the course's own notebooks. Every learner hands in every
notebook; each notebook is, drawn with fixed weights from a generator seeded by
the learner's number (see ``KINDS``): the full solution, a partial one (half the
functions written), wrong functions (every graded function returns None), one
whose last cell kills its process, or one whose first function never returns.
Both graders get the same files and a call/cell time limit of ``--timeout``
seconds. Printed: wall time, time per learner, peak memory of the grader's whole
process tree, the ratio, a cached regrade of the class, and one learner who
solved every notebook graded alone; with ``--json FILE`` also written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.load.course import SOLUTIONS, ExerciseNotebook, load_course  # noqa: E402

# kind of notebook: its share of the class
KINDS = {"full": 40, "partial": 30, "wrong": 20, "crashing": 5, "hanging": 5}


def make_submission(notebook: ExerciseNotebook, kind: str) -> nbformat.NotebookNode:
    """The learner's version of ``notebook`` for one kind of learner."""
    nb = nbformat.read(notebook.path, as_version=4)
    names = [f.name for f in notebook.functions]
    released = {
        c.metadata.get("nbgrader", {}).get("grade_id"): c.source
        for c in nbformat.read(notebook.released_path, as_version=4).cells
    }
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id not in names:
            continue
        if kind == "partial" and names.index(grade_id) >= len(names) // 2:
            cell.source = released[grade_id]
        elif kind == "wrong":
            cell.source = f"def {grade_id}(*args, **kwargs):\n    return None"
        elif kind == "hanging" and grade_id == names[0]:
            cell.source = f"def {grade_id}(*args, **kwargs):\n    while True:\n        pass"
    if kind == "crashing":
        nb.cells.append(nbformat.v4.new_code_cell("import os\nos._exit(1)"))
    return nb


def make_class(root: Path, students: int) -> list[str]:
    """Write ``students`` learners' folders under ``root``; returns their names."""
    course = load_course(SOLUTIONS)
    names = []
    for index in range(students):
        name = f"learner{index:04d}"
        draw = random.Random(index)
        kinds = draw.choices(list(KINDS), list(KINDS.values()), k=len(course.notebooks))
        for notebook, kind in zip(course.notebooks, kinds, strict=True):
            target = root / name / notebook.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(make_submission(notebook, kind), target)
        names.append(name)
    return names


def write_solved_learner(folder: Path) -> Path:
    """One learner who solved every notebook: the longest a single submission takes."""
    folder.mkdir(parents=True, exist_ok=True)
    for notebook in load_course(SOLUTIONS).notebooks:
        nbformat.write(make_submission(notebook, "full"), folder / notebook.filename)
    return folder


class PeakMemory:
    """Peak memory of this process's descendants, sampled from /proc.

    Each process counts its proportional set size (PSS): pages it shares with
    others, such as a zygote's with the workers it forked, are split among the
    sharers instead of counted once per process. Written here because
    ``getrusage`` reports only the largest single child.
    """

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.wait(self.interval):
            parents: dict[int, int] = {}
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                try:
                    status = Path(entry.path, "status").read_text()
                except OSError:
                    continue
                fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
                parents[int(entry.name)] = int(fields.get("PPid", "0").strip())
            total = sum(_pss(pid) for pid in parents if _descends(pid, me, parents))
            self.peak = max(self.peak, total)


def _pss(pid: int) -> int:
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:  # ended meanwhile
        return 0
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return 0


def _descends(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    while pid > 1:
        pid = parents.get(pid, 0)
        if pid == ancestor:
            return True
    return False


def timed(
    command: list[str], env: dict[str, str] | None = None, check: bool = True
) -> tuple[float, int]:
    """Run ``command``; its wall time in seconds and peak memory in bytes."""
    with PeakMemory() as memory:
        started = time.monotonic()
        subprocess.run(
            command, check=check, cwd=REPO, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        elapsed = time.monotonic() - started
    return elapsed, memory.peak


def run_ours(root: Path, work: Path, jobs: int, timeout: float) -> dict[str, float]:
    grade = [sys.executable, "-m", "autograder", "grade", str(root), "--jobs", str(jobs)]
    limits = ["--cell-timeout", str(timeout), "--call-timeout", str(timeout)]
    # fresh folders: the first run pays for filling the compile store
    cache = ["--cache-dir", str(work / "cache"), "--compile-store", str(work / "store")]
    wall, peak = timed([*grade, *limits, *cache, "--json", str(work / "ours.json")])
    cached, _ = timed([*grade, *limits, *cache, "--json", str(work / "cached.json")])
    solved = write_solved_learner(work / "solved")
    one = [sys.executable, "-m", "autograder", "grade", str(solved), *limits, *cache, "--no-cache"]
    single, _ = timed(one)
    return {"wall": wall, "peak_bytes": peak, "cached_wall": cached, "one_learner_wall": single}


def run_nbgrader(root: Path, work: Path, timeout: float) -> dict[str, float]:
    course = load_course(SOLUTIONS)
    home = work / "nbgrader"
    shutil.copytree(SOLUTIONS, home / "source")
    config = [f"--CourseDirectory.root={home}", "--CourseDirectory.source_directory=source",
              "--CourseDirectory.release_directory=release", "--log-level=ERROR",
              f"--ExecutePreprocessor.timeout={int(timeout)}"]  # fmt: skip
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path}  # nbgrader runs alembic from PATH
    for notebook in course.notebooks:
        nbgrader = [sys.executable, "-m", "nbgrader"]
        generate = [*nbgrader, "generate_assignment", notebook.id, "--force", *config]
        subprocess.run(generate, check=True, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
        for student in (p for p in root.iterdir() if p.is_dir()):
            target = home / "submitted" / student.name / notebook.id / notebook.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(student / notebook.filename, target)
    autograde = [sys.executable, "-m", "nbgrader", "autograde", "--create", *config]
    wall, peak = 0.0, 0
    for notebook in course.notebooks:
        # nbgrader exits 1 when a kernel died in some submission; it grades the others
        elapsed, memory = timed([*autograde, notebook.id], env=env, check=False)
        wall, peak = wall + elapsed, max(peak, memory)
    return {"wall": wall, "peak_bytes": peak}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--no-nbgrader", action="store_true", help="time this grader only")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="pytrees-bench-") as scratch:
        work = Path(scratch)
        root = work / "class"
        make_class(root, args.students)
        figures = {"students": args.students, "jobs": args.jobs}
        figures["ours"] = run_ours(root, work, args.jobs, args.timeout)
        print(f"this grader: {figures['ours']}", flush=True)
        if not args.no_nbgrader:
            figures["nbgrader"] = run_nbgrader(root, work, args.timeout)
    _print(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def _print(figures: dict) -> None:
    students = figures["students"]
    ours = figures["ours"]
    print(f"class of {students} learners, every notebook of the course, --jobs {figures['jobs']}")
    rows = [("this grader", ours)]
    if "nbgrader" in figures:
        rows.append(("nbgrader autograde", figures["nbgrader"]))
    for name, row in rows:
        print(
            f"  {name:<20} {row['wall']:8.1f} s wall  {row['wall'] / students:6.2f} s per learner"
            f"  peak {row['peak_bytes'] / 2**30:5.2f} GiB"
        )
    if "nbgrader" in figures:
        ratio = figures["nbgrader"]["wall"] / ours["wall"]
        print(f"  ratio (nbgrader / this grader): {ratio:.1f}x")
    print(f"  cached regrade of the class: {ours['cached_wall']:.1f} s")
    print(f"  one learner's submission, every notebook solved: {ours['one_learner_wall']:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
