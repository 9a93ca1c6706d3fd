"""``python -m autograder collect ROSTER --into DIR``: every learner's notebooks, over git.

The learners' repositories here are local git repositories made in the test's folder:
git takes a path as it takes a URL, and no test needs the network.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import pytest

from autograder.author import collect
from autograder.author.collect import (
    MANIFEST,
    Caps,
    Learner,
    RosterError,
    UnsafePath,
    checked_path,
    collect_class,
    read_roster,
    redact,
    write_blob,
)
from autograder.cli import main
from autograder.load.course import EXERCISES, SOLUTIONS, load_course
from conftest import VICTIM, run_cli, write_variant

NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Learner",
    "GIT_AUTHOR_EMAIL": "learner@example.org",
    "GIT_COMMITTER_NAME": "Learner",
    "GIT_COMMITTER_EMAIL": "learner@example.org",
}


def _git(folder: Path, *args: str, date: str | None = None) -> str:
    env = dict(os.environ, **_GIT_ENV)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def _repository(folder: Path, files: dict[str, bytes], date: str | None = None) -> str:
    """A git repository at ``folder`` (made if needed) with ``files`` committed; the commit."""
    if not (folder / ".git").exists():
        folder.mkdir(parents=True, exist_ok=True)
        _git(folder, "init", "--quiet")
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    _git(folder, "add", "--all")
    _git(folder, "commit", "--quiet", "--allow-empty", "-m", "work", date=date)
    return _git(folder, "rev-parse", "HEAD")


def _crafted(folder: Path, entries: dict[bytes, bytes]) -> Path:
    """A repository at ``folder`` whose one commit's tree holds ``entries`` (name: content)
    as they are: ``git hash-object --literally`` writes a tree ``git mktree`` refuses.
    In a repository already at ``folder``, that commit becomes its last."""
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "init", "--quiet")

    def stored(kind: str, content: bytes, *literally: str) -> bytes:
        command = ["git", "-C", str(folder), "hash-object", "-w", "-t", kind, *literally]
        done = subprocess.run([*command, "--stdin"], input=content, capture_output=True, check=True)
        return bytes.fromhex(done.stdout.decode().strip())

    blobs = {content: stored("blob", content) for content in set(entries.values())}
    tree = b"".join(
        b"100644 " + name + b"\0" + blobs[content] for name, content in sorted(entries.items())
    )
    commit = _git(folder, "commit-tree", stored("tree", tree, "--literally").hex(), "-m", "work")
    _git(folder, "update-ref", "HEAD", commit)
    return folder


def _bare(source: Path, folder: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", "--bare", str(source), str(folder)], check=True)
    return folder


def _roster(path: Path, rows: list[tuple[str, str | Path]]) -> Path:
    lines = ["learner,repository", *(f"{name},{repository}" for name, repository in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _collect(roster: Path, into: Path, **options) -> tuple[int, list[str]]:
    """Collect as the instructor's ``--allow-local`` does: these repositories are local."""
    said: list[str] = []
    options = {"allow_local": True, "caps": Caps(notebooks=64), **options}
    code = collect_class(roster, into, say=said.append, **options)
    return code, said


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_each_learners_notebooks_are_collected_into_their_folder(tmp_path):
    alice = _repository(
        tmp_path / "alice",
        {
            "exercises/leaves/leaves.ipynb": NOTEBOOK,
            "exercises/leaves/leaves-Copy1.ipynb": NOTEBOOK,
            "notes.txt": b"not a notebook",
        },
    )
    _repository(tmp_path / "bob-work", {"exercises/mapping/mine.ipynb": NOTEBOOK})
    roster = _roster(
        tmp_path / "roster.csv",
        [
            ("alice", tmp_path / "alice"),
            ("bob", _bare(tmp_path / "bob-work", tmp_path / "bob.git")),
        ],
    )
    code, said = _collect(roster, tmp_path / "submissions")
    assert code == 0
    assert _files(tmp_path / "submissions" / "alice") == {
        "exercises/leaves/leaves.ipynb",
        "exercises/leaves/leaves-Copy1.ipynb",
    }
    assert _files(tmp_path / "submissions" / "bob") == {"exercises/mapping/mine.ipynb"}
    assert (tmp_path / "submissions/bob/exercises/mapping/mine.ipynb").read_bytes() == NOTEBOOK
    assert said[-1] == f"collected 2 of 2 learners into {tmp_path / 'submissions'}"
    manifest = json.loads((tmp_path / "submissions" / MANIFEST).read_text())["learners"]
    assert manifest["alice"]["commit"] == alice
    assert manifest["bob"]["commit"] == _git(tmp_path / "bob-work", "rev-parse", "HEAD")


