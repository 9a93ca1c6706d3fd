"""Every page of the built book, and the class page, checked against WCAG 2.0, 2.1 and 2.2
at levels A and AA, in Chromium's light and dark colour schemes.

The checker is axe-core, the npm package pinned in ``package-lock.json`` (``./course
setup`` installs it into ``node_modules`` with ``npm ci``): Playwright puts its script
into each page, and nothing is fetched while the tests run. Each page is checked as a
learner leaves it: its first question answered, and, on one chapter, Live Code started
and a cell run. A violation is reported with its rule, its page and colour scheme, the
element's selector and axe's summary.

axe's contrast rule does not read the text of an SVG picture, so the tree pictures' and
the class page's charts' text is measured here: its colour against what the browser
draws under its centre (its box, a chart's bar, or the page).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import test_browser
from playwright.sync_api import Browser, Page
from test_browser import KERNEL_SECONDS, Jupyter, Visitor, _answer_first_question, _start_live_code
from test_insight_page import fixture_class, open_page, page_of

from autograder.load.course import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The book served as ./course serve serves it, and JupyterLab beside it: the browser
# walk's fixtures.
exercise_record, site, jupyter = (
    test_browser.exercise_record,
    test_browser.site,
    test_browser.jupyter,
)

AXE = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SCHEMES = ("light", "dark")
LIVE_CHAPTER = "book/leaves.html"

RUN_AXE = """tags => axe.run(document, {runOnly: {type: 'tag', values: tags},
                                    resultTypes: ['violations']})
  .then(results => results.violations.flatMap(rule => rule.nodes.map(node => ({
    rule: rule.id, target: node.target.join(' '),
    summary: node.failureSummary.split('\\n').slice(1).join(' ').trim()}))))"""

# Each text of the pictures matching the selector, its colour, and the colour under its
# centre: the first shape there filled with a colour, else the first opaque background
# around it (semi-transparent ones laid over it), else the canvas's white.
SVG_TEXT_COLOURS = """selector => {
  const parse = colour => {
    const parts = colour.match(/[\\d.]+/g);
    return parts && colour.startsWith('rgb') ? parts.map(Number) : null;
  };
  const over = (top, under) => {
    const alpha = top.length > 3 ? top[3] : 1;
    return [0, 1, 2].map(i => top[i] * alpha + under[i] * (1 - alpha));
  };
  const paint = element => {
    if (element instanceof SVGGeometryElement && !(element instanceof SVGTextContentElement)) {
      return parse(getComputedStyle(element).fill);
    }
    if (element instanceof HTMLElement) {
      const colour = parse(getComputedStyle(element).backgroundColor);
      return colour && (colour.length < 4 || colour[3] > 0) ? colour : null;
    }
    return null;
  };
  return Array.from(document.querySelectorAll(selector)).flatMap(text => {
    const inView = box => box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight
      && box.right <= document.documentElement.clientWidth;
    // the browser hit-tests only what is in view
    if (!inView(text.getBoundingClientRect())) {
      text.scrollIntoView({block: 'center', inline: 'center'});
    }
    const box = text.getBoundingClientRect();
    if (!box.width || !box.height) return [];
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    const layers = document.elementsFromPoint(x, y).filter(e => e !== text).map(paint)
      .filter(colour => colour);
    let under = [255, 255, 255];
    for (const colour of layers.reverse()) under = over(colour, under);
    const style = getComputedStyle(text);
    return [{text: text.textContent.trim(), colour: over(parse(style.fill), under), under,
             size: parseFloat(style.fontSize), bold: Number(style.fontWeight) >= 700}];
  });
}"""

TREE_TEXT = "svg.pt-tree text"
CHART_TEXT = "svg[role=img] text"


def _luminance(rgb: list[float]) -> float:
    """WCAG 2's relative luminance of an sRGB colour given as 0-255 channels."""
    linear = [c / 255 / 12.92 if c <= 0.04045 * 255 else ((c / 255 + 0.055) / 1.055) ** 2.4
              for c in rgb[:3]]  # fmt: skip
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: list[float], second: list[float]) -> float:
    """WCAG 2's contrast ratio of two colours, from 1 to 21."""
    lighter, darker = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _hex(rgb: list[float]) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in rgb[:3])


def faint_svg_text(page: Page, selector: str, where: str) -> list[str]:
    """The SVG texts matching ``selector`` below WCAG's AA contrast for text (4.5:1, or 3:1
    from 24 px, or 18.66 px bold), each colour pair once, with one text that has it."""
    found: dict[tuple[str, str], str] = {}
    for text in page.evaluate(SVG_TEXT_COLOURS, selector):
        large = text["size"] >= 24 or (text["bold"] and text["size"] >= 18.66)
        ratio = contrast(text["colour"], text["under"])
        if ratio < (3 if large else 4.5):
            pair = (_hex(text["colour"]), _hex(text["under"]))
            found.setdefault(
                pair, f"{where}: {text['text']!r}, {pair[0]} on {pair[1]}: {ratio:.2f}"
            )
    return list(found.values())


