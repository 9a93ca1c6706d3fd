"""Every link and resource inside the built site points at a file that exists, and every
``#anchor`` at an element of its page. Links to other sites are not followed."""

from __future__ import annotations

from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.slow

LINK_ATTRIBUTES = {"href", "src"}


class _PageParser(HTMLParser):
    """The links (``href``/``src``) and the element ids of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in LINK_ATTRIBUTES:
                self.links.append(value)
            elif name == "id" or (name == "name" and tag == "a"):
                self.ids.add(value)


@cache
def _parsed(page: Path) -> _PageParser:
    parser = _PageParser()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _internal_links(site: Path) -> list[tuple[Path, str, Path, str]]:
    """(page, link, target file, fragment) for every link that stays inside the site."""
    found = []
    for page in sorted(site.rglob("*.html")):
        if page.relative_to(site).parts[0] == "_static":
            continue  # the themes' template macros, copied as they are: not pages
        for link in _parsed(page).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue  # another site, mailto:, javascript:, data:
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            found.append((page, link, target, unquote(parts.fragment)))
    return found


def test_the_site_has_internal_links_to_check(built):
    assert len(_internal_links(built)) > 500


def test_every_internal_link_and_resource_exists(built):
    missing = [
        f"{page.relative_to(built)}: {link}"
        for page, link, target, _ in _internal_links(built)
        if not target.is_file()
    ]
    assert not missing, "\n".join(missing[:40])


def test_every_internal_anchor_names_an_element_of_its_page(built):
    missing = [
        f"{page.relative_to(built)}: {link}"
        for page, link, target, fragment in _internal_links(built)
        if fragment
        and target.suffix == ".html"
        and target.is_file()
        and fragment not in _parsed(target).ids
    ]
    assert not missing, "\n".join(missing[:40])


def test_every_section_a_message_can_link_is_an_anchor_of_the_built_book(built):
    from autograder.load.book import book_links

    url = "https://course.example.org/pytrees"
    links = book_links(url)
    assert len(links.sections) > 100
    missing = []
    for name, address in links.sections.items():
        page, _, anchor = address.removeprefix(url + "/").partition("#")
        target = built / page
        if not target.is_file() or anchor not in _parsed(target).ids:
            missing.append(f"{name}: {page}#{anchor}")
    assert not missing, "\n".join(missing[:40])
