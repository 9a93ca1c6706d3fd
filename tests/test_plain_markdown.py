"""A published chapter notebook's markdown holds no MyST: each role, directive, target and
link to a chapter's source becomes what Jupyter, Colab and GitHub render."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from booktools.chapter_notebooks import published_exercise
from booktools.plain_markdown import Book, MystError, plain_markdown

URL = "https://someone.github.io/course"
NO_ADDRESS = Book(
    url=None,
    titles={"book/here": "This Chapter", "book/other": "Other Chapter"},
    labels={
        "sec-there": ("book/other", "sec-there", "A Section There"),
        "sec-here": ("book/here", "sec-here", "A Section Here"),
    },
    exercise_path=published_exercise,
)
WITH_ADDRESS = dataclasses.replace(NO_ADDRESS, url=URL)


def _plain(text: str, book: Book = NO_ADDRESS, source: Path = Path("book/here.md")) -> str:
    return plain_markdown(text, book, "book/here", source)


def test_a_ref_links_the_sections_page_in_the_book_when_its_address_is_known():
    text = "See {ref}`sec-there` and {ref}`that part <sec-there>`.\n"
    assert _plain(text, WITH_ADDRESS) == (
        f"See [A Section There]({URL}/book/other.html#sec-there) and "
        f"[that part]({URL}/book/other.html#sec-there).\n"
    )


def test_without_the_books_address_a_ref_names_the_section_and_its_chapter():
    text = "See {ref}`sec-there`, and {ref}`here <sec-here>`.\n"
    assert _plain(text) == (
        "See *A Section There* (in the chapter *Other Chapter*), and *here* (in this chapter).\n"
    )


def test_a_doc_role_links_the_chapter():
    assert (
        _plain("Read {doc}`other`.\n", WITH_ADDRESS)
        == f"Read [Other Chapter]({URL}/book/other.html).\n"
    )


def test_a_term_role_is_its_text():
    assert _plain("A {term}`leaf <Leaf>` is.\n") == "A leaf is.\n"


def test_a_link_to_a_chapters_source_links_its_page_or_names_it():
    text = "Read [the threat model](other.md#threats) first.\n"
    assert _plain(text, WITH_ADDRESS) == (
        f"Read [the threat model]({URL}/book/other.html#threats) first.\n"
    )
    assert _plain(text) == "Read *the threat model* (in the chapter *Other Chapter*) first.\n"


def test_a_link_to_a_label_reads_as_the_ref_to_it():
    text = "See [that part](sec-there), [](sec-here).\n"
    assert _plain(text, WITH_ADDRESS) == (
        f"See [that part]({URL}/book/other.html#sec-there), "
        f"[A Section Here]({URL}/book/here.html#sec-here).\n"
    )
    assert _plain(text) == (
        "See *that part* (in the chapter *Other Chapter*), *A Section Here* (in this chapter).\n"
    )


def test_links_elsewhere_and_roles_in_code_are_left_as_they_are():
    text = "Write `{ref}` as in [the guide](https://example.org/guide.md).\n\n```\n{ref}`x`\n```\n"
    assert _plain(text) == text


def test_the_download_of_the_exercise_links_the_published_exercise_notebook():
    text = "Download {download}`leaves.ipynb <../exercises/leaves/leaves.ipynb>`.\n"
    assert _plain(text) == "Download [leaves.ipynb](exercises/leaves.ipynb).\n"
    assert _plain(text, WITH_ADDRESS) == (
        f"Download [leaves.ipynb]({URL}/notebooks/exercises/leaves.ipynb).\n"
    )


def test_an_admonition_is_a_blockquote_under_its_bold_title_its_body_converted_too():
    text = "```{admonition} Learning goals\n:class: tip\n\nYou can\n\n- read {ref}`sec-here`\n```\n"
    assert _plain(text) == (
        "> **Learning goals**\n>\n> You can\n>\n> - read *A Section Here* (in this chapter)\n"
    )


@pytest.mark.parametrize("fence", ["```", ":::"])
def test_a_named_admonition_is_titled_by_its_kind(fence):
    text = f"{fence}{{note}}\nMind the leaves.\n{fence}\n"
    assert _plain(text) == "> **Note**\n>\n> Mind the leaves.\n"


def test_a_literalinclude_is_the_code_block_of_the_file(tmp_path):
    (tmp_path / "setup.sh").write_text("apt-get install bubblewrap\n", encoding="utf-8")
    text = "```{literalinclude} setup.sh\n:language: bash\n```\n"
    assert _plain(text, source=tmp_path / "here.md") == (
        "```bash\napt-get install bubblewrap\n```\n"
    )


def test_a_target_is_left_out():
    assert _plain("(sec-here)=\n## A Section Here\n") == "## A Section Here\n"


def test_roles_in_the_cells_of_a_table_row_are_each_converted():
    text = "| a | b |\n|---|---|\n| {ref}`sec-here` | {ref}`sec-there` |\n"
    assert _plain(text).splitlines()[2] == (
        "| *A Section Here* (in this chapter) "
        "| *A Section There* (in the chapter *Other Chapter*) |"
    )


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("{math}`x^2`\n", "the role {math}"),
        ("```{tableofcontents}\n```\n", "the directive {tableofcontents}"),
        ("{ref}`sec-nowhere`\n", "'sec-nowhere'"),
        ("[x](nowhere.md)\n", "nowhere"),
        ("[x](sec-nowhere)\n", "'sec-nowhere'"),
    ],
)
def test_myst_with_no_plain_form_is_an_error_naming_the_chapter(text, named):
    with pytest.raises(MystError, match="book/here.md") as raised:
        _plain(text)
    assert named in str(raised.value)


def test_a_role_whose_content_runs_onto_the_next_line_is_converted():
    text = "as {ref}`the part\nthere <sec-there>` shows\n"
    assert _plain(text) == "as *the part there* (in the chapter *Other Chapter*) shows\n"