def test_the_releases_course_copy_and_hidden_folders_are_not_collected(tmp_path):
    _repository(
        tmp_path / "alice",
        {
            "exercises/leaves/leaves.ipynb": NOTEBOOK,
            "autograder/course/leaves/leaves.ipynb": NOTEBOOK,
            "exercises/leaves/.ipynb_checkpoints/leaves-checkpoint.ipynb": NOTEBOOK,
        },
    )
    _collect(_roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")]), tmp_path / "s")
    assert _files(tmp_path / "s" / "alice") == {"exercises/leaves/leaves.ipynb"}


def test_a_symbolic_link_in_a_repository_is_not_collected(tmp_path):
    secret = tmp_path / "secret.ipynb"
    secret.write_bytes(b"the instructor's file")
    _repository(tmp_path / "alice", {"exercises/leaves/leaves.ipynb": NOTEBOOK})
    (tmp_path / "alice" / "exercises" / "link.ipynb").symlink_to(secret)
    _repository(tmp_path / "alice", {})
    _collect(_roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")]), tmp_path / "s")
    assert _files(tmp_path / "s" / "alice") == {"exercises/leaves/leaves.ipynb"}


def test_a_missing_repository_gets_its_line_and_the_others_are_collected(tmp_path):
    _repository(tmp_path / "alice", {"exercises/leaves/leaves.ipynb": NOTEBOOK})
    missing = tmp_path / "nobody-here"
    roster = _roster(tmp_path / "roster.csv", [("bob", missing), ("alice", tmp_path / "alice")])
    code, said = _collect(roster, tmp_path / "s")
    assert code == 0
    assert said[0] == f"bob: cannot clone {missing}: repository '{missing}' does not exist"
    assert said[1].startswith("alice: collected 1 notebook at commit ")
    assert said[2] == f"collected 1 of 2 learners into {tmp_path / 's'}; not collected: bob"
    assert not (tmp_path / "s" / "bob").exists()
    assert _files(tmp_path / "s" / "alice") == {"exercises/leaves/leaves.ipynb"}


def test_an_empty_repository_gets_its_line_and_the_others_are_collected(tmp_path):
    _repository(tmp_path / "alice", {"exercises/leaves/leaves.ipynb": NOTEBOOK})
    subprocess.run(["git", "init", "--quiet", "--bare", str(tmp_path / "bob.git")], check=True)
    _repository(tmp_path / "carol", {"README.md": b"no notebook"})
    roster = _roster(
        tmp_path / "roster.csv",
        [
            ("alice", tmp_path / "alice"),
            ("bob", tmp_path / "bob.git"),
            ("carol", tmp_path / "carol"),
        ],
    )
    code, said = _collect(roster, tmp_path / "s")
    assert code == 0
    assert said[1] == "bob: the repository has no commit yet"
    carol = _git(tmp_path / "carol", "rev-parse", "HEAD")[:12]
    assert said[2] == (
        f"carol: the repository holds no notebook (.ipynb) outside autograder/course/ "
        f"at commit {carol}"
    )
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["alice", MANIFEST]


def test_collect_exits_1_when_no_learner_could_be_collected(tmp_path, capsys):
    roster = _roster(tmp_path / "roster.csv", [("bob", tmp_path / "absent")])
    assert main(["collect", str(roster), "--into", str(tmp_path / "s")]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"collected 0 of 1 learners into {tmp_path / 's'}; not collected: bob"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("name,repo\nalice,x\n", "line 1: the header must name the columns learner and repository"),
        ("learner,repository\nalice,x\nbob\n", "line 3: the repository column is empty"),
        ("learner,repository\n,x\n", "line 2: the learner column is empty"),
        ("learner,repository\nalice,x\n\nAlice,y\n", "line 4: Alice is also on line 2"),
        ("learner,repository\nleaves,x\n", "line 2: the learner name 'leaves' is also the name"),
        ("learner,repository\n", "the roster names no learner"),
    ],
)
def test_a_malformed_roster_exits_2_with_one_line_naming_file_and_line(
    tmp_path, capsys, text, reason
):
    roster = tmp_path / "roster.csv"
    roster.write_text(text, encoding="utf-8")
    assert main(["collect", str(roster), "--into", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"error: {roster}")
    assert reason in err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "name", ["../outside", "..", ".hidden", "a/b", "/tmp/x", "a\\b", "trailing."]
)
def test_a_hostile_learner_name_cannot_write_outside_into(tmp_path, name):
    _repository(tmp_path / "repo", {"exercises/leaves/leaves.ipynb": NOTEBOOK})
    roster = tmp_path / "roster.csv"
    roster.write_text(f'learner,repository\n"{name}",{tmp_path / "repo"}\n', encoding="utf-8")
    into = tmp_path / "deep" / "s"
    with pytest.raises(RosterError, match="cannot be a folder name"):
        collect_class(roster, into, caps=Caps(notebooks=64), say=lambda line: None)
    assert not (tmp_path / "deep").exists()
    assert not (tmp_path / "outside").exists()


def test_a_learner_name_with_inner_spaces_and_dots_is_a_folder_name(tmp_path):
    roster = _roster(tmp_path / "roster.csv", [("Ada M. Lovelace", "x"), ("b.c@d", "y")])
    assert [learner.name for learner in read_roster(roster)] == ["Ada M. Lovelace", "b.c@d"]


def test_collecting_again_takes_the_new_commit_and_drops_what_was_removed(tmp_path):
    repo = tmp_path / "alice"
    _repository(repo, {"exercises/leaves/leaves.ipynb": NOTEBOOK, "old.ipynb": NOTEBOOK})
    roster = _roster(tmp_path / "roster.csv", [("alice", repo)])
    _collect(roster, tmp_path / "s")
    (repo / "old.ipynb").unlink()
    second = _repository(repo, {"exercises/leaves/leaves.ipynb": NOTEBOOK.replace(b"[]", b"[ ]")})
    code, said = _collect(roster, tmp_path / "s")
    assert code == 0
    assert said[0] == f"alice: collected 1 notebook at commit {second[:12]}"
    assert _files(tmp_path / "s" / "alice") == {"exercises/leaves/leaves.ipynb"}
    assert b"[ ]" in (tmp_path / "s/alice/exercises/leaves/leaves.ipynb").read_bytes()
    manifest = json.loads((tmp_path / "s" / MANIFEST).read_text())["learners"]
    assert manifest["alice"]["commit"] == second


def test_a_repository_that_fails_later_keeps_the_earlier_collection(tmp_path):
    repo = tmp_path / "alice"
    first = _repository(repo, {"exercises/leaves/leaves.ipynb": NOTEBOOK})
    roster = _roster(tmp_path / "roster.csv", [("alice", repo)])
    _collect(roster, tmp_path / "s")
    repo.rename(tmp_path / "moved")
    code, said = _collect(roster, tmp_path / "s")
    assert code == 1
    assert said[0].endswith(f"(kept what was collected before, commit {first[:12]})")
    assert _files(tmp_path / "s" / "alice") == {"exercises/leaves/leaves.ipynb"}


def test_a_deadline_takes_the_last_commit_before_it(tmp_path):
    repo = tmp_path / "alice"
    on_time = _repository(
        repo, {"exercises/leaves/leaves.ipynb": NOTEBOOK}, date="2026-12-01T10:00:00+00:00"
    )
    _repository(repo, {"exercises/leaves/late.ipynb": NOTEBOOK}, date="2026-12-02T10:00:00+00:00")
    roster = _roster(tmp_path / "roster.csv", [("alice", repo)])
    deadline = datetime(2026, 12, 1, 17, tzinfo=UTC)
    code, said = _collect(roster, tmp_path / "s", deadline=deadline)
    assert said[1] == f"alice: collected 1 notebook at commit {on_time[:12]}"
    assert _files(tmp_path / "s" / "alice") == {"exercises/leaves/leaves.ipynb"}
    code, said = _collect(roster, tmp_path / "t", deadline=datetime(2026, 1, 1, tzinfo=UTC))
    assert code == 1
    assert said[1] == "alice: the repository has no commit before 2026-01-01T00:00:00+00:00"


def test_a_clone_that_hangs_is_stopped_after_the_timeout(tmp_path, monkeypatch):
    # ssh that never answers (and never asks): git waits on it, as on a server that hangs.
    hang = tmp_path / "ssh-that-hangs"
    hang.write_text("#!/bin/sh\nsleep 60\n")
    hang.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(hang))
    roster = _roster(tmp_path / "roster.csv", [("alice", "ssh://git.example.invalid/a.git")])
    started = time.monotonic()
    code, said = _collect(roster, tmp_path / "s", timeout=1)
    assert time.monotonic() - started < 15
    assert code == 1
    assert said[0] == "alice: git took more than 1 s and was stopped"


