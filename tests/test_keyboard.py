"""The book and the class page with the keyboard alone, in headless Chromium.

A learner who uses no mouse walks the leaves chapter: skips to its content, starts Live
Code, edits and runs a cell, answers a question and tries again, then tabs on to the
end of the page; then tabs through the progress page, and an instructor sorts the
class page's tables. Every key is pressed with ``page.keyboard``; at each element the
focus lands on, the walk records what Chromium tells a screen reader of it (its role
and accessible name, from the browser's own accessibility tree), its visible text,
and whether the focus shows. Pages are also laid out as 200 % zoom and a 320 CSS
pixel wide window lay them out, to check that none scrolls sideways as a whole.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, CDPSession, Page
from test_browser import (  # noqa: F401 (the servers of the book's browser tests)
    KERNEL_SECONDS,
    Jupyter,
    Visitor,
    exercise_record,
    jupyter,
    site,
)
from test_insight_page import fixture_class, page_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# What the focused element is and shows. An editor's text area is hidden behind the
# editor's box: that box is what must show the focus.
FOCUSED = """
() => {
  const element = document.activeElement;
  if (!element || element === document.body) return null;
  const shown = element.closest('.CodeMirror') || element;
  const style = getComputedStyle(shown);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0
    && !/rgba\\(.*, 0\\)$|transparent/.test(style.outlineColor);
  const ring = style.boxShadow !== 'none';
  const box = shown.getBoundingClientRect();
  return {
    element: element.tagName.toLowerCase() + (element.className && typeof element.className
      === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : ''),
    text: element.matches('textarea, input') ? '' : element.innerText,
    shown: (outline || ring) && box.width > 0 && box.height > 0,
    inMain: Boolean(element.closest('main')),
    href: element.getAttribute('href'),
  };
}
"""


@dataclass
class Stop:
    """One element the focus landed on."""

    step: str  # what the walk was doing
    element: str  # tag and classes
    role: str  # as Chromium's accessibility tree has it
    name: str
    text: str  # what the page shows in it
    shown: bool  # whether it shows the focus (an outline or a ring)
    in_main: bool
    href: str | None


def _words(text: str) -> str:
    return " ".join(text.split()).lower()


@dataclass
class Keyboard:
    """A page driven by its keyboard, recording every element the focus lands on."""

    page: Page
    stops: list[Stop] = field(default_factory=list)
    step: str = ""
    _cdp: CDPSession | None = None

    def read_aloud(self, selector: str) -> list[dict[str, str]]:
        """The role, name and description Chromium gives a screen reader for each element
        matching ``selector``."""
        if self._cdp is None:
            self._cdp = self.page.context.new_cdp_session(self.page)
        root = self._cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        nodes = self._cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})
        read = []
        for node in nodes["nodeIds"]:
            found = self._cdp.send(
                "Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False}
            )["nodes"][0]
            read.append(
                {
                    part: found.get(part, {}).get("value", "")
                    for part in ("role", "name", "description")
                }
            )
        return read

    def _accessible(self) -> tuple[str, str]:
        """The focused element's role and name, as Chromium gives them to a screen reader."""
        found = self.read_aloud(":focus")
        return (found[0]["role"], found[0]["name"]) if found else ("", "")

    def press(self, key: str) -> Stop | None:
        """Press ``key``; the element the focus is on after it, recorded (None: the page)."""
        self.page.keyboard.press(key)
        return self.focused()

    def focused(self) -> Stop | None:
        """The element the focus is on, recorded (None: the page itself)."""
        focused = self.page.evaluate(FOCUSED)
        if focused is None:
            return None
        role, name = self._accessible()
        stop = Stop(
            self.step,
            focused["element"],
            role,
            name,
            focused["text"],
            focused["shown"],
            focused["inMain"],
            focused["href"],
        )
        self.stops.append(stop)
        return stop

    def tab(self) -> Stop | None:
        """Move the focus on, as the page says to: in a code editor, where Tab indents,
        Escape first."""
        if self.page.evaluate("Boolean(document.activeElement.closest('.CodeMirror'))"):
            self.page.keyboard.press("Escape")
        return self.press("Tab")

    def tab_to(self, selector: str, limit: int = 400) -> Stop:
        """Tab until the focus is on an element matching ``selector``."""
        for _ in range(limit):
            stop = self.tab()
            if stop is not None and self.page.evaluate(
                "selector => document.activeElement.matches(selector)", selector
            ):
                return stop
        last = "\n".join(map(str, self.stops[-12:]))
        pytest.fail(f"{limit} presses of Tab while {self.step} did not reach {selector}:\n{last}")

    def tab_through(self, limit: int = 600) -> None:
        """Tab from where the focus is to the page's last element (Tab then leaves the page,
        or goes round to its first)."""
        if self.tab() is None:
            return
        self.page.evaluate("document.activeElement.dataset.ptFirstStop = 'yes'")
        for _ in range(limit):
            if self.tab() is None or self.page.evaluate(
                "document.activeElement.dataset.ptFirstStop === 'yes'"
            ):
                return


