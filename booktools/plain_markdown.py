"""A chapter's MyST markdown made the markdown Jupyter, Colab and GitHub render.

The published chapter notebooks (:mod:`booktools.chapter_notebooks`) keep the chapter's
markdown cells, and those hold what only the book's build understands: roles
(``{ref}`...` ``), directives (a fence whose info is ``{name}``), targets (``(label)=``)
and links to other chapters' ``.md`` sources. :func:`plain_markdown` writes each as a
notebook can show it: a cross-reference or a link to a chapter becomes a link to the
book's page when the book's address is known, else the text and the chapter it is in;
an admonition becomes a blockquote under a bold title; a ``literalinclude`` the code
block of the file it includes; a target nothing. A role or directive with no plain
form is an error naming the chapter, never left for the reader to see.

markdown-it (with MyST's plugins, as the book's parser uses them) finds these, so a
role inside a code span or a fence inside a code block is left as it is.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser
from sphinx.util.nodes import explicit_title_re

# the extensions _config.yml enables that change how blocks are read (linkify does not)
_PARSER = create_md_parser(
    MdParserConfig(enable_extensions={"colon_fence", "deflist"}), RendererHTML
)
ADMONITIONS = {
    "attention",
    "caution",
    "danger",
    "error",
    "hint",
    "important",
    "note",
    "seealso",
    "tip",
    "warning",
}
_TITLES = {"seealso": "See also"}


class MystError(ValueError):
    """A chapter holds MyST that has no plain-markdown form here."""


@dataclass(frozen=True)
class Book:
    """What a chapter's references resolve against.

    ``url``: the book's address without a trailing ``/``, or None when it is not known.
    ``titles``: each page's title by docname (``book/leaves``). ``labels``: each
    ``(label)=`` target's ``(docname, anchor, section title)``, as Sphinx's std domain
    records them. ``exercise_path``: where an exercise notebook, given its course path
    (``exercises/<id>/<id>.ipynb``), is published, relative to a chapter notebook.
    """

    url: str | None
    titles: Mapping[str, str]
    labels: Mapping[str, tuple[str, str, str]]
    exercise_path: Callable[[str], str | None]


def plain_markdown(text: str, book: Book, docname: str, source: Path) -> str:
    """``text``, a markdown cell of the chapter ``docname`` read from ``source``, with
    its roles, directives, targets and links to chapter sources made plain markdown.

    Raises MystError naming the chapter for a role or directive it has no form for,
    or a reference to a label or page the book does not have.
    """
    return _Chapter(book, docname, source).convert(text)


@dataclass(frozen=True)
class _Chapter:
    book: Book
    docname: str
    source: Path

    def convert(self, text: str) -> str:
        lines = text.splitlines(keepends=True)
        # replaced from the last block up, so the line numbers of the ones above still hold
        for token in reversed(_PARSER.parse(text)):
            if token.map is None:
                continue
            start, end = token.map
            block = "".join(lines[start:end])
            if token.type == "myst_target":
                converted = ""
            elif token.type in ("fence", "colon_fence") and token.info.startswith("{"):
                converted = self._directive(token)
            elif token.type == "inline":
                converted = self._inline(token, block)
            else:
                continue
            lines[start:end] = [converted]
        return "".join(lines)

    def _fail(self, what: str) -> MystError:
        return MystError(f"{self.docname}.md: {what}")

    def _inline(self, token: Token, block: str) -> str:
        for child in token.children or []:
            if child.type == "myst_role":
                replaced = _replace_role(block, child, self._role(child))
                if replaced == block:  # a form of role source the pattern does not know
                    raise self._fail(
                        f"the role {{{child.meta['name']}}} {child.content!r} was not found"
                    )
                block = replaced
            elif child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                if _is_chapter_source(href):
                    block = self._link(block, href)
                elif not urlsplit(href).scheme:
                    block = self._label_link(block, href)
        return block

    def _role(self, role: Token) -> str:
        name, content = role.meta["name"], role.content
        explicit = explicit_title_re.match(content)  # "text <target>"
        text, target = (explicit.group(1), explicit.group(2)) if explicit else (None, content)
        if name == "ref":
            page, anchor, section = self._label(
                target, f"{{ref}} to {target!r}, a label the book does not have"
            )
            return self._reference(text or section, page, f"#{anchor}")
        if name == "doc":
            return self._reference(text, self._docname(target), "")
        if name == "term":
            return text or target
        if name == "download":
            path = posixpath.normpath(posixpath.join(posixpath.dirname(self.docname), target))
            published = self.book.exercise_path(path)
            if published is None:
                raise self._fail(f"{{download}} of {target}, which is no exercise notebook")
            if self.book.url is not None:
                published = f"{self.book.url}/notebooks/{published}"
            return f"[{text or posixpath.basename(target)}]({published})"
        raise self._fail(f"the role {{{name}}} has no plain-markdown form")

    def _link(self, block: str, href: str) -> str:
        target, _, anchor = href.partition("#")
        page = self._docname(target.removesuffix(".md"))
        return _replace_link(block, href, page, f"#{anchor}" if anchor else "", self._reference)

    def _label_link(self, block: str, href: str) -> str:
        """A MyST link to a label, ``[text](label)``, as the ``{ref}`` to it reads."""
        page, anchor, section = self._label(
            href, f"a link to {href!r}, neither an address nor a label the book has"
        )
        return _replace_link(
            block, href, page, f"#{anchor}", lambda text, *at: self._reference(text or section, *at)
        )

    def _label(self, label: str, missing: str) -> tuple[str, str, str]:
        """``label``'s page, anchor and section title; MystError ``missing`` when the book
        has no such label."""
        if label not in self.book.labels:
            raise self._fail(missing)
        return self.book.labels[label]

    def _docname(self, target: str) -> str:
        page = posixpath.normpath(posixpath.join(posixpath.dirname(self.docname), target))
        if page not in self.book.titles:
            raise self._fail(f"a link to {target}, a page the book does not have")
        return page

    def _reference(self, text: str | None, page: str, anchor: str) -> str:
        """A link to ``page``'s ``anchor`` in the book, or the text and where it is."""
        title = self.book.titles[page]
        text = text or title
        if self.book.url is not None:
            return f"[{text}]({self.book.url}/{page}.html{anchor})"
        if page == self.docname:
            return f"*{text}* (in this chapter)"
        return f"*{text}* (in the chapter *{title}*)"

    def _directive(self, token: Token) -> str:
        name, _, argument = token.info[1:].partition("}")
        name, argument = name.strip(), argument.strip()
        options, body = _options_and_body(token.content)
        if name == "admonition" or name in ADMONITIONS:
            title = argument if name == "admonition" else _TITLES.get(name, name.capitalize())
            quoted = self.convert(body).rstrip("\n").splitlines()
            return "".join(f"> {line}".rstrip() + "\n" for line in [f"**{title}**", "", *quoted])
        if name == "literalinclude":
            included = (self.source.parent / argument).read_text(encoding="utf-8")
            return f"```{options.get('language', '')}\n{included.rstrip()}\n```\n"
        raise self._fail(f"the directive {{{name}}} has no plain-markdown form")