def test_a_tree_listing_that_hangs_is_stopped_after_the_timeout(tmp_path, monkeypatch):
    _repository(tmp_path / "alice", {"mine.ipynb": NOTEBOOK})
    roster = _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])
    # A git whose ls-tree never answers, as on a repository too large to list in time.
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    (bin_folder / "git").write_text(
        f'#!/bin/sh\ncase "$*" in *ls-tree*) sleep 60;; esac\nexec {shutil.which("git")} "$@"\n'
    )
    (bin_folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")
    started = time.monotonic()
    code, said = _collect(roster, tmp_path / "s", timeout=1)
    assert time.monotonic() - started < 15
    assert code == 1
    assert said[0] == "alice: git took more than 1 s and was stopped"


def test_a_token_in_a_repository_url_is_never_printed():
    assert redact("https://ada:ghp_secret@github.com/c/a.git") == "https://github.com/c/a.git"
    assert redact("git@github.com:c/a.git") == "git@github.com:c/a.git"


def test_a_learner_is_known_by_the_roster_line_it_came_from(tmp_path):
    roster = _roster(tmp_path / "roster.csv", [("alice", "git@github.com:c/a.git")])
    assert read_roster(roster) == [Learner("alice", "git@github.com:c/a.git", 2)]


def test_collected_notebooks_are_graded_as_the_learners(tmp_path, grade):
    solution = (SOLUTIONS / "leaves" / "leaves.ipynb").read_bytes()
    _repository(tmp_path / "alice", {"exercises/leaves/leaves.ipynb": solution})
    roster = _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])
    code, _ = _collect(roster, tmp_path / "submissions")
    assert code == 0
    graded = grade(tmp_path / "submissions", "--assignment", "leaves")
    assert graded.returncode == 0, graded.stderr
    assert [s["student"] for s in graded.report["students"]] == ["alice"]
    alice = graded.student("alice")
    assert alice["score"] == alice["max_score"] > 0


