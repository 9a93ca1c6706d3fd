"""Grade a synthetic class with this grader and with ``nbgrader autograde``, and compare.

    python benchmarks/grading.py --students 10            # both graders
    python benchmarks/grading.py --students 100 --no-nbgrader
    python benchmarks/grading.py --students 10 --no-nbgrader --mechanisms

The class is made from the course's own notebooks. Every learner hands in every
notebook; each notebook is, drawn with fixed weights from a generator seeded by
the learner's number (see ``KINDS``): the full solution, a partial one (half the
functions written), wrong functions (every graded function returns None), one
whose last cell kills its process, or one whose first function never returns.
Both graders get the same files and a limit of ``--timeout`` seconds per cell;
this grader's calls of a learner's function keep their own limit, derived from
the reference solution's time (``fixed_limit`` grades the class again with
``--call-timeout`` set to the same seconds instead).

Printed for each run: wall time, core-seconds (the whole machine's busy CPU time
over the run, from /proc/stat: run it on an otherwise idle machine) and the peak
memory of the grader's process tree. This grader's first run starts from empty
caches; the short figures (a warm regrade of the class, a cached regrade, one
learner who solved every notebook, ``check`` of one notebook once its own cache
is filled) are medians of ``--runs`` runs, printed with their range; ``check``'s
first run, from an empty cache of its own, is printed too. ``--mechanisms`` also grades the
class's first run with each speed mechanism of ``benchmarks/switch_off`` turned
off in turn. ``--json FILE`` writes every figure as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
SWITCHES_FOLDER = Path(__file__).resolve().parent / "switch_off"
sys.path.insert(0, str(REPO))

from autograder.load.course import SOLUTIONS, ExerciseNotebook, load_course  # noqa: E402

# kind of notebook: its share of the class
KINDS = {"full": 40, "partial": 30, "wrong": 20, "crashing": 5, "hanging": 5}
# the notebooks whose check is timed: the quickest and the slowest to check
CHECKED = ("leaves", "capstone", "libraries")


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


def busy_seconds() -> float:
    """CPU time the whole machine has spent busy since boot, in core-seconds."""
    first_line = Path("/proc/stat").read_text().split("\n", 1)[0]
    ticks = [int(value) for value in first_line.split()[1:9]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


def timed(command: list[str], env: dict[str, str] | None = None, check: bool = True) -> dict:
    """Run ``command``: its wall time, core-seconds and peak memory (bytes)."""
    with PeakMemory() as memory:
        started, busy = time.monotonic(), busy_seconds()
        subprocess.run(
            command, check=check, cwd=REPO, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        elapsed, cores = time.monotonic() - started, busy_seconds() - busy
    return {"wall": elapsed, "core_seconds": cores, "peak_bytes": memory.peak}


def median_of(runs: int, command: list[str], env: dict[str, str] | None = None) -> dict:
    """The median wall time and core-seconds of ``runs`` runs of ``command``, with the range."""
    times = [timed(command, env, check=False) for _ in range(runs)]
    walls = [t["wall"] for t in times]
    return {
        "wall": statistics.median(walls),
        "core_seconds": statistics.median(t["core_seconds"] for t in times),
        "wall_range": [min(walls), max(walls)],
    }


def grader(*words: str) -> list[str]:
    return [sys.executable, "-m", "autograder", *words]


def caches(folder: Path) -> list[str]:
    return ["--cache-dir", str(folder / "cache"), "--compile-store", str(folder / "store")]


def first_run(path: Path, folder: Path, jobs: int, timeout: float, off: str = "") -> dict:
    """Grade ``path`` with empty caches in ``folder``; ``off`` names a mechanism to turn off."""
    env = dict(os.environ)
    if off:
        env["PYTHONPATH"] = os.pathsep.join([str(SWITCHES_FOLDER), str(REPO)])
        env["PYTREES_BENCHMARK_OFF"] = off
    grade = grader("grade", str(path), "--jobs", str(jobs), "--cell-timeout", str(timeout))
    return timed([*grade, *caches(folder), "--json", str(folder / "report.json")], env)


def run_ours(root: Path, work: Path, jobs: int, timeout: float, runs: int) -> dict:
    figures = first_run(root, work / "class", jobs, timeout)
    grade = grader("grade", str(root), "--jobs", str(jobs), "--cell-timeout", str(timeout))
    grade += caches(work / "class")
    figures["warm"] = median_of(runs, [*grade, "--no-cache"])
    figures["cached"] = median_of(runs, grade)
    figures["fixed_limit"] = timed([*grade, "--no-cache", "--call-timeout", str(timeout)])
    solved = write_solved_learner(work / "solved")
    figures["one_learner_first"] = first_run(solved, work / "one", jobs, timeout)
    # warm: with the caches the class's first run filled
    one = grader("grade", str(solved), "--cell-timeout", str(timeout), *caches(work / "class"))
    figures["one_learner"] = median_of(runs, [*one, "--no-cache"])
    figures["check_first"], figures["check"] = {}, {}
    for chapter in CHECKED:
        # check keeps what it compiled in the learner's cache: the first run starts without
        env = {**os.environ, "XDG_CACHE_HOME": str(work / f"check-{chapter}")}
        check = grader("check", str(solved / f"{chapter}.ipynb"))
        figures["check_first"][chapter] = timed(check, env, check=False)
        figures["check"][chapter] = median_of(runs, check, env)
    return figures


def run_mechanisms(root: Path, work: Path, jobs: int, timeout: float) -> dict:
    """The class's first run with each mechanism of ``benchmarks/switch_off`` turned off."""
    return {off: first_run(root, work / f"without-{off}", jobs, timeout, off) for off in switches()}


