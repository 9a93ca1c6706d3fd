"""The progress page lists what there is to do, and the book's server reports what the
learner's ``check`` runs recorded."""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.learner import progress
from autograder.load.course import toc_order
from booktools.serve import make_server


@pytest.fixture
def serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The book's server on a free port, over a small site, with a private progress file."""
    monkeypatch.setenv("PYTREES_PROGRESS", str(tmp_path / "progress.json"))
    site = tmp_path / "site"
    site.mkdir()
    (site / "progress.json").write_text('{"functions": null}')
    (site / "page.html").write_text("<h1>A page</h1>")
    server = make_server(site, port=0, log_requests=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _get(url: str) -> tuple[str, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.headers["Content-Type"], response.read().decode("utf-8")


def test_the_server_answers_progress_json_with_what_check_recorded(serving):
    progress.record({"count_leaves": True, "leaves_in_order": False}, "leaves.ipynb")
    content_type, body = _get(serving + "/progress.json")
    assert content_type == "application/json"
    assert json.loads(body) == {
        "functions": {"count_leaves": "passed", "leaves_in_order": "failing"}
    }


def test_the_server_reads_the_record_afresh_on_every_request(serving):
    progress.record({"count_leaves": False}, "leaves.ipynb")
    progress.record({"count_leaves": True}, "leaves.ipynb")
    assert json.loads(_get(serving + "/progress.json")[1])["functions"] == {
        "count_leaves": "passed"
    }


def test_the_server_serves_every_other_path_from_the_site(serving):
    assert _get(serving + "/page.html")[1] == "<h1>A page</h1>"


def _rows(built: Path) -> dict[str, dict[str, str]]:
    html = (built / "book" / "progress.html").read_text(encoding="utf-8")
    rows = re.findall(
        r'<tr data-page="([^"]*)" data-questions="([^"]*)" data-functions="([^"]*)">', html
    )
    return {page: {"questions": q, "functions": f} for page, q, f in rows}


@pytest.mark.slow
def test_the_progress_page_has_a_row_for_every_chapter_with_an_exercise_and_no_other(
    built, released_course
):
    exercises = {notebook.id for notebook in released_course.notebooks}
    expected = [f"book/{chapter}" for chapter in toc_order() if chapter in exercises]
    assert list(_rows(built)) == expected
    assert "book/reference" not in _rows(built)


@pytest.mark.slow
def test_each_row_lists_the_questions_its_chapter_asks(built):
    for page, row in _rows(built).items():
        html = (built / f"{page}.html").read_text(encoding="utf-8")
        asked = re.findall(r'class="pt-quiz" data-key="([^"]+)"', html)
        assert row["questions"].split() == asked, page


@pytest.mark.slow
def test_each_row_lists_the_functions_its_exercise_grades(built, released_course):
    rows = _rows(built)
    for notebook in released_course.notebooks:
        names = [function.name for function in notebook.functions]
        assert rows[f"book/{notebook.id}"]["functions"].split() == names


@pytest.mark.slow
def test_the_built_book_holds_no_exercise_record_of_its_own(built):
    assert json.loads((built / "progress.json").read_text()) == {"functions": None}