# The learner's walk through a chapter ----------------------------------------------


@dataclass
class ChapterWalk:
    keys: Keyboard
    after_skip: Stop | None = None
    live_code_state: str = ""
    typed_output: str = ""
    reached_from_editor: Stop | None = None
    verdict: str = ""
    feedback_hidden_after_retry: bool = False
    after_retry: Stop | None = None
    buttons: list[dict[str, str]] = field(default_factory=list)  # Live Code's, coloured
    pictures: list[dict[str, str]] = field(default_factory=list)  # the trees, read aloud


# Each of Live Code's buttons: its text, its colours, and the theme's primary colour,
# once the buttons' colour transitions have ended.
BUTTON_COLOURS = """
async () => {
  const transitions = document.getAnimations().filter(each => each instanceof CSSTransition);
  // settled, not all fulfilled (a cancelled one rejects); and never longer than 2 s:
  // a transition that never runs would otherwise hold the test for ever
  const ended = Promise.allSettled(transitions.map(transition => transition.finished));
  await Promise.race([ended, new Promise(done => setTimeout(done, 2000))]);
  const probe = document.createElement('span');
  probe.style.color = 'var(--pst-color-primary)';
  document.body.append(probe);
  const primary = getComputedStyle(probe).color;
  probe.remove();
  return Array.from(document.querySelectorAll('.thebe-controls button')).map(button => {
    const style = getComputedStyle(button);
    return {text: button.innerText, text_colour: style.color, border: style.borderTopColor,
            primary};
  });
}
"""

EDITED_CODE = 'print("typed", 6 * 7)'


def _walk_chapter(keys: Keyboard) -> ChapterWalk:
    page = keys.page
    walk = ChapterWalk(keys, pictures=keys.read_aloud("svg.pt-tree"))
    keys.step = "skipping to the content"
    keys.tab_to("#pst-skip-link a", limit=1)
    page.keyboard.press("Enter")
    walk.after_skip = keys.press("Tab")

    keys.step = "starting Live Code"
    keys.tab_to(".dropdown-launch-buttons .dropdown-toggle")
    page.keyboard.press("Enter")
    keys.tab_to(".btn-launch-thebe")
    page.keyboard.press("Enter")
    page.locator(".pt-live-code[data-state=ready]").wait_for(timeout=KERNEL_SECONDS * 1000)
    walk.live_code_state = page.locator(".pt-live-code").inner_text()
    walk.buttons = page.evaluate(BUTTON_COLOURS)

    keys.step = "editing and running a cell"
    keys.tab_to(".thebe-cell textarea")
    page.keyboard.press("Control+A")
    page.keyboard.type(EDITED_CODE)
    page.keyboard.press("Escape")
    walk.reached_from_editor = keys.press("Tab")
    if walk.reached_from_editor and "thebe-run-button" in walk.reached_from_editor.element:
        page.keyboard.press("Enter")
        output = page.locator("[data-output]").first.locator(".jp-OutputArea-output")
        output.first.wait_for(timeout=KERNEL_SECONDS * 1000)
        walk.typed_output = output.first.inner_text()

    keys.step = "answering a question"
    keys.tab_to(".pt-quiz-choice")
    page.keyboard.press("Space")
    walk.verdict = page.locator(".pt-quiz-verdict").first.inner_text()
    keys.step = "trying the question again"
    keys.tab_to(".pt-quiz-retry")
    page.keyboard.press("Enter")
    walk.feedback_hidden_after_retry = not page.locator(".pt-quiz-feedback").first.is_visible()
    walk.after_retry = keys.focused()

    keys.step = "tabbing to the end of the chapter"
    keys.tab_through()
    return walk


@pytest.fixture(scope="module")
def learner(browser: Browser, site: str) -> Iterator[Visitor]:  # noqa: F811 (imported fixture)
    """One learner's browser: the chapter and then the progress page share its storage."""
    visitor = Visitor(browser.new_context(viewport={"width": 1280, "height": 900}), site)
    yield visitor
    visitor.context.close()


@pytest.fixture(scope="module")
def chapter(learner: Visitor, jupyter: Jupyter) -> ChapterWalk:  # noqa: F811 (imported fixture)
    """The leaves chapter, opened at the address ./course serve prints, walked by keyboard."""
    page, _ = learner.open(jupyter.page("", "book/leaves.html"))
    page.wait_for_load_state("networkidle")
    return _walk_chapter(Keyboard(page))


