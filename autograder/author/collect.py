"""``python -m autograder collect ROSTER --into submissions/``: every learner's notebooks, by git.

The roster is a CSV file with a header row naming (at least) two columns:

- ``learner``: the learner's name, used as their folder's name under ``--into``:
  letters, digits, ``_``, ``-``, ``.``, ``@``, ``+`` and inner spaces, starting
  and ending with a letter, a digit or ``_``, so that it cannot name a folder
  outside ``--into`` or a hidden one;
- ``repository``: an ``https://`` URL, ``git@host:path`` or anything else ``git
  clone`` takes from another machine; a local path or a ``file://`` URL only with
  ``allow_local`` (the instructor's ``--allow-local``), since a learner who names
  one would be handed whatever repository of this machine the instructor can read.

Other columns are ignored. For each learner, the repository is cloned bare into a
temporary folder (nothing of it is checked out, so no file of it is written but
the notebooks), with git's own checks of every object received (``fsck``: a tree
naming an absolute path or a ``..`` is refused), and every ``.ipynb`` of the
commit collected, but those of the release's course copy (``autograder/course/``)
and those under hidden folders, is written under ``--into/<learner>/`` at its path
in the repository (the grader recognises a chapter's notebook by its cells, so
names are kept). Every path is checked again before it is written (see
:func:`checked_path`), and a learner's notebooks are capped in size, in number and
in bytes in all (:class:`Caps`); a notebook left out for any of these reasons gets
one line naming the learner, the path and why. The commit's tree is read from git
as it comes, and no further than a cap on its ``.ipynb`` entries; one line says
where reading stopped. The commit collected for each learner is recorded in
``--into/collected.json``, so a regrade grades the same work. A repository that
cannot be cloned, has no commit or holds no notebook is reported on one line, and
leaves that learner's earlier collection, if any, as it was; the rest of the class
goes on. Every text of the roster or of git is printed cleaned of terminal escapes.

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
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import IO

from autograder.load.course import COURSE_COPY, PACKAGE_DIR
from autograder.load.learner_notebook import MAX_NOTEBOOK_BYTES
from autograder.load.submissions import UnusableInput
from autograder.safe_text import clean

LEARNER_COLUMN = "learner"
REPOSITORY_COLUMN = "repository"
MANIFEST = "collected.json"
DEFAULT_TIMEOUT = 120.0
NOTEBOOKS_PER_CHAPTER = 4
"""How many notebooks of one learner are collected, per chapter of the course: its
notebook, and copies of it (``leaves-Copy1.ipynb``) or scratch notebooks beside it."""
MAX_LEARNER_BYTES = 256 * 1024 * 1024
"""How many bytes of notebooks one learner's collection holds at most, in all. The
course's notebooks are well under 1 MiB each; this leaves room for outputs and one
notebook as large as the grader takes, and keeps a tree naming one large blob at
many paths from writing more than this."""
ENTRIES_PER_NOTEBOOK = 4
"""How many ``.ipynb`` entries of a learner's tree are read, per notebook collected:
room for checkpoints (``.ipynb_checkpoints/``), the course copy and notebooks left
out; past it, the tree is not read further, so its size costs neither memory nor
one line per entry."""
DEADLINE_CAVEAT = (
    "a commit's date is whatever the learner's git wrote: --deadline takes the learner's "
    "word for when the work was done, not a record of when it was pushed; to hold a "
    f"deadline, collect at the deadline ({MANIFEST} keeps each commit collected) or "
    "compare with the push times your git host records, where it offers them"
)

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


class UnsafePath(Exception):
    """A path in a learner's repository that is not written; the message says why."""