def _planted(tmp_path: Path) -> Path:
    """Where a hostile tree entry names a file outside the learner's folder."""
    return tmp_path / "course" / "solutions" / "leaves" / "leaves.ipynb"


@pytest.mark.parametrize("as_url", [False, True], ids=["path", "file-url"])
def test_a_tree_entry_naming_an_absolute_path_is_refused_by_gits_object_checks(tmp_path, as_url):
    planted = _planted(tmp_path)
    repo = _crafted(
        tmp_path / "mallory", {str(planted).encode(): b"planted", b"leaves.ipynb": NOTEBOOK}
    )
    roster = _roster(tmp_path / "roster.csv", [("mallory", repo.as_uri() if as_url else repo)])
    code, said = _collect(roster, tmp_path / "s")
    assert code == 1
    assert said[0].startswith("mallory: cannot clone ")
    assert "fullPathname: contains full pathnames" in said[0]
    assert not planted.exists()
    assert not (tmp_path / "s" / "mallory").exists()


def _clone_unchecked(repository: str, clone: Path, *ignored: object) -> None:
    """A clone without git's object checks, as a server that does not run them would give."""
    subprocess.run(["git", "clone", "--quiet", "--bare", repository, str(clone)], check=True)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("{planted}", "it is an absolute path"),
        ("../outside.ipynb", "its path has an empty, '.' or '..' part"),
        ("exercises//leaves.ipynb", "its path has an empty, '.' or '..' part"),
        ("./leaves.ipynb", "its path has an empty, '.' or '..' part"),
    ],
    ids=["absolute", "dot-dot", "empty-part", "dot"],
)
def test_a_path_git_did_not_check_is_refused_before_anything_is_written(
    tmp_path, monkeypatch, name, reason
):
    monkeypatch.setattr(collect, "_clone", _clone_unchecked)
    name = name.format(planted=_planted(tmp_path))
    repo = _crafted(tmp_path / "mallory", {name.encode(): b"planted", b"mine.ipynb": NOTEBOOK})
    code, said = _collect(_roster(tmp_path / "roster.csv", [("mallory", repo)]), tmp_path / "s")
    assert code == 0
    assert said[0] == f"mallory: skipped {name}: {reason}"
    assert _files(tmp_path / "s") == {MANIFEST, "mallory/mine.ipynb"}
    assert not _planted(tmp_path).exists()