def test_the_first_tab_reaches_a_skip_link_that_leads_into_the_content(chapter):
    first = chapter.keys.stops[0]
    assert first.element.startswith("a") and _words(first.text) == "skip to main content"
    assert chapter.after_skip is not None and chapter.after_skip.in_main, chapter.after_skip


def test_every_tree_picture_is_read_as_an_image_with_its_caption_and_contents(chapter, built):
    captions = re.findall(
        r"<figcaption[^>]*>(.*?)</figcaption>", (built / "book/leaves.html").read_text()
    )
    assert [picture["role"] for picture in chapter.pictures] == ["image"] * len(captions)
    assert [picture["name"] for picture in chapter.pictures] == [html.unescape(c) for c in captions]
    for picture in chapter.pictures:
        assert picture["description"].startswith("A pytree of "), picture


def test_live_code_starts_from_the_launch_menu_by_keyboard(chapter):
    assert "Live code is on" in chapter.live_code_state


def test_live_codes_run_and_restart_buttons_are_drawn_in_the_themes_colour(chapter):
    texts = {button["text"] for button in chapter.buttons}
    assert {"run", "restart"} <= texts
    off = [b for b in chapter.buttons if not b["text_colour"] == b["border"] == b["primary"]]
    assert off == []


def test_a_cells_editor_is_left_by_escape_and_tab_for_its_run_button(chapter):
    reached = chapter.reached_from_editor
    assert reached is not None and "thebe-run-button" in reached.element, reached


def test_a_cell_edited_and_run_by_keyboard_shows_its_output(chapter):
    assert chapter.typed_output.strip() == "typed 42"


def test_a_question_answers_by_keyboard(chapter):
    assert chapter.verdict.startswith(("Right.", "Not quite."))


def test_trying_again_hides_the_answer_and_keeps_the_focus_in_the_question(chapter):
    assert chapter.feedback_hidden_after_retry
    after = chapter.after_retry
    assert after is not None and "pt-quiz-choice" in after.element, after


def _unshown(stops: list[Stop]) -> list[str]:
    return [f"{stop.step}: {stop.element} {stop.name!r}" for stop in stops if not stop.shown]


def _unnamed(stops: list[Stop]) -> list[str]:
    return [f"{stop.step}: {stop.element} ({stop.role})" for stop in stops if not stop.name.strip()]


# Chromium's roles of the controls named by what they show (a region is named apart).
NAMED_BY_TEXT = {"button", "link", "menuitem", "tab", "checkbox", "radio", "DisclosureTriangle"}


def _name_not_text(stops: list[Stop]) -> list[str]:
    """Controls whose accessible name does not hold the text they show (WCAG 2.5.3)."""
    return [
        f"{stop.step}: {stop.element} shows {stop.text!r}, is named {stop.name!r}"
        for stop in stops
        if stop.role in NAMED_BY_TEXT
        and _words(stop.text)
        and _words(stop.text) not in _words(stop.name)
    ]


def test_the_focus_shows_at_every_stop_of_the_chapter(chapter):
    assert len(chapter.keys.stops) > 30
    assert _unshown(chapter.keys.stops) == []


def test_every_element_of_the_chapter_the_focus_reaches_has_a_name(chapter):
    assert _unnamed(chapter.keys.stops) == []


def test_every_element_of_the_chapter_is_named_by_the_text_it_shows(chapter):
    assert _name_not_text(chapter.keys.stops) == []


# The progress page -------------------------------------------------------------------


@pytest.fixture(scope="module")
def progress(learner: Visitor, chapter: ChapterWalk) -> Iterator[tuple[Page, Keyboard]]:
    """The progress page after the chapter's walk, tabbed through from its top."""
    page, _ = learner.open("book/progress.html")
    page.locator(".pt-progress-summary").filter(has_text="Read").wait_for()
    keys = Keyboard(page)
    keys.step = "skipping to the progress page's content"
    keys.tab_to("#pst-skip-link a", limit=1)
    page.keyboard.press("Enter")
    keys.step = "tabbing through the progress page"
    keys.tab_through()
    yield page, keys
    page.close()


def test_tab_reaches_every_link_of_the_progress_table(progress):
    page, keys = progress
    links = page.locator(".pt-progress-table a").evaluate_all(
        "links => links.map(link => link.getAttribute('href'))"
    )
    assert len(links) > 10
    reached = {stop.href for stop in keys.stops}
    assert [link for link in links if link not in reached] == []


def test_the_focus_shows_on_every_element_of_the_progress_page(progress):
    assert _unshown(progress[1].stops) == []


def test_every_element_of_the_progress_page_is_named_by_the_text_it_shows(progress):
    stops = progress[1].stops
    assert _unnamed(stops) == [] and _name_not_text(stops) == []


# The class page ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def class_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return page_of(fixture_class(), tmp_path_factory.mktemp("insight"))