@dataclass(frozen=True)
class Caps:
    """What one learner's collection may hold: ``notebooks`` notebooks at most (the first
    by path), each of ``notebook_bytes`` at most (the grader's own limit by default),
    of ``learner_bytes`` in all; and how far its tree is read (:attr:`entries`)."""

    notebooks: int
    notebook_bytes: int = MAX_NOTEBOOK_BYTES
    learner_bytes: int = MAX_LEARNER_BYTES

    @property
    def entries(self) -> int:
        """How many ``.ipynb`` entries of the tree are read at most, whatever their fate."""
        return ENTRIES_PER_NOTEBOOK * self.notebooks

    @classmethod
    def for_course(cls, chapters: int) -> Caps:
        """The caps for a course of ``chapters`` chapters."""
        return cls(notebooks=NOTEBOOKS_PER_CHAPTER * chapters)


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
    caps: Caps,
    deadline: datetime | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    allow_local: bool = False,
    reserved: Iterable[str] = (),
    say: Callable[[str], None] = print,
) -> int:
    """Collect every learner of ``roster`` into ``into``; return the command's exit code.

    ``say`` gets, with a ``deadline``, first what a deadline can prove
    (:data:`DEADLINE_CAVEAT`); then one line per learner, after one per notebook left
    out; then a summary. The exit code is 0 when at least one learner was collected
    and 1 when none was (each learner's line says why). A roster that cannot be used
    raises RosterError before anything is cloned; ``into`` that cannot be made a
    folder raises UnusableInput.
    """
    learners = read_roster(roster, reserved)
    _make_folder(into)
    manifest = _read_manifest(into / MANIFEST)
    if deadline is not None:
        say(f"note: {DEADLINE_CAVEAT}")
    failed: list[str] = []
    for learner in learners:
        try:
            collected = collect_learner(
                learner, into, caps=caps, deadline=deadline, timeout=timeout,
                allow_local=allow_local, say=say,
            )  # fmt: skip
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
    learner: Learner,
    into: Path,
    *,
    caps: Caps,
    timeout: float,
    deadline: datetime | None = None,
    allow_local: bool = False,
    say: Callable[[str], None] = print,
) -> Collected:
    """Clone ``learner``'s repository and write its notebooks to ``into/<name>/``.

    ``say`` gets one line for each notebook left out (an unsafe path, over ``caps``,
    or not writable), naming the learner, the path and why. The learner's folder is
    replaced only once everything was read. Raises CollectFailed, and changes
    nothing under ``into``, when the repository cannot be cloned in ``timeout``
    seconds (a local one without ``allow_local``), has no commit (before
    ``deadline``, when given), or holds no notebook that can be collected.
    """
    target = into / learner.name
    if target.resolve().parent != into.resolve():
        raise CollectFailed(f"the name {learner.name!r} does not name a folder in {into}")
    with tempfile.TemporaryDirectory(prefix="collect-") as scratch:
        clone = Path(scratch) / "repository.git"
        _clone(learner.repository, clone, timeout, deadline is None, allow_local)
        commit = _commit(clone, deadline, timeout)
        staging = into / f".{learner.name}.collecting"
        _remove(staging)
        written: list[str] = []
        try:
            for path, blob in _notebooks(clone, commit, caps, timeout, learner.name, say):
                try:
                    write_blob(clone, blob, staging, path, timeout)
                except (UnsafePath, OSError) as exc:
                    reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
                    say(f"{learner.name}: skipped {clean(str(path))}: {reason}")
                    continue
                written.append(str(path))
            if not written:
                raise CollectFailed(
                    "the repository holds no notebook (.ipynb) outside "
                    f"{_COURSE_COPY_PATH}/ at commit {commit[:12]}"
                )
        except CollectFailed:
            _remove(staging)
            raise
        _remove(target)
        staging.rename(target)
    return Collected(learner, commit, tuple(written))


def checked_path(name: bytes) -> PurePosixPath:
    """``name``, a path of a tree as ``git ls-tree`` gives it, as a relative path that
    stays inside the folder it is joined to.

    Raises UnsafePath, saying why, when ``name`` is not UTF-8, is absolute, has an
    empty, ``.`` or ``..`` part, or holds a backslash or a character of Unicode's
    category C (controls, format characters such as the bidi controls, surrogates,
    private-use and unassigned ones). git's own object checks refuse most of these
    before any is listed; this is the check that holds when they did not run.
    """
    try:
        text = name.decode("utf-8")  # strictly: no surrogate escapes
    except UnicodeDecodeError:
        raise UnsafePath("its name is not UTF-8") from None
    if text.startswith("/"):
        raise UnsafePath("it is an absolute path")
    if "\\" in text:
        raise UnsafePath("its name holds a backslash")
    if any(unicodedata.category(character).startswith("C") for character in text):
        raise UnsafePath("its name holds a control, format or unassigned character")
    if any(part in ("", ".", "..") for part in text.split("/")):
        raise UnsafePath("its path has an empty, '.' or '..' part")
    return PurePosixPath(text)