def test_an_absolute_path_as_git_lists_it_is_refused_by_the_path_check(tmp_path):
    planted = _planted(tmp_path)
    repo = _crafted(tmp_path / "mallory", {str(planted).encode(): b"planted"})
    listed = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-z", "--name-only", "HEAD"],
        capture_output=True,
        check=True,
    ).stdout.rstrip(b"\0")
    assert listed == str(planted).encode()
    with pytest.raises(UnsafePath, match="absolute path"):
        checked_path(listed)


@pytest.mark.parametrize(
    ("name", "shown", "reason"),
    [
        (b"caf\xe9.ipynb", "caf\ufffd.ipynb", "its name is not UTF-8"),
        (b"x\x1b]0;pwned\x07\x1b[2J.ipynb", "x.ipynb", "its name holds a control"),
        ("\u202egnp.ipynb".encode(), "gnp.ipynb", "its name holds a control"),
        (b"a\\b.ipynb", "a\\b.ipynb", "its name holds a backslash"),
    ],
    ids=["not-utf-8", "escape", "bidi", "backslash"],
)
def test_a_name_gits_checks_let_through_is_skipped_with_a_cleaned_line(
    tmp_path, name, shown, reason
):
    repo = _crafted(tmp_path / "mallory", {name: NOTEBOOK, b"mine.ipynb": NOTEBOOK})
    code, said = _collect(_roster(tmp_path / "roster.csv", [("mallory", repo)]), tmp_path / "s")
    assert code == 0
    assert said[0].startswith(f"mallory: skipped {shown}: {reason}")
    assert "\x1b" not in said[0]
    assert _files(tmp_path / "s") == {MANIFEST, "mallory/mine.ipynb"}


def test_a_notebook_over_the_size_cap_is_skipped_with_a_line(tmp_path):
    big = b"{" + b" " * 99 + b"}"
    _repository(tmp_path / "alice", {"big.ipynb": big, "mine.ipynb": NOTEBOOK[:100]})
    roster = _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])
    code, said = _collect(roster, tmp_path / "s", caps=Caps(notebooks=64, notebook_bytes=100))
    assert code == 0
    assert said[0] == "alice: skipped big.ipynb: 101 bytes, over the limit of 100 a notebook"
    assert _files(tmp_path / "s" / "alice") == {"mine.ipynb"}


def test_notebooks_over_the_count_cap_are_skipped_with_a_line_each(tmp_path):
    names = ["a.ipynb", "b.ipynb", "c.ipynb", "d.ipynb"]
    _repository(tmp_path / "alice", dict.fromkeys(names, NOTEBOOK))
    roster = _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])
    code, said = _collect(roster, tmp_path / "s", caps=Caps(notebooks=2))
    assert code == 0
    assert said[:2] == [
        f"alice: skipped {name}: over the limit of 2 notebooks a learner" for name in names[2:]
    ]
    assert _files(tmp_path / "s" / "alice") == set(names[:2])