@dataclass
class Sorted:
    keys: Keyboard
    headers: list[str]  # every sortable header's text
    orders: list[tuple[str | None, list[str]]]  # the score header's aria-sort, and the scores


@pytest.fixture(scope="module")
def sorted_by_keyboard(browser: Browser, class_page: Path) -> Iterator[Sorted]:
    """The class page, tabbed through, its learners sorted by score with Enter, twice."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(class_page.as_uri())
    keys = Keyboard(page)
    headers = page.locator("table.sortable th button").all_inner_texts()
    keys.step = "sorting the learners by score"
    header = "#learners-table thead th:nth-child(2) button"
    keys.tab_to(header)
    orders = []
    for _ in range(2):
        page.keyboard.press("Enter")
        orders.append(
            (
                page.locator("#learners-table thead th:nth-child(2)").get_attribute("aria-sort"),
                page.locator('#learners-table tbody [data-name="score"]').all_inner_texts(),
            )
        )
    keys.step = "tabbing through the class page"
    keys.tab_through()
    yield Sorted(keys, headers, orders)
    context.close()


def test_enter_on_a_column_header_sorts_the_table_and_again_reverses_it(sorted_by_keyboard):
    (first, scores), (second, reversed_scores) = sorted_by_keyboard.orders
    assert first == "ascending" and scores[0].startswith("3")
    assert second == "descending" and reversed_scores == scores[::-1]


def test_tab_reaches_every_sortable_header_of_the_class_page(sorted_by_keyboard):
    reached = [_words(stop.text) for stop in sorted_by_keyboard.keys.stops]
    missing = [text for text in sorted_by_keyboard.headers if _words(text) not in reached]
    assert len(sorted_by_keyboard.headers) > 10 and missing == []


def test_a_sortable_header_is_named_by_its_words_without_its_arrow(sorted_by_keyboard):
    named = {
        stop.name: stop.text
        for stop in sorted_by_keyboard.keys.stops
        if stop.element == "button" and stop.role == "button"
    }
    assert len(named) > 10
    assert {name: text for name, text in named.items() if name != text.strip()} == {}


def test_the_focus_shows_on_every_element_of_the_class_page(sorted_by_keyboard):
    assert _unshown(sorted_by_keyboard.keys.stops) == []


def test_every_element_of_the_class_page_is_named_by_the_text_it_shows(sorted_by_keyboard):
    stops = sorted_by_keyboard.keys.stops
    assert _unnamed(stops) == [] and _name_not_text(stops) == []


# 200 % zoom and a 320 px wide window ----------------------------------------------------

# 200 % zoom of a 1280 x 900 window lays a page out in 640 x 450 CSS pixels; WCAG's
# reflow criterion asks for 320 CSS pixels with no scrolling in two directions.
LAYOUTS = {"zoom 200%": {"width": 640, "height": 450}, "320px wide": {"width": 320, "height": 640}}

# What is wider than the window: elements whose right edge passes it, outside any
# box that scrolls sideways by itself.
SIDEWAYS = """
() => {
  const width = document.documentElement.clientWidth;
  const scrolls = element => {
    for (let up = element.parentElement; up; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow === 'auto' || overflow === 'scroll' || overflow === 'hidden') return true;
    }
    return false;
  };
  const over = Array.from(document.body.querySelectorAll('*')).filter(element => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.right > width + 1 && !scrolls(element)
      && getComputedStyle(element).visibility !== 'hidden';  // a drawer kept off screen
  });
  return {
    page: document.documentElement.scrollWidth - width,
    over: over.slice(0, 5).map(e => e.tagName.toLowerCase() + '.' + e.className),
  };
}
"""


def _sideways(browser: Browser, address: str, size: dict[str, int], prepare: Callable) -> dict:
    context = browser.new_context(viewport=size)
    try:
        page = context.new_page()
        page.goto(address)
        prepare(page)
        return page.evaluate(SIDEWAYS)
    finally:
        context.close()


def _loaded(page: Page) -> None:
    page.wait_for_load_state("networkidle")


def _progress_filled(page: Page) -> None:
    page.locator(".pt-progress-summary").filter(has_text="Read").wait_for()


def _pages(book: str, class_page: Path) -> dict[str, tuple[str, Callable]]:
    return {
        "the leaves chapter": (book + "book/leaves.html", _loaded),
        "the progress page": (book + "book/progress.html", _progress_filled),
        "the class page": (class_page.as_uri(), _loaded),
    }


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shown", ["the leaves chapter", "the progress page", "the class page"])
def test_no_page_scrolls_sideways_as_a_whole(browser, site, class_page, layout, shown):  # noqa: F811
    address, prepare = _pages(site, class_page)[shown]
    found = _sideways(browser, address, LAYOUTS[layout], prepare)
    assert found == {"page": 0, "over": []}, f"{shown} at {layout}"