def axe_violations(page: Page, where: str) -> list[str]:
    """What axe-core finds on ``page`` against the WCAG A and AA rules, one line an element."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        # evaluated, not added as a <script>: the class page's policy allows only its own
        page.evaluate(AXE.read_text(encoding="utf-8"))
    return [
        f"{found['rule']} [{where}] {found['target']}: {found['summary']}"
        for found in page.evaluate(RUN_AXE, WCAG_AA)
    ]


def _in_scheme(page: Page, scheme: str) -> None:
    """Emulate ``scheme`` and wait for the theme, which follows the system's, to take it."""
    page.emulate_media(color_scheme=scheme)
    if page.evaluate("document.documentElement.dataset.theme !== undefined"):
        page.wait_for_function("s => document.documentElement.dataset.theme === s", arg=scheme)
    # the theme's colours change in CSS transitions: measured halfway, they are neither.
    # Settled, not all fulfilled (a cancelled one rejects), and at most 2 s: page.evaluate
    # has no timeout, and a transition that never ran held a whole run for 28 minutes.
    page.evaluate(
        "Promise.race([Promise.allSettled(document.getAnimations()"
        ".filter(a => a instanceof CSSTransition).map(a => a.finished)),"
        " new Promise(done => setTimeout(done, 2000))]).then(() => true)"
    )


def _built_pages(built: Path) -> list[str]:
    pages = sorted(path.relative_to(built).as_posix() for path in built.glob("book/*.html"))
    return [*pages, "genindex.html", "search.html?q=leaves"]


def _live_code_running(page: Page) -> None:
    _start_live_code(page)
    page.locator(".pt-live-code[data-state=ready]").wait_for(timeout=KERNEL_SECONDS * 1000)
    page.locator(".thebe-cell").first.locator(".thebe-run-button").click()
    output = page.locator("[data-output]").first.locator(".jp-OutputArea-output")
    output.first.wait_for(timeout=KERNEL_SECONDS * 1000)


@pytest.fixture(scope="module")
def axe_script() -> Path:
    if not AXE.exists():
        pytest.fail(f"{AXE.relative_to(REPO_ROOT)} is missing: ./course setup installs it (npm ci)")
    return AXE


@pytest.fixture(scope="module")
def book_audit(
    axe_script: Path, browser: Browser, built: Path, site: str, jupyter: Jupyter
) -> Iterator[dict[str, list[str]]]:
    """Every built page in turn in one tab, each in both schemes: its first question
    answered, and Live Code running on one chapter. What axe finds, and the tree
    pictures' faint text, by kind."""
    visitor = Visitor(browser.new_context(viewport={"width": 1280, "height": 900}), site)
    found: dict[str, list[str]] = {"axe": [], "pictures": [], "pages": []}
    page, problems = visitor.open(jupyter.page("", "book/intro.html"))  # the tab's server
    for path in _built_pages(built):
        page.goto(site + path)
        page.wait_for_load_state("load")
        _answer_first_question(page)
        if path == LIVE_CHAPTER:
            _live_code_running(page)
        for scheme in SCHEMES:
            _in_scheme(page, scheme)
            where = f"{path}, {scheme}"
            found["axe"] += axe_violations(page, where)
            found["pictures"] += faint_svg_text(page, TREE_TEXT, where)
        found["pages"].append(path)
    found["problems"] = problems + visitor.offsite
    yield found
    visitor.context.close()


@pytest.fixture(scope="module")
def class_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return page_of(fixture_class(), tmp_path_factory.mktemp("insight"))


def test_every_built_page_breaks_no_wcag_rule_axe_checks_in_either_scheme(book_audit):
    assert book_audit["axe"] == [], "\n".join(book_audit["axe"])


def test_the_audit_reads_every_page_of_the_book_with_live_code_running(book_audit, built):
    chapters = {f"book/{path.name}" for path in built.glob("book/*.html")}
    assert set(book_audit["pages"]) >= chapters | {LIVE_CHAPTER}
    assert book_audit["problems"] == []


def test_the_tree_pictures_text_has_the_contrast_of_text_in_either_scheme(book_audit):
    assert book_audit["pictures"] == [], "\n".join(book_audit["pictures"])


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_class_page_breaks_no_wcag_rule_axe_checks(axe_script, browser, class_page, scheme):
    opened = open_page(browser, class_page, color_scheme=scheme)
    opened.page.wait_for_load_state("load")
    found = axe_violations(opened.page, f"class page, {scheme}")
    found += faint_svg_text(opened.page, CHART_TEXT, f"class page, {scheme}")
    opened.page.context.close()
    assert found == [], "\n".join(found)


FAULTY = """<!doctype html><html lang="en"><head><title>Faint</title></head><body><main>
<p style="color:#aaaaaa;background:#ffffff">faint words</p>
<svg class="pt-tree" role="img" aria-label="a tree" width="120" height="40">
  <g><rect width="120" height="40" style="fill:#223344"/>
  <text x="10" y="25" style="fill:#334455;font-size:12px">dim</text></g></svg>
</main></body></html>"""


def test_the_checks_name_the_rule_the_element_and_the_faint_picture_text(axe_script, browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_content(FAULTY)
    found = axe_violations(page, "faulty") + faint_svg_text(page, TREE_TEXT, "faulty")
    context.close()
    assert found[0].startswith("color-contrast [faulty] p: ")
    assert "insufficient color contrast" in found[0]
    assert found[1:] == ["faulty: 'dim', #334455 on #223344: 1.29"]