def test_notebooks_over_the_learners_total_bytes_are_skipped_with_a_line(tmp_path):
    # One blob at many paths: each path alone is under the size cap.
    names = [b"a.ipynb", b"b.ipynb", b"c.ipynb"]
    _crafted(tmp_path / "alice", dict.fromkeys(names, NOTEBOOK))
    roster = _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])
    size = len(NOTEBOOK)
    caps = Caps(notebooks=64, learner_bytes=2 * size + 1)
    code, said = _collect(roster, tmp_path / "s", caps=caps)
    assert code == 0
    assert said[0] == (
        f"alice: skipped c.ipynb: {size} bytes, over the limit of {2 * size + 1} bytes of "
        f"notebooks a learner ({2 * size} already collected)"
    )
    assert _files(tmp_path / "s" / "alice") == {"a.ipynb", "b.ipynb"}


def _huge_tree(tmp_path: Path, entries: int, name: str = "n") -> Path:
    """A roster of one learner whose tree holds ``entries`` notebooks, ``<name>000.ipynb`` on."""
    names = [f"{name}{index:03}.ipynb".encode() for index in range(entries)]
    _crafted(tmp_path / "alice", dict.fromkeys(names, NOTEBOOK))
    return _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])


def test_a_huge_tree_gets_a_line_per_entry_read_and_one_saying_where_reading_stopped(
    tmp_path,
):
    roster = _huge_tree(tmp_path, 40)
    code, said = _collect(roster, tmp_path / "s", caps=Caps(notebooks=2))  # 8 entries read
    assert code == 0
    assert said[:6] == [
        f"alice: skipped n{index:03}.ipynb: over the limit of 2 notebooks a learner"
        for index in range(2, 8)
    ]
    assert said[6] == (
        "alice: stopped reading the tree at n008.ipynb: over the limit of 8 notebook entries "
        "read a learner; it and the notebooks after it are not collected"
    )
    assert said[7].startswith("alice: collected 2 notebooks at commit ")
    assert len(said) == 9  # and the class's summary


def test_git_is_stopped_before_it_lists_all_of_a_huge_tree(tmp_path, monkeypatch):
    # ~500 KB of listing: more than git can write into a pipe nobody reads.
    roster = _huge_tree(tmp_path, 2000, name="n" * 200)
    listings: list[subprocess.Popen] = []

    class Recorded(subprocess.Popen):
        def __init__(self, command, *args, **kwargs):
            super().__init__(command, *args, **kwargs)
            if "ls-tree" in command:
                listings.append(self)

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    code, _ = _collect(roster, tmp_path / "s", caps=Caps(notebooks=2))
    assert code == 0
    assert [listing.returncode for listing in listings] == [-signal.SIGKILL]


@pytest.mark.parametrize("as_url", [False, True], ids=["path", "file-url"])
def test_a_local_repository_is_refused_without_allow_local(tmp_path, capsys, as_url):
    _repository(tmp_path / "alice", {"exercises/leaves/leaves.ipynb": NOTEBOOK})
    repository = (tmp_path / "alice").as_uri() if as_url else str(tmp_path / "alice")
    roster = _roster(tmp_path / "roster.csv", [("alice", repository)])
    assert main(["collect", str(roster), "--into", str(tmp_path / "s")]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        f"alice: cannot clone {repository}: it is a local path or a file:// URL, collected "
        "only with --allow-local"
    )
    assert not (tmp_path / "s" / "alice").exists()


def test_allow_local_collects_a_local_repository(tmp_path):
    _repository(tmp_path / "alice", {"exercises/leaves/leaves.ipynb": NOTEBOOK})
    roster = _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])
    assert main(["collect", str(roster), "--into", str(tmp_path / "s"), "--allow-local"]) == 0
    assert _files(tmp_path / "s" / "alice") == {"exercises/leaves/leaves.ipynb"}


