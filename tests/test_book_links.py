"""Links into the published book: section anchors, and messages that link the section to reread."""

from __future__ import annotations

import pytest
from docutils.nodes import make_id

from autograder.cli import main
from autograder.load.book import (
    BOOK_SOURCES,
    BookLinks,
    book_links,
    book_url,
    chapter_headings,
    released_book_links,
    section_anchor,
)
from autograder.report.checking import to_markdown
from autograder.report.feedback import to_feedback
from autograder.report.linked import with_book_links
from autograder.report.model import ExerciseResult, Report, StudentResult, TestResult
from autograder.report.text import markdown_cell

URL = "https://course.example.org/pytrees"
FLATTENING = f"{URL}/book/leaves.html#flattening-order"


def _headings() -> list[str]:
    found = []
    for page in sorted(BOOK_SOURCES.glob("*.md")):
        title, sections = chapter_headings(page.read_text(encoding="utf-8"))
        found += [title, *sections]
    return found


def test_a_sections_anchor_is_the_one_sphinx_gives_its_heading():
    headings = _headings()
    assert len(headings) > 100
    for heading in headings:
        assert section_anchor(heading) == make_id(heading), heading


def test_an_anchor_drops_accents_and_punctuation_as_docutils_does():
    for heading in ("Élan: 2 trees, one `map`!", "3 ways", "aux_data is part of jit's cache key"):
        assert section_anchor(heading) == make_id(heading)


def test_a_heading_inside_a_code_block_is_not_a_section():
    source = (
        "# Title\n\n## First\n\n```{code-cell} ipython3\n# a comment\n## another\n```\n"
        "## `jax.vmap` too\n"
    )
    assert chapter_headings(source) == ("Title", ["First", "jax.vmap too"])


def test_every_section_of_a_chapter_has_its_address_in_the_published_book():
    links = book_links(URL + "/")
    assert links.url == URL
    assert links.sections["Leaves → Flattening order"] == FLATTENING
    assert links.sections["aux_data → aux_data is part of jit's cache key"] == (
        f"{URL}/book/aux_data.html#aux-data-is-part-of-jit-s-cache-key"
    )


def test_a_heading_whose_anchor_is_taken_gets_no_address(tmp_path):
    (tmp_path / "page.md").write_text("# Page\n\n## Notes\n\n## Notes!\n", encoding="utf-8")
    assert book_links(URL, tmp_path).sections == {"Page → Notes": f"{URL}/book/page.html#notes"}


@pytest.mark.parametrize("text", ["javascript:alert(1)", "https://a b", 'https://a"b', "ftp://x"])
def test_a_book_url_must_be_a_plain_web_address(text):
    with pytest.raises(ValueError, match="is not an http:// or https:// address"):
        book_url(text)


def test_a_message_gets_the_address_of_the_section_it_sends_the_learner_to():
    links = book_links(URL)
    message = "Dicts flatten by sorted key. Reread Leaves → Flattening order."
    assert links.annotate(message) == (
        f"Dicts flatten by sorted key. Reread Leaves → Flattening order ({FLATTENING})."
    )
    assert links.annotate("Reread Nowhere → At all.") == "Reread Nowhere → At all."


def test_the_longest_section_name_that_fits_is_linked():
    links = BookLinks(URL, {"A → B": f"{URL}/1", "A → B and C": f"{URL}/2"})
    assert links.annotate("Reread A → B and C.") == f"Reread A → B and C ({URL}/2)."


def test_markdown_links_a_section_whose_name_it_escaped():
    links = book_links(URL)
    written = markdown_cell("Reread aux_data → Children and aux_data.")
    assert links.markdown(written, markdown_cell) == (
        r"Reread [aux\_data → Children and aux\_data]"
        f"({URL}/book/aux_data.html#children-and-aux-data)."
    )


def _student(message: str) -> StudentResult:
    test = TestResult("test_leaves_in_order", "failed", 0.0, 2.0, message, hidden=False)
    return StudentResult("ada", [ExerciseResult("leaves.ipynb", "leaves_in_order", 2.0, [test])])


def test_the_terminals_copy_of_a_result_gives_each_sections_address():
    student = _student("Wrong order. Reread Leaves → Flattening order.")
    linked = with_book_links(student, book_links(URL))
    assert linked.exercises[0].tests[0].message == (
        f"Wrong order. Reread Leaves → Flattening order ({FLATTENING})."
    )
    assert student.exercises[0].tests[0].message.endswith("order.")
    assert with_book_links(student, None) is student


def test_feedback_and_the_check_summary_link_the_section_to_reread():
    student = _student("Wrong order. Reread Leaves → Flattening order.")
    link = f"Reread [Leaves → Flattening order]({FLATTENING})."
    assert link in to_feedback(student, book_links(URL))
    assert link in to_markdown(student, links=book_links(URL))
    assert "](" not in to_feedback(student)


def test_a_release_without_a_book_url_has_no_links_to_read(tmp_path):
    assert released_book_links(tmp_path / "book.json") is None
    (tmp_path / "book.json").write_text(book_links(URL).to_json(), encoding="utf-8")
    assert released_book_links(tmp_path / "book.json") == book_links(URL)


def test_merge_with_a_book_url_writes_feedback_that_links_sections(tmp_path, capsys):
    report = Report([_student("Wrong order. Reread Leaves → Flattening order.")], "bubblewrap")
    (tmp_path / "r.json").write_text(report.to_json(), encoding="utf-8")
    args = ["merge", str(tmp_path / "r.json"), "--feedback", str(tmp_path / "fb")]
    assert main([*args, "--book-url", URL]) == 0
    text = (tmp_path / "fb" / "ada.md").read_text(encoding="utf-8")
    assert f"Reread [Leaves → Flattening order]({FLATTENING})." in text


def is_leaf_type(value):  # a learner's wrong version: None is a leaf to it
    return value is None or not isinstance(value, (list, tuple, dict))


def test_a_notebooks_check_links_the_section_to_reread(tmp_path, monkeypatch, capsys):
    from autograder.learner import feedback
    from autograder.load import book

    monkeypatch.setenv("PYTREES_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.setattr(book, "BOOK_LINKS_FILE", tmp_path / "book.json")
    (tmp_path / "book.json").write_text(book_links(URL).to_json(), encoding="utf-8")
    feedback.check("is_leaf_type")
    address = f"{URL}/book/leaves.html#none-is-a-node"
    assert f"Reread Leaves → None is a node ({address})." in capsys.readouterr().out