def _replace_link(
    block: str, href: str, page: str, anchor: str, reference: Callable[[str, str, str], str]
) -> str:
    """``block`` with its first ``[text](href)`` replaced by ``reference(text, page, anchor)``.

    markdown-it says this is a link, not where its source is: the first "[...](href)"
    with this exact href is found in the block's lines.
    """
    source = re.compile(r"\[([^\]]*)\]\(" + re.escape(href) + r"\)")
    return source.sub(lambda link: reference(link[1], page, anchor), block, count=1)


def _replace_role(block: str, role: Token, replacement: str) -> str:
    """``block`` with the source of ``role`` replaced, once (unchanged if it is not found).

    markdown-it keeps a role's name and content, not its source: ``{name}``, then the
    content in a code span of one or more backticks, where a line break was read as a
    space. So the source is found again with a pattern of those, each run of spaces in
    the content matching any run of whitespace.
    """
    content = r"\s+".join(re.escape(part) for part in role.content.split())
    name = re.escape(f"{{{role.meta['name']}}}")
    written = re.compile(rf"{name}(`+)\s*{content}\s*\1")
    return written.sub(lambda _: replacement, block, count=1)


def _options_and_body(content: str) -> tuple[dict[str, str], str]:
    """A directive's ``:name: value`` option lines, and the body after them."""
    options: dict[str, str] = {}
    lines = content.splitlines(keepends=True)
    while lines and (option := re.match(r"^:([\w-]+):\s*(.*)$", lines[0].rstrip("\n"))):
        options[option.group(1)] = option.group(2)
        lines.pop(0)
    return options, "".join(lines).lstrip("\n")


def _is_chapter_source(href: str) -> bool:
    """Whether ``href`` is a relative link to a page's ``.md`` source."""
    target = href.partition("#")[0]
    return target.endswith(".md") and "://" not in target and not target.startswith("/")
