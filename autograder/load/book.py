"""Links into the published book: each chapter's page and each section's anchor.

``--book-url URL`` (on ``release``, ``grade`` and ``merge``) is the book's address as
published: the root of the built site (``_build/html``, what ``book.yml`` publishes
with GitHub Pages), where its ``index.html`` is. There a chapter ``book/<id>.md`` is
the page ``URL/book/<id>.html``, and each section is the element whose ``id``
Sphinx derives from its heading with docutils' rule (:func:`section_anchor`).

A message sends the learner to a section as ``Reread <Chapter> → <Section>``, the
chapter by its title and the section by its heading. :class:`BookLinks` knows the
address of every such section, read from the book's sources; a learners' release
keeps it in ``autograder/course/book.json`` (:data:`BOOK_LINKS_FILE`), where the
checker reads it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.load.course import COURSE_COPY, REPO_ROOT

BOOK_SOURCES = REPO_ROOT / "book"
BOOK_LINKS_FILE = COURSE_COPY / "book.json"
REREAD = "Reread "
SEPARATOR = " → "

# A URL a notebook's Markdown, a terminal and a JSON string can all carry as it is.
_URL = re.compile(r"https?://[^\s\"'<>()\[\]\\`]+")
_NOT_IN_ANCHORS = re.compile(r"[^a-z0-9]+")
_ANCHOR_ENDS = re.compile(r"^[-0-9]+|-+$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,3}) +(.+?) *#* *$")


def book_url(text: str) -> str:
    """``text`` as a book's address, without a trailing ``/``; ValueError if it is not one."""
    if not _URL.fullmatch(text):
        raise ValueError(
            f"{text!r} is not an http:// or https:// address (without spaces, quotes, "
            "brackets or backslashes)"
        )
    return text.rstrip("/")


def page_url(url: str, chapter: str) -> str:
    """The address of chapter ``chapter``'s page in the book published at ``url``."""
    return f"{url}/book/{chapter}.html"


def section_anchor(heading: str) -> str:
    """The ``id`` Sphinx gives a section with this heading: docutils' ``make_id`` rule.

    Lowercase; accents dropped (NFKD, then ASCII only); every run of characters other
    than ``a``-``z`` and ``0``-``9`` made one ``-``; then leading digits and hyphens
    and trailing hyphens removed. ``aux_data is part of jit's cache key`` becomes
    ``aux-data-is-part-of-jit-s-cache-key``.
    """
    text = unicodedata.normalize("NFKD", heading.lower()).encode("ascii", "ignore").decode()
    return _ANCHOR_ENDS.sub("", _NOT_IN_ANCHORS.sub("-", text))


def chapter_headings(source: str) -> tuple[str, list[str]]:
    """A chapter's title and its section headings (levels 2 and 3), as a reader sees them.

    Read from the MyST source: code blocks are skipped, and backticks dropped.
    """
    title = ""
    sections: list[str] = []
    fenced = False
    for line in source.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        text = match.group(2).replace("`", "")
        if len(match.group(1)) == 1:
            title = title or text
        else:
            sections.append(text)
    return title, sections


@dataclass(frozen=True)
class BookLinks:
    """Where each ``<Chapter> → <Section>`` is in a published book."""

    url: str
    sections: dict[str, str]
    """``"<Chapter> → <Section>"``: the section's address."""

    def annotate(self, text: str) -> str:
        """``text`` with the address after each ``Reread <Chapter> → <Section>``, in brackets."""
        return _replace_each(text, self.sections, lambda name, url: f"{REREAD}{name} ({url})")

    def markdown(self, written: str, escape: Callable[[str], str]) -> str:
        """Markdown ``written`` with each ``Reread <Chapter> → <Section>`` made a link to it.

        ``escape`` is how ``written`` was escaped, so that the section's name is found
        as it is written there.
        """
        escaped = {escape(name): url for name, url in self.sections.items()}
        return _replace_each(written, escaped, lambda name, url: f"{REREAD}[{name}]({url})")

    def to_json(self) -> str:
        return json.dumps({"url": self.url, "sections": self.sections}, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> BookLinks:
        """Read :meth:`to_json`'s output; ValueError when it is not that."""
        data = json.loads(text)
        sections = data.get("sections") if isinstance(data, dict) else None
        if not isinstance(sections, dict) or not isinstance(data.get("url"), str):
            raise ValueError("not a book's links")
        return cls(book_url(data["url"]), {str(k): book_url(v) for k, v in sections.items()})


def _replace_each(text: str, addresses: dict[str, str], link: Callable[[str, str], str]) -> str:
    if REREAD not in text or not addresses:
        return text
    names = sorted(addresses, key=len, reverse=True)  # the longest name that fits wins
    pattern = re.compile(re.escape(REREAD) + "(" + "|".join(map(re.escape, names)) + ")")
    return pattern.sub(lambda found: link(found.group(1), addresses[found.group(1)]), text)


@dataclass(frozen=True)
class Section:
    """One section of the book: its chapter's page ``book/<chapter>.md`` and its anchor there."""

    chapter: str
    title: str
    """The chapter's title, as messages name it."""
    heading: str
    anchor: str

    @property
    def name(self) -> str:
        """``<Chapter> → <Section>``, as a message names it after ``Reread``."""
        return f"{self.title}{SEPARATOR}{self.heading}"


@cache
def book_sections(book: Path = BOOK_SOURCES) -> dict[str, Section]:
    """Every section of the book's pages (``book/<page>.md``), by :attr:`Section.name`.

    A heading whose anchor an earlier heading of its page already has is left out:
    Sphinx gives it another, numbered one. Read once per process and ``book``: do not
    change the dict it returns.
    """
    sections: dict[str, Section] = {}
    for source in sorted(book.glob("*.md")):
        title, headings = chapter_headings(source.read_text(encoding="utf-8"))
        taken: set[str] = {section_anchor(title)}
        for heading in headings:
            anchor = section_anchor(heading)
            if anchor and anchor not in taken:
                found = Section(source.stem, title, heading, anchor)
                sections.setdefault(found.name, found)
            taken.add(anchor)
    return sections


def chapter_titles(book: Path = BOOK_SOURCES) -> dict[str, str]:
    """Each chapter's title by its id (its page ``book/<id>.md``)."""
    return {section.chapter: section.title for section in book_sections(book).values()}


def section_named(words: str, sections: dict[str, Section]) -> Section | None:
    """The section ``words`` begin with (the words after ``Reread``), the longest name
    that fits; None when they name none of ``sections``."""
    fitting = [name for name in sections if words.startswith(name)]
    return sections[max(fitting, key=len)] if fitting else None


def book_links(url: str, book: Path = BOOK_SOURCES) -> BookLinks:
    """The address of every section of the book (:func:`book_sections`), published at ``url``."""
    url = book_url(url)
    return BookLinks(
        url,
        {
            name: f"{page_url(url, section.chapter)}#{section.anchor}"
            for name, section in book_sections(book).items()
        },
    )


def released_book_links(path: Path | None = None) -> BookLinks | None:
    """The book's links a learners' release was written with (``path``, by default
    :data:`BOOK_LINKS_FILE`); None when it was written without ``--book-url``."""
    try:
        return BookLinks.from_json((path or BOOK_LINKS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
