"""``python -m autograder collect ROSTER --into submissions/``: every learner's notebooks, by git.

The roster is a CSV file with a header row naming (at least) two columns:

- ``learner``: the learner's name, used as their folder's name under ``--into``:
  letters, digits, ``_``, ``-``, ``.``, ``@``, ``+`` and inner spaces, starting
  and ending with a letter, a digit or ``_``, so that it cannot name a folder
  outside ``--into`` or a hidden one;
- ``repository``: anything ``git clone`` takes: an ``https://`` URL, ``git@host:path``,
  or a local path.

Other columns are ignored. For each learner, the repository is cloned bare into a
temporary folder (nothing of it is checked out, so no file of it is written but
the notebooks), and every ``.ipynb`` of the commit collected, but those of the
release's course copy (``autograder/course/``) and those under hidden folders, is
written under ``--into/<learner>/`` at its path in the repository (the grader
recognises a chapter's notebook by its cells, so names are kept). The commit
collected for each learner is recorded in ``--into/collected.json``, so a regrade
grades the same work. A repository that cannot be cloned, has no commit or holds
no notebook is reported on one line, and leaves that learner's earlier
collection, if any, as it was; the rest of the class goes on.

git runs with ``GIT_TERMINAL_PROMPT=0`` and ssh in batch mode, so it never waits
for a password, and each clone is stopped after ``timeout`` seconds.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from autograder.load.course import COURSE_COPY, PACKAGE_DIR
from autograder.load.submissions import UnusableInput

LEARNER_COLUMN = "learner"
REPOSITORY_COLUMN = "repository"
MANIFEST = "collected.json"
DEFAULT_TIMEOUT = 120.0

# Starts and ends with a word character: no "/", no "..", no leading dot, no trailing space.
_LEARNER_NAME = re.compile(r"\w(?:[\w.@+ -]*\w)?")
# What a URL may carry before its host: a user name and a password or token.
_USERINFO = re.compile(r"(\w[\w+.-]*://)[^/@\s]*@")
_COURSE_COPY_PATH = PurePosixPath(COURSE_COPY.relative_to(PACKAGE_DIR.parent).as_posix())
_REGULAR_FILE_MODES = ("100644", "100755")


class RosterError(UnusableInput):
    """The roster cannot be used; the message is the one-line reason, naming file and line."""


class CollectFailed(Exception):
    """One learner's repository cannot be collected; the message says why."""


@dataclass(frozen=True)
class Learner:
    """One row of the roster."""

    name: str
    repository: str
    line: int


@dataclass(frozen=True)
class Collected:
    """What was collected of one learner: the commit and the notebooks' paths in it."""

    learner: Learner
    commit: str
    notebooks: tuple[str, ...]