def test_the_rosters_escape_sequences_do_not_reach_the_output(tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    hostile = "\x1b]0;pwned\x07\x1b[2J\u202e/nowhere"
    roster.write_text(f"learner,repository\nalice,{hostile}\n", encoding="utf-8")
    assert main(["collect", str(roster), "--into", str(tmp_path / "s")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("alice: cannot clone /nowhere: ")
    assert not {"\x1b", "\x07", "\u202e"} & set(out)


def test_a_deadline_is_said_to_be_only_the_learners_word(tmp_path):
    _repository(tmp_path / "alice", {"mine.ipynb": NOTEBOOK}, date="2026-12-01T10:00:00+00:00")
    roster = _roster(tmp_path / "roster.csv", [("alice", tmp_path / "alice")])
    _, said = _collect(roster, tmp_path / "s", deadline=datetime(2026, 12, 2, tzinfo=UTC))
    assert said[0].startswith("note: a commit's date is whatever the learner's git wrote")
    assert "collect at the deadline" in said[0]


def test_collects_help_says_what_a_deadline_cannot_prove(capsys):
    with pytest.raises(SystemExit):
        main(["collect", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "not a record of when it was pushed" in help_text
    assert "push times your git host records" in help_text


def _blob_and_folder(tmp_path: Path) -> tuple[Path, str, Path]:
    """A repository holding mine.ipynb, its blob, and a learner's folder to write it into."""
    _repository(tmp_path / "alice", {"mine.ipynb": NOTEBOOK})
    blob = _git(tmp_path / "alice", "rev-parse", "HEAD:mine.ipynb")
    folder = tmp_path / "s" / "alice"
    folder.mkdir(parents=True)
    return tmp_path / "alice" / ".git", blob, folder


def test_a_notebook_is_never_written_through_a_link_out_of_the_folder(tmp_path):
    clone, blob, folder = _blob_and_folder(tmp_path)
    outside = tmp_path / "outside.ipynb"
    outside.write_bytes(b"the instructor's")
    (folder / "mine.ipynb").symlink_to(outside)
    with pytest.raises(UnsafePath, match="resolves outside the learner's folder"):
        write_blob(clone, blob, folder, PurePosixPath("mine.ipynb"), 10)
    assert outside.read_bytes() == b"the instructor's"


def test_a_notebook_is_never_written_over_a_file_already_there(tmp_path):
    clone, blob, folder = _blob_and_folder(tmp_path)
    (folder / "mine.ipynb").write_bytes(b"written first")
    with pytest.raises(FileExistsError):
        write_blob(clone, blob, folder, PurePosixPath("mine.ipynb"), 10)
    assert (folder / "mine.ipynb").read_bytes() == b"written first"


@pytest.mark.slow
def test_a_repository_aiming_at_the_courses_solutions_changes_nothing_and_earns_nothing(
    tmp_path, grade
):
    course_notebook = SOLUTIONS / "leaves" / "leaves.ipynb"
    original = course_notebook.read_bytes()
    proof = tmp_path / "setup-ran-in-the-grader"
    leaves = load_course(SOLUTIONS).notebook("leaves")
    planted = {test.grade_id: "pass" for function in leaves.functions for test in function.tests}
    planted["setup"] = f"open({str(proof)!r}, 'w').close()\n{leaves.setup_source}"
    planted_notebook = write_variant(course_notebook, tmp_path / "planted.ipynb", planted)
    untouched = (EXERCISES / "leaves" / "leaves.ipynb").read_bytes()
    attacker = tmp_path / "a_attacker"
    _repository(attacker, {"leaves.ipynb": untouched})
    _repository(tmp_path / VICTIM, {"leaves.ipynb": original})
    roster = _roster(
        tmp_path / "roster.csv", [("a_attacker", attacker), (VICTIM, tmp_path / VICTIM)]
    )
    submissions = tmp_path / "submissions"
    try:
        first = run_cli("collect", roster, "--into", submissions, "--allow-local")
        assert first.returncode == 0, first.stderr
        # then the attacker's next commit: the untouched exercise, and the planted solutions
        # named by the course notebook's absolute path
        _crafted(
            attacker,
            {
                b"leaves.ipynb": untouched,
                str(course_notebook).encode(): planted_notebook.read_bytes(),
            },
        )
        again = run_cli("collect", roster, "--into", submissions, "--allow-local")
        assert course_notebook.read_bytes() == original
        graded = grade(submissions, "--assignment", "leaves", "--no-cache")
    finally:
        if course_notebook.read_bytes() != original:
            course_notebook.write_bytes(original)
    assert "a_attacker: cannot clone" in again.stdout
    assert "(kept what was collected before" in again.stdout
    assert graded.returncode == 0, graded.stderr
    assert not proof.exists()
    assert graded.student("a_attacker")["score"] == 0
    victim = graded.student(VICTIM)
    assert victim["score"] == victim["max_score"] > 0
