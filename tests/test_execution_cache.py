"""A change to booktools' code empties the book's execution cache (booktools.execution_cache)."""

from pathlib import Path

from booktools.execution_cache import STAMP, booktools_digest, renew_if_booktools_changed


def cache_with_a_record(folder: Path, stamp: str | None) -> Path:
    cache = folder / ".jupyter_cache"
    cache.mkdir()
    (cache / "record").write_text("outputs", encoding="utf-8")
    if stamp is not None:
        (cache / STAMP).write_text(stamp + "\n", encoding="utf-8")
    return cache


def test_a_cache_stamped_with_other_booktools_code_is_emptied(tmp_path):
    cache = cache_with_a_record(tmp_path, "old")
    assert renew_if_booktools_changed(cache, "new") is True
    assert sorted(p.name for p in cache.iterdir()) == [STAMP]
    assert (cache / STAMP).read_text(encoding="utf-8").strip() == "new"


def test_a_cache_without_a_stamp_is_emptied(tmp_path):
    cache = cache_with_a_record(tmp_path, None)
    assert renew_if_booktools_changed(cache, "new") is True
    assert not (cache / "record").exists()


def test_a_cache_stamped_with_this_code_is_kept(tmp_path):
    cache = cache_with_a_record(tmp_path, "same")
    assert renew_if_booktools_changed(cache, "same") is False
    assert (cache / "record").exists()


def test_a_missing_cache_is_made_and_stamped_and_nothing_is_read_again(tmp_path):
    cache = tmp_path / "_build" / ".jupyter_cache"
    assert renew_if_booktools_changed(cache, "now") is False
    assert (cache / STAMP).read_text(encoding="utf-8").strip() == "now"


def test_the_digest_changes_with_any_booktools_file(tmp_path):
    (tmp_path / "quiz.py").write_text("A = 1\n", encoding="utf-8")
    before = booktools_digest(tmp_path)
    (tmp_path / "quiz.py").write_text("A = 2\n", encoding="utf-8")
    assert booktools_digest(tmp_path) != before