def read_roster(path: Path, reserved: Iterable[str] = ()) -> list[Learner]:
    """The learners of the roster at ``path``, in its order.

    Raises RosterError, naming the file and the line, when the file cannot be read,
    has no ``learner`` and ``repository`` columns, or has a row with an empty
    field, a name that cannot be a folder's (see the module's docstring), a name in
    ``reserved`` (names the grader would read as something else than a learner), or
    a name given twice (compared without case, as some file systems do).
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        raise RosterError(f"cannot read the roster {path}: {reason}") from None
    rows = csv.reader(text.splitlines())
    header = next(rows, None)
    columns = [column.strip().lower() for column in header or []]
    if LEARNER_COLUMN not in columns or REPOSITORY_COLUMN not in columns:
        raise RosterError(
            f"{path} line 1: the header must name the columns {LEARNER_COLUMN} and "
            f"{REPOSITORY_COLUMN} (a CSV file, e.g. '{LEARNER_COLUMN},{REPOSITORY_COLUMN}')"
        )
    name_at, repository_at = columns.index(LEARNER_COLUMN), columns.index(REPOSITORY_COLUMN)
    reserved_names = {name.casefold() for name in (*reserved, MANIFEST)}
    learners: list[Learner] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(rows, start=2):
        if not any(field.strip() for field in row):
            continue
        name = row[name_at].strip() if name_at < len(row) else ""
        repository = row[repository_at].strip() if repository_at < len(row) else ""
        where = f"{path} line {line}"
        if not name or not repository:
            missing = LEARNER_COLUMN if not name else REPOSITORY_COLUMN
            raise RosterError(f"{where}: the {missing} column is empty")
        if not _LEARNER_NAME.fullmatch(name):
            raise RosterError(
                f"{where}: the learner name {name!r} cannot be a folder name (use letters, "
                "digits and _ - . @ +, starting and ending with a letter or digit)"
            )
        if name.casefold() in reserved_names:
            raise RosterError(
                f"{where}: the learner name {name!r} is also the name of a chapter or of a "
                "folder the grader reads; give this learner another name"
            )
        if name.casefold() in seen:
            raise RosterError(f"{where}: {name} is also on line {seen[name.casefold()]}")
        seen[name.casefold()] = line
        learners.append(Learner(name, repository, line))
    if not learners:
        raise RosterError(f"{path}: the roster names no learner")
    return learners


def collect_class(
    roster: Path,
    into: Path,
    *,
    deadline: datetime | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    reserved: Iterable[str] = (),
    say: Callable[[str], None] = print,
) -> int:
    """Collect every learner of ``roster`` into ``into``; return the command's exit code.

    ``say`` gets one line per learner, then a summary. The exit code is 0 when at
    least one learner was collected and 1 when none was (each learner's line says
    why). A roster that cannot be used raises RosterError before anything is
    cloned; ``into`` that cannot be made a folder raises UnusableInput.
    """
    learners = read_roster(roster, reserved)
    _make_folder(into)
    manifest = _read_manifest(into / MANIFEST)
    failed: list[str] = []
    for learner in learners:
        try:
            collected = collect_learner(learner, into, deadline=deadline, timeout=timeout)
        except CollectFailed as exc:
            failed.append(learner.name)
            kept = manifest.get(learner.name, {}).get("commit")
            also = f" (kept what was collected before, commit {kept[:12]})" if kept else ""
            say(f"{learner.name}: {exc}{also}")
            continue
        manifest[learner.name] = {
            "repository": redact(learner.repository),
            "commit": collected.commit,
            "notebooks": list(collected.notebooks),
            "deadline": deadline.isoformat() if deadline else None,
        }
        count = len(collected.notebooks)
        say(
            f"{learner.name}: collected {count} notebook{'s' if count != 1 else ''} "
            f"at commit {collected.commit[:12]}"
        )
    _write_manifest(into / MANIFEST, manifest)
    done = len(learners) - len(failed)
    summary = f"collected {done} of {len(learners)} learners into {into}"
    if failed:
        summary += f"; not collected: {', '.join(failed)}"
    say(summary)
    return 0 if done else 1


def collect_learner(
    learner: Learner, into: Path, *, deadline: datetime | None = None, timeout: float
) -> Collected:
    """Clone ``learner``'s repository and write its notebooks to ``into/<name>/``.

    The learner's folder is replaced only once everything was read. Raises
    CollectFailed, and changes nothing under ``into``, when the repository cannot
    be cloned in ``timeout`` seconds, has no commit (before ``deadline``, when
    given), or holds no notebook.
    """
    target = into / learner.name
    if target.resolve().parent != into.resolve():
        raise CollectFailed(f"the name {learner.name!r} does not name a folder in {into}")
    with tempfile.TemporaryDirectory(prefix="collect-") as scratch:
        clone = Path(scratch) / "repository.git"
        _clone(learner.repository, clone, timeout, shallow=deadline is None)
        commit = _commit(clone, deadline, timeout)
        notebooks = _notebooks(clone, commit, timeout)
        if not notebooks:
            raise CollectFailed(
                f"the repository holds no notebook (.ipynb) outside {_COURSE_COPY_PATH}/ "
                f"at commit {commit[:12]}"
            )
        staging = into / f".{learner.name}.collecting"
        _remove(staging)
        for path, blob in notebooks.items():
            written = staging / path
            written.parent.mkdir(parents=True, exist_ok=True)
            written.write_bytes(_git(clone, ["cat-file", "blob", blob], timeout).stdout)
        _remove(target)
        staging.rename(target)
    return Collected(learner, commit, tuple(notebooks))


def redact(text: str) -> str:
    """``text`` without the user name or token a URL in it may carry (``https://user:token@``)."""
    return _USERINFO.sub(r"\1", text)


def _clone(repository: str, clone: Path, timeout: float, shallow: bool) -> None:
    depth = ["--depth", "1"] if shallow else []
    done = _run(
        ["git", "-c", "protocol.ext.allow=never", "clone", "--bare", "--quiet", *depth]
        + ["--", repository, str(clone)],
        timeout,
    )
    if done.returncode != 0:
        raise CollectFailed(f"cannot clone {redact(repository)}: {_git_reason(done.stderr)}")


def _commit(clone: Path, deadline: datetime | None, timeout: float) -> str:
    head = _run(
        ["git", "-C", str(clone), "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], timeout
    )
    if head.returncode != 0:
        raise CollectFailed("the repository has no commit yet")
    if deadline is None:
        return head.stdout.decode().strip()
    log = _git(clone, ["log", "--format=%H %ct", "HEAD"], timeout).stdout.decode()
    limit = deadline.timestamp()
    dated = [(int(when), commit) for commit, when in (line.split() for line in log.splitlines())]
    before = [entry for entry in dated if entry[0] <= limit]
    if not before:
        raise CollectFailed(f"the repository has no commit before {deadline.isoformat()}")
    return max(before)[1]


def _notebooks(clone: Path, commit: str, timeout: float) -> dict[str, str]:
    """The notebooks of ``commit`` to collect: their paths in the repository and blobs."""
    listing = _git(clone, ["ls-tree", "-r", "-z", "--full-tree", commit], timeout).stdout
    found: dict[str, str] = {}
    for entry in listing.decode("utf-8", errors="surrogateescape").split("\0"):
        if not entry:
            continue
        info, _, name = entry.partition("\t")
        mode, kind, blob = info.split()
        path = PurePosixPath(name)
        if (
            kind == "blob"
            and mode in _REGULAR_FILE_MODES  # not a symbolic link
            and path.suffix == ".ipynb"
            and not any(part.startswith(".") for part in path.parts)
            and not path.is_relative_to(_COURSE_COPY_PATH)
        ):
            found[name] = blob
    return found


def _git(clone: Path, args: list[str], timeout: float) -> subprocess.CompletedProcess[bytes]:
    done = _run(["git", "-C", str(clone), *args], timeout)
    if done.returncode != 0:
        raise CollectFailed(f"git {args[0]} failed: {_git_reason(done.stderr)}")
    return done


def _run(command: list[str], timeout: float) -> subprocess.CompletedProcess[bytes]:
    """Run git without a terminal prompt; stop it and whatever it started after ``timeout``."""
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GCM_INTERACTIVE="never")
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # its own process group: a timeout stops ssh or curl too
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise CollectFailed(f"git took more than {timeout:g} s and was stopped") from None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _git_reason(stderr: bytes) -> str:
    """git's own reason, on one line: its last ``fatal:`` line, else its last line."""
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    fatal = [line.removeprefix("fatal: ") for line in lines if line.startswith("fatal:")]
    return redact((fatal or lines or ["git gave no reason"])[-1])


def _make_folder(into: Path) -> None:
    if into.exists() and not into.is_dir():
        raise UnusableInput(f"{into} exists and is not a folder; --into takes a folder")
    try:
        into.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UnusableInput(f"cannot make the folder {into}: {exc.strerror}") from None


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _read_manifest(path: Path) -> dict[str, dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise UnusableInput(f"{path} is not the record collect writes ({exc})") from None
    learners = data.get("learners") if isinstance(data, dict) else None
    if not isinstance(learners, dict):
        raise UnusableInput(f"{path} is not the record collect writes (no learners)")
    return learners


def _write_manifest(path: Path, learners: dict[str, dict]) -> None:
    text = json.dumps({"learners": dict(sorted(learners.items()))}, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
