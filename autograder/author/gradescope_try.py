"""``gradescope-try``: an autograder zip tried on this machine as Gradescope runs it.

Gradescope unpacks the zip in ``/autograder/source`` and runs its ``setup.sh`` once, to
build the image; then, for each submission, it puts the learner's files in
``/autograder/submission``, runs ``run_autograder`` from ``/autograder`` and reads
``/autograder/results/results.json``. Here the same folders are laid out in a temporary
root (``AUTOGRADER_ROOT`` tells ``run_autograder`` where) and the zip's own two scripts
run in it, so what is tried is what Gradescope runs. Outside ``/autograder/source``,
``setup.sh`` installs no system package: it makes ``source/.venv`` with the Python that
runs this command.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from autograder.author.gradescope import EXECUTABLES
from autograder.load.submissions import UnusableInput

Say = Callable[[str], None]

WHEN_SHOWN = {
    "visible": "at once",
    "after_published": "once grades are published",
    "after_due_date": "after the due date",
    "hidden": "never",
}
"""When a learner sees a result, by its ``visibility`` in results.json (Gradescope's words)."""


def try_bundle(
    bundle: Path, submissions: Sequence[Path], keep: Path | None = None, say: Say = print
) -> int:
    """Grade each of ``submissions`` (a notebook, or a folder as uploaded) with ``bundle``.

    Runs ``setup.sh`` once, then ``run_autograder`` for each submission on its own, and
    says (through ``say``) what results.json holds and when the learner sees it, then
    Gradescope's autograder output, which only instructors see. The folders are laid out
    in ``keep`` (a new or empty folder, kept) or else in a temporary folder, removed after.
    Returns 0 when every submission got a results.json, 1 when setup.sh failed or one did
    not. Raises UnusableInput, before any work, for a bundle that is not an autograder zip,
    a submission that does not exist, or a ``keep`` that is not empty.
    """
    _check_bundle(bundle)
    for submission in submissions:
        if not submission.exists():
            raise UnusableInput(f"{submission}: no such notebook or folder")
    if keep is None:
        with tempfile.TemporaryDirectory(prefix="gradescope-try-") as root:
            return _try_in(Path(root), bundle, submissions, say)
    if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise UnusableInput(f"{keep} is not an empty folder; --keep takes a new or empty one")
    code = _try_in(keep.resolve(), bundle, submissions, say)
    say(f"The folders are kept in {keep}: source/, submission/ (the last one), results/")
    return code


def _check_bundle(bundle: Path) -> None:
    if not zipfile.is_zipfile(bundle):
        raise UnusableInput(f"{bundle} is not a zip file: give the zip gradescope-bundle wrote")
    with zipfile.ZipFile(bundle) as archive:
        missing = [name for name in EXECUTABLES if name not in archive.namelist()]
    if missing:
        raise UnusableInput(
            f"{bundle} has no {' or '.join(missing)} at its root: it is not an autograder zip "
            "(gradescope-bundle writes one)"
        )


def _try_in(root: Path, bundle: Path, submissions: Sequence[Path], say: Say) -> int:
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    env = _environment(root)
    say("setup.sh: making source/.venv and grading the reference solutions, as Gradescope does")
    say("once when it builds the image (a minute or more)...")
    started = time.monotonic()
    setup = _run(["bash", str(root / "source" / "setup.sh")], root, env)
    if setup.returncode != 0:
        say(setup.stdout.rstrip())
        say(f"setup.sh failed (exit {setup.returncode}): Gradescope would refuse this zip")
        return 1
    say(f"setup.sh: done in {time.monotonic() - started:.0f} s")
    tried = [_grade_one(root, submission, env, say) for submission in submissions]
    return 0 if all(tried) else 1


def _environment(root: Path) -> dict[str, str]:
    """The scripts' environment: Gradescope's root at ``root``, this machine's Python."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    # The grader's caches start empty, in root, as in the container Gradescope builds;
    # pip keeps this machine's cache (its default place), so setup.sh downloads only what
    # the machine has not.
    home_cache = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    env.setdefault("PIP_CACHE_DIR", str(home_cache / "pip"))
    return env | {
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_PYTHON": sys.executable,
        "XDG_CACHE_HOME": str(root / "cache"),
    }


def _run(command: list[str], root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``command`` from ``root``, as Gradescope runs its scripts, its output and errors as one."""
    return subprocess.run(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _grade_one(root: Path, submission: Path, env: dict[str, str], say: Say) -> bool:
    """Run ``run_autograder`` on ``submission`` alone; say what it gave. False without results."""
    handed_in, results = root / "submission", root / "results"
    for folder in (handed_in, results):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
    if submission.is_dir():
        shutil.copytree(submission, handed_in, symlinks=True, dirs_exist_ok=True)
    else:
        shutil.copy2(submission, handed_in / submission.name)
    started = time.monotonic()
    done = _run(["bash", str(root / "source" / "run_autograder")], root, env)
    seconds = time.monotonic() - started
    (results / "stdout").write_text(done.stdout, encoding="utf-8")  # where Gradescope keeps it
    say("")
    if not (results / "results.json").is_file():
        say(f"{submission}: run_autograder wrote no results.json (exit {done.returncode}) in")
        say(f"{seconds:.1f} s; Gradescope would show the learner an error. Its output:")
        say(_indented(done.stdout))
        return False
    graded = json.loads((results / "results.json").read_text(encoding="utf-8"))
    say(f"{submission}, graded as Gradescope would:")
    for line in describe_results(graded):
        say(line)
    ended = "" if done.returncode == 0 else f", and exited with {done.returncode}"
    say(f"  run_autograder took {seconds:.1f} s{ended}. Its output, which only instructors see:")
    say(_indented(done.stdout, "    "))
    return True


def describe_results(results: dict[str, Any]) -> list[str]:
    """results.json as an instructor reads it: the score, when the learner sees the total,
    the learner's output, and each test with its points and when it is shown."""
    tests = results.get("tests", [])
    most = sum(test.get("max_score", 0) for test in tests)
    score = f"{results.get('score', 0):g}" + (f" / {most:g}" if tests else "")
    when = WHEN_SHOWN.get(results.get("visibility", "visible"), results.get("visibility"))
    lines = [f"  Score {score}; the learner sees the total {when}."]
    if results.get("output"):
        lines += ["  Output to the learner:", _indented(results["output"], "    ")]
    for test in tests:
        marks = f"{test.get('score', 0):g} / {test.get('max_score', 0):g}"
        visibility = test.get("visibility", results.get("visibility", "visible"))
        shown = WHEN_SHOWN.get(visibility, visibility)
        lines.append(f"  {test.get('status', ''):6} {marks:>9}  {test['name']}  (shown {shown})")
        if test.get("output"):
            lines.append(_indented(test["output"], "      "))
    return lines


def _indented(text: str, margin: str = "    ") -> str:
    return "\n".join(margin + line for line in text.rstrip().splitlines())