def write_blob(clone: Path, blob: str, folder: Path, path: PurePosixPath, timeout: float) -> None:
    """Write ``blob`` of ``clone`` to ``folder / path``, streamed from git to the file.

    Raises UnsafePath when the joined path resolves outside ``folder``, and OSError
    when it cannot be made; the file is made new, never through a symbolic link, and
    never over a file that is already there.
    """
    written = folder / path
    if not written.resolve().is_relative_to(folder.resolve()):
        raise UnsafePath(f"it resolves outside the learner's folder {folder}")
    written.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(written, flags, 0o644), "wb") as out:
        _git(clone, ["cat-file", "blob", blob], timeout, stdout=out)


def redact(text: str) -> str:
    """``text`` without the user name or token a URL in it may carry (``https://user:token@``)."""
    return _USERINFO.sub(r"\1", text)


def _clone(repository: str, clone: Path, timeout: float, shallow: bool, allow_local: bool) -> None:
    """Clone ``repository`` bare; git checks every object it receives (``fsck``).

    ``--no-local``: a local clone copies the objects as files and checks none.
    """
    depth = ["--depth", "1"] if shallow else []
    settings = {
        "protocol.ext.allow": "never",
        "protocol.file.allow": "always" if allow_local else "never",
        "transfer.fsckObjects": "true",
        "fetch.fsckObjects": "true",
    }
    options = [option for key, value in settings.items() for option in ("-c", f"{key}={value}")]
    done = _run(
        ["git", *options, "clone", "--bare", "--quiet", "--no-local", *depth]
        + ["--", repository, str(clone)],
        timeout,
    )
    if done.returncode == 0:
        return
    shown = clean(redact(repository))
    if b"transport 'file' not allowed" in done.stderr:
        raise CollectFailed(
            f"cannot clone {shown}: it is a local path or a file:// URL, collected only "
            "with --allow-local"
        )
    raise CollectFailed(f"cannot clone {shown}: {_git_reason(done.stderr)}")


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


def _notebooks(
    clone: Path, commit: str, caps: Caps, timeout: float, learner: str, say: Callable[[str], None]
) -> list[tuple[PurePosixPath, str]]:
    """The notebooks of ``commit`` to collect, by path: each path and its blob.

    Left out without a word: the course copy and hidden folders. Left out with a
    line to ``say``: an unsafe path (:func:`checked_path`), a link or submodule, a
    notebook over ``caps.notebook_bytes`` or that would bring the learner's total
    over ``caps.learner_bytes`` (sizes as git stored them, read before anything is
    written), and the notebooks after the first ``caps.notebooks``. The tree is read
    no further than its first ``caps.entries`` ``.ipynb`` entries; one line says so
    when there are more.
    """
    found: list[tuple[PurePosixPath, str]] = []
    total = read = 0
    with closing(_tree_entries(clone, commit, timeout)) as entries:
        for info, name in entries:
            if not name.endswith(b".ipynb"):
                continue
            if read == caps.entries:
                say(
                    f"{learner}: stopped reading the tree at {_shown(name)}: "
                    f"over the limit of {caps.entries:,} notebook entries read a learner; it and "
                    "the notebooks after it are not collected"
                )
                break
            read += 1
            mode, kind, blob, size = info.decode().split()
            try:
                path = checked_path(name)
            except UnsafePath as exc:
                say(f"{learner}: skipped {_shown(name)}: {exc}")
                continue
            if any(part.startswith(".") for part in path.parts) or path.is_relative_to(
                _COURSE_COPY_PATH
            ):
                continue
            why = _left_out(mode, kind, size, caps, len(found), total)
            if why:
                say(f"{learner}: skipped {clean(str(path))}: {why}")
                continue
            total += int(size)
            found.append((path, blob))
    return found