def switches() -> list[str]:
    sys.path.insert(0, str(SWITCHES_FOLDER))
    from sitecustomize import SWITCHES

    return list(SWITCHES)


def run_nbgrader(root: Path, work: Path, timeout: float) -> dict:
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
    total = {"wall": 0.0, "core_seconds": 0.0, "peak_bytes": 0}
    for notebook in course.notebooks:
        # nbgrader exits 1 when a kernel died in some submission; it grades the others
        run = timed([*autograde, notebook.id], env=env, check=False)
        total["wall"] += run["wall"]
        total["core_seconds"] += run["core_seconds"]
        total["peak_bytes"] = max(total["peak_bytes"], run["peak_bytes"])
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3, help="runs per short figure (median)")
    parser.add_argument("--no-nbgrader", action="store_true", help="time this grader only")
    parser.add_argument(
        "--mechanisms", action="store_true", help="also time the first run without each mechanism"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="pytrees-bench-") as scratch:
        work = Path(scratch)
        root = work / "learners"
        make_class(root, args.students)
        figures = {"students": args.students, "jobs": args.jobs}
        figures["ours"] = run_ours(root, work, args.jobs, args.timeout, args.runs)
        if args.mechanisms:
            figures["without"] = run_mechanisms(root, work, args.jobs, args.timeout)
        if not args.no_nbgrader:
            figures["nbgrader"] = run_nbgrader(root, work, args.timeout)
    _print(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def _run(figures: dict) -> str:
    return f"{figures['wall']:7.1f} s wall {figures['core_seconds']:7.1f} core-s"


def _short(figures: dict) -> str:
    low, high = figures["wall_range"]
    return f"{_run(figures)} (median; {low:.1f} to {high:.1f} s)"


def _print(figures: dict) -> None:
    students, ours = figures["students"], figures["ours"]
    print(f"class of {students} learners, every notebook of the course, --jobs {figures['jobs']}")
    rows = [("this grader, first run", ours)]
    if "nbgrader" in figures:
        rows.append(("nbgrader autograde", figures["nbgrader"]))
    for name, row in rows:
        print(
            f"  {name:<24} {_run(row)}  {row['wall'] / students:6.2f} s per learner"
            f"  peak {row['peak_bytes'] / 2**30:5.2f} GiB"
        )
    if "nbgrader" in figures:
        print(f"  ratio (nbgrader / first run): {figures['nbgrader']['wall'] / ours['wall']:.1f}x")
    print(f"  warm regrade (--no-cache):    {_short(ours['warm'])}")
    print(f"  first run / warm regrade:     {ours['wall'] / ours['warm']['wall']:.2f}")
    print(f"  fixed call limit (warm):      {_run(ours['fixed_limit'])}")
    print(f"  cached regrade:               {_short(ours['cached'])}")
    print(f"  one solved learner, warm:     {_short(ours['one_learner'])}")
    print(f"  one solved learner, first:    {_run(ours['one_learner_first'])}")
    for chapter, row in ours["check"].items():
        print(f"  check {chapter + '.ipynb':<22} {_short(row)}")
        print(f"  check {chapter + '.ipynb, first':<22} {_run(ours['check_first'][chapter])}")
    for off, row in figures.get("without", {}).items():
        saved = row["wall"] - ours["wall"]
        print(f"  first run without {off:<22} {_run(row)}  ({saved:+.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
