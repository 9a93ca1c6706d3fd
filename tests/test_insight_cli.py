"""``python -m autograder insight REPORT… --html FILE``, and ``--html`` on grade and merge."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

from autograder.load.course import REPO_ROOT
from autograder.report.feedback import feedback_filename
from autograder.report.model import (
    ExerciseResult,
    Report,
    StudentResult,
    TestPointer,
    TestResult,
)
from conftest import EXERCISES, SOLUTIONS, grade_with_cli, run_cli

POINTER = TestPointer(
    "aux_data#children-and-aux-data", "aux_data", "Children and aux_data", "children-and-aux-data"
)


def _student(name: str, passed: bool) -> StudentResult:
    outcome = "passed" if passed else "failed"
    test = TestResult(
        "t1",
        outcome,
        3.0 if passed else 0.0,
        3.0,
        "" if passed else "Reread aux_data → Children and aux_data.",
        kind="" if passed else "failed-check",
        pointer=None if passed else POINTER,
    )
    return StudentResult(name, [ExerciseResult("aux_data.ipynb", "aux_data_demo", 3.0, [test])])


def _report(*students: StudentResult, seed: int = 0) -> Report:
    return Report(list(students), "process", seed=seed)


def _write(path: Path, report: Report) -> Path:
    path.write_text(report.to_json(), encoding="utf-8")
    return path


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.loads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.hrefs.append(values["href"])
        if values.get("src") or (tag == "link" and values.get("href")):
            self.loads.append(f"{tag}: {values.get('src') or values.get('href')}")


def _links(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _main(page: Path) -> str:
    """The page below its header, which names the report files it was made from."""
    text = page.read_text(encoding="utf-8")
    return text[text.index("<main>") :]


def test_insight_writes_the_page_of_one_report_and_says_where(tmp_path):
    report = _write(tmp_path / "r.json", _report(_student("ada", True), _student("bob", False)))
    done = run_cli("insight", report, "--html", tmp_path / "class.html")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote the page of 2 learners to {tmp_path / 'class.html'}"
    assert "bob" in (tmp_path / "class.html").read_text(encoding="utf-8")


def test_the_page_loads_nothing_from_anywhere_and_forbids_it(tmp_path):
    report = _write(tmp_path / "r.json", _report(_student("ada", True), _student("bob", False)))
    run_cli("insight", report, "--html", tmp_path / "class.html")
    assert _links(tmp_path / "class.html").loads == []
    assert "default-src 'none'" in (tmp_path / "class.html").read_text(encoding="utf-8")


def test_shards_give_the_page_of_their_merged_report(tmp_path):
    ada, bob = _student("ada", True), _student("bob", False)
    first = _write(tmp_path / "shard-1.json", _report(ada))
    second = _write(tmp_path / "shard-2.json", _report(bob))
    merged = _write(tmp_path / "all.json", _report(ada, bob))
    assert run_cli("insight", first, second, "--html", tmp_path / "shards.html").returncode == 0
    assert run_cli("insight", merged, "--html", tmp_path / "merged.html").returncode == 0
    assert _main(tmp_path / "shards.html") == _main(tmp_path / "merged.html")


def test_the_same_report_gives_the_same_page(tmp_path):
    report = _write(tmp_path / "r.json", _report(_student("ada", True), _student("bob", False)))
    run_cli("insight", report, "--html", tmp_path / "one.html")
    run_cli("insight", report, "--html", tmp_path / "two.html")
    assert (tmp_path / "one.html").read_bytes() == (tmp_path / "two.html").read_bytes()


def test_a_missing_report_is_named_in_one_line_and_exits_2(tmp_path):
    done = run_cli("insight", tmp_path / "nothere.json", "--html", tmp_path / "class.html")
    assert done.returncode == 2
    assert done.stderr == f"error: {tmp_path / 'nothere.json'}: no such file\n"


def test_a_file_that_is_not_a_report_is_named_and_exits_2(tmp_path):
    (tmp_path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")
    done = run_cli("insight", tmp_path / "notes.json", "--html", tmp_path / "class.html")
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {tmp_path / 'notes.json'} is not a report")
    assert not (tmp_path / "class.html").exists()


def test_shards_graded_with_different_seeds_are_not_joined(tmp_path):
    first = _write(tmp_path / "a.json", _report(_student("ada", True), seed=0))
    second = _write(tmp_path / "b.json", _report(_student("bob", True), seed=1))
    done = run_cli("insight", first, second, "--html", tmp_path / "class.html")
    assert done.returncode == 2 and "seed" in done.stderr


def test_sections_link_into_the_built_book_by_default(tmp_path):
    report = _write(tmp_path / "r.json", _report(_student("bob", False)))
    run_cli("insight", report, "--html", tmp_path / "out" / "class.html")
    section = [
        h for h in _links(tmp_path / "out" / "class.html").hrefs if "#" in h and ".html" in h
    ]
    page, anchor = section[0].split("#")
    assert (tmp_path / "out" / page).resolve() == REPO_ROOT / "_build/html/book/aux_data.html"
    assert anchor == "children-and-aux-data"


def test_sections_link_into_the_published_book_at_book_url(tmp_path):
    report = _write(tmp_path / "r.json", _report(_student("bob", False)))
    url = "https://course.example.org/pytrees"
    run_cli("insight", report, "--html", tmp_path / "class.html", "--book-url", url)
    assert (
        f"{url}/book/aux_data.html#children-and-aux-data" in _links(tmp_path / "class.html").hrefs
    )


def test_each_learner_links_their_feedback_file_where_the_folder_has_it(tmp_path):
    name = "ada lovelace/../x"
    report = _write(tmp_path / "r.json", _report(_student(name, True), _student("bob", False)))
    feedback = tmp_path / "feedback"
    feedback.mkdir()
    (feedback / feedback_filename(name)).write_text("# Feedback", encoding="utf-8")
    run_cli("insight", report, "--html", tmp_path / "pages/class.html", "--feedback", feedback)
    (link,) = [h for h in _links(tmp_path / "pages/class.html").hrefs if h.endswith(".md")]
    assert (tmp_path / "pages" / link).resolve() == (feedback / feedback_filename(name)).resolve()


def test_anonymise_shows_no_name_on_the_page(tmp_path):
    report = _write(tmp_path / "r.json", _report(_student("ada", True), _student("bob", False)))
    run_cli("insight", report, "--html", tmp_path / "class.html", "--anonymise")
    text = (tmp_path / "class.html").read_text(encoding="utf-8")
    assert not re.search(r"\b(ada|bob)\b", text)


def test_grade_writes_the_page_linking_the_feedback_files_it_wrote(tmp_path):
    learner = tmp_path / "class" / "ada" / "aux_data.ipynb"
    learner.parent.mkdir(parents=True)
    learner.write_bytes((SOLUTIONS / "aux_data" / "aux_data.ipynb").read_bytes())
    other = tmp_path / "class" / "bob" / "aux_data.ipynb"
    other.parent.mkdir(parents=True)
    other.write_bytes((EXERCISES / "aux_data" / "aux_data.ipynb").read_bytes())
    graded = grade_with_cli(
        tmp_path / "class", tmp_path / "r.json", "--assignment", "aux_data",
        "--html", tmp_path / "class.html", "--feedback", tmp_path / "feedback",
    )  # fmt: skip
    assert graded.returncode == 0, graded.stderr
    links = [h for h in _links(tmp_path / "class.html").hrefs if h.endswith(".md")]
    assert sorted(os.path.normpath(tmp_path / link) for link in links) == sorted(
        str(path) for path in (tmp_path / "feedback").iterdir()
    )


class _NumberCells(HTMLParser):
    """The number cells (``td.num``) of the page's sortable tables that have no
    ``data-sort``: sort.js would order them as text, 12 before 9."""

    def __init__(self) -> None:
        super().__init__()
        self.sortable = False
        self.unsortable: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "table":
            self.sortable = "sortable" in (values.get("class") or "").split()
        elif tag == "td" and self.sortable and "data-sort" not in values:
            numeric = "num" in (values.get("class") or "").split()
            self.unsortable += [str(values)] if numeric else []


def test_every_number_of_a_sortable_table_sorts_as_a_number(tmp_path):
    ada, bob = _student("ada", True), _student("bob", False)
    ada.exercises[0].hints_opened = 1
    report = _write(tmp_path / "r.json", _report(ada, bob))
    run_cli("insight", report, "--html", tmp_path / "class.html")
    cells = _NumberCells()
    cells.feed((tmp_path / "class.html").read_text(encoding="utf-8"))
    assert cells.unsortable == []


def test_an_anonymised_page_links_no_feedback_file_whose_name_is_a_learners(tmp_path):
    report = _write(tmp_path / "r.json", _report(_student("ada", True)))
    (tmp_path / "feedback").mkdir()
    (tmp_path / "feedback" / feedback_filename("ada")).write_text("# Feedback", encoding="utf-8")
    run_cli(
        "insight", report, "--html", tmp_path / "class.html",
        "--feedback", tmp_path / "feedback", "--anonymise",
    )  # fmt: skip
    assert [h for h in _links(tmp_path / "class.html").hrefs if h.endswith(".md")] == []


def test_a_report_without_learners_is_refused_in_one_line(tmp_path):
    report = _write(tmp_path / "r.json", _report())
    done = run_cli("insight", report, "--html", tmp_path / "class.html")
    assert done.returncode == 2
    assert done.stderr == f"error: {report}: no learner to show\n"