def _left_out(mode: str, kind: str, size: str, caps: Caps, found: int, total: int) -> str:
    """Why a notebook entry of the tree (``mode``, ``kind``, ``size`` as listed) is not
    collected after ``found`` notebooks of ``total`` bytes were; empty when it is."""
    if kind != "blob" or mode not in _REGULAR_FILE_MODES:
        return "not a regular file (a symbolic link or a submodule)"
    if int(size) > caps.notebook_bytes:
        return f"{int(size):,} bytes, over the limit of {caps.notebook_bytes:,} a notebook"
    if found == caps.notebooks:
        return f"over the limit of {caps.notebooks} notebooks a learner"
    if total + int(size) > caps.learner_bytes:
        return (
            f"{int(size):,} bytes, over the limit of {caps.learner_bytes:,} bytes of notebooks "
            f"a learner ({total:,} already collected)"
        )
    return ""


def _shown(name: bytes) -> str:
    """A tree entry's name as it may be printed: decoded as far as it is UTF-8, and cleaned."""
    return clean(name.decode(errors="replace"))


def _tree_entries(clone: Path, commit: str, timeout: float) -> Iterator[tuple[bytes, bytes]]:
    """Every entry of ``commit``'s tree, as ``(info, name)``, read from git as it lists
    them (``info``: mode, kind, object and size). Closing the iterator stops git, so a
    caller that reads only the first entries holds no more of the tree than those.

    Raises CollectFailed when git fails or takes more than ``timeout`` seconds.
    """
    # --long: each blob's size, from git's object header
    command = ["git", "-C", str(clone), "ls-tree", "-r", "-z", "--long", "--full-tree", commit]
    stopped = threading.Event()

    def stop(process: subprocess.Popen[bytes]) -> None:
        stopped.set()
        _kill(process)

    with tempfile.TemporaryFile() as stderr:
        process = _start(command, subprocess.PIPE, stderr)
        timer = threading.Timer(timeout, stop, (process,))
        timer.start()
        try:
            assert process.stdout is not None
            pending = b""
            for chunk in iter(lambda: process.stdout.read1(1 << 16), b""):
                *complete, pending = (pending + chunk).split(b"\0")
                for entry in complete:
                    info, _, name = entry.partition(b"\t")
                    yield info, name
        finally:
            timer.cancel()
            _kill(process)
            process.stdout.close()
            returncode = process.wait()
        if stopped.is_set():
            raise CollectFailed(f"git took more than {timeout:g} s and was stopped")
        if returncode != 0:
            stderr.seek(0)
            raise CollectFailed(f"git ls-tree failed: {_git_reason(stderr.read())}")


def _git(
    clone: Path, args: list[str], timeout: float, stdout: IO[bytes] | None = None
) -> subprocess.CompletedProcess[bytes]:
    done = _run(["git", "-C", str(clone), *args], timeout, stdout)
    if done.returncode != 0:
        raise CollectFailed(f"git {args[0]} failed: {_git_reason(done.stderr)}")
    return done


def _run(
    command: list[str], timeout: float, stdout: IO[bytes] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run git without a terminal prompt; stop it and whatever it started after ``timeout``.

    Its output goes to ``stdout`` when given (a file: nothing of it is held here),
    else it is returned.
    """
    process = _start(command, subprocess.PIPE if stdout is None else stdout, subprocess.PIPE)
    try:
        output, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        process.communicate()
        raise CollectFailed(f"git took more than {timeout:g} s and was stopped") from None
    return subprocess.CompletedProcess(command, process.returncode, output or b"", stderr)


def _start(
    command: list[str], stdout: IO[bytes] | int, stderr: IO[bytes] | int
) -> subprocess.Popen[bytes]:
    """Start git without a terminal prompt, in a process group of its own."""
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GCM_INTERACTIVE="never")
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        env=env,
        start_new_session=True,  # its own process group: a timeout stops ssh or curl too
    )


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Stop ``process`` and whatever it started (before it is waited for: its group's id
    is still its own)."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _git_reason(stderr: bytes) -> str:
    """git's own reason, on one line and cleaned: its first ``error:`` line (what an object
    check found), else its last ``fatal:`` line, else its last line."""
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    errors = [line.removeprefix("error: ") for line in lines if line.startswith("error:")]
    fatal = [line.removeprefix("fatal: ") for line in lines if line.startswith("fatal:")]
    reason = errors[0] if errors else (fatal or lines or ["git gave no reason"])[-1]
    return clean(redact(reason))


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
