"""``check``'s own compile cache: what one notebook's code wrote is loaded only by a check of
the same files with the same content."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograder.store.folder import learners_own


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _checked(notebook: Path) -> Path:
    own = learners_own([notebook])
    assert own is not None and own.writable and own.own
    return Path(own.folder)


def test_a_second_check_of_the_same_notebook_loads_what_the_first_compiled(tmp_path):
    notebook = tmp_path / "leaves.ipynb"
    notebook.write_text("my own work")
    (_checked(notebook) / "compiled").write_text("an executable")
    assert (_checked(notebook) / "compiled").read_text() == "an executable"


def test_a_check_of_someone_elses_notebook_at_my_path_plants_nothing_my_next_check_loads(
    tmp_path,
):
    notebook = tmp_path / "leaves.ipynb"
    notebook.write_text("my own work")
    _checked(notebook)
    notebook.write_text("someone else's notebook, copied over mine")
    (_checked(notebook) / "planted").write_text("their code wrote this")
    notebook.write_text("my own work")
    assert list(_checked(notebook).iterdir()) == []


def test_an_edited_notebook_is_checked_with_the_same_folder_emptied(tmp_path):
    notebook = tmp_path / "leaves.ipynb"
    notebook.write_text("my own work")
    before = _checked(notebook)
    inode = before.stat().st_ino
    (before / "compiled").write_text("an executable of the first version")
    notebook.write_text("my own work, edited")
    after = _checked(notebook)
    # a zygote kept between checks has this very folder mounted in its sandbox
    assert (after, after.stat().st_ino) == (before, inode)
    assert list(after.iterdir()) == []


def test_a_notebook_whose_name_is_not_utf8_has_its_cache_too(tmp_path):
    notebook = tmp_path / os.fsdecode(b"caf\xe9.ipynb")
    notebook.write_text("my own work")
    assert _checked(notebook).is_dir()
