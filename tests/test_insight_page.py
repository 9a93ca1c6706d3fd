"""A class's page of insight, written by the real CLI and opened in headless Chromium.

The page is opened from ``file://``, as an instructor opens it from an email. The
numbers it shows are compared with numbers worked out by hand for a small class of
five learners built here, not with what the grader's own statistics compute.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Route

from autograder.load.course import REPO_ROOT
from autograder.report.insight.command import read_reports, write_page
from autograder.report.model import (
    ExerciseResult,
    Report,
    StudentResult,
    TestPointer,
    TestResult,
)
from conftest import Graded, run_cli

pytestmark = pytest.mark.browser

SCREENSHOT = REPO_ROOT / "_build" / "test-artifacts" / "insight-misconceptions-top.png"

# The class ---------------------------------------------------------------------------

HOSTILE = (
    '<img src=x onerror="window.__pwned=1">Eve & "Bob" =1+1 $x$ <script>window.__pwned=2</script>'
)
HOSTILE_MESSAGE = (
    "Reread Leaves → Flattening order: expected [1, 2], got "
    '\'<img src=x onerror="window.__pwned=3"> & =SUM(A1) $\\alpha$ '
    "<script>window.__pwned=4</script>'"
)
NAMES = ("Amara Okafor", "Bruno Díaz", "Chen Wei", "Dmitri Volkov", HOSTILE)

# Each function has a visible test and a hidden one, worth these points.
POINTS = {
    "count_leaves": (1, 1),
    "leaves_in_order": (1, 2),
    "same_structure": (1, 1),
    "replace_leaves": (1, 2),
}
CHAPTER = {
    "count_leaves": "leaves",
    "leaves_in_order": "leaves",
    "same_structure": "structure",
    "replace_leaves": "structure",
}

ORDER = TestPointer("leaves#flattening-order", "leaves", "Flattening order", "flattening-order")
NONE_NODE = TestPointer("leaves#none-is-a-node", "leaves", "None is a node", "none-is-a-node")
COMPARING = TestPointer(
    "structure#comparing-structures", "structure", "Comparing structures", "comparing-structures"
)
UNFLATTEN = TestPointer(
    "structure#what-unflatten-checks", "structure", "What unflatten checks", "what-unflatten-checks"
)
# An explained error sends the learner to the same section under the error's own id.
TOO_FEW_LEAVES = TestPointer(
    "wrong-number-of-leaves", "structure", "What unflatten checks", "what-unflatten-checks"
)


def _exercise(function: str, tests: list[TestResult], hints: int = 0) -> ExerciseResult:
    return ExerciseResult(
        notebook=f"{CHAPTER[function]}.ipynb",
        name=function,
        max_score=sum(POINTS[function]),
        tests=tests,
        hints_opened=hints,
    )


def _test(
    function: str,
    hidden: bool,
    outcome: str = "passed",
    message: str = "",
    kind: str = "",
    pointer: TestPointer | None = None,
) -> TestResult:
    worth = POINTS[function][hidden]
    return TestResult(
        name=f"test_{function}{'_hidden' if hidden else ''}",
        outcome=outcome,
        points=worth if outcome == "passed" else 0,
        max_points=worth,
        message=message,
        hidden=hidden,
        visible_passed=outcome == "passed" if not hidden else None,
        kind=kind,
        pointer=pointer,
    )


def passed(function: str, hints: int = 0) -> ExerciseResult:
    return _exercise(function, [_test(function, False), _test(function, True)], hints)


def partly(function: str, pointer: TestPointer, message: str, hints: int = 0) -> ExerciseResult:
    """The visible test passes, the hidden one fails its check."""
    failed = _test(function, True, "failed", message, "failed-check", pointer)
    return _exercise(function, [_test(function, False), failed], hints)


def both_fail(
    function: str, outcome: str, kind: str, *said: tuple[str, TestPointer | None], hints: int = 0
) -> ExerciseResult:
    """Both tests end in ``outcome``; ``said`` gives each one's message and pointer."""
    (visible, visible_pointer), (hidden, hidden_pointer) = said
    return _exercise(
        function,
        [
            _test(function, False, outcome, visible, kind, visible_pointer),
            _test(function, True, outcome, hidden, kind, hidden_pointer),
        ],
        hints,
    )


def not_handed_in(function: str) -> ExerciseResult:
    said = f"{CHAPTER[function]}.ipynb was not found in the submission."
    return both_fail(function, "missing", "missing", (said, None), (said, None))


def fixture_class() -> Report:
    """Five learners, two chapters, four functions; totals out of 10 in brackets."""
    return Report(
        [
            # in the report's order: a grader's report sorts names, and "<" sorts first
            StudentResult(  # 2 + 1 + 2 + 3 = 8
                HOSTILE,
                [
                    passed("count_leaves"),
                    partly("leaves_in_order", ORDER, HOSTILE_MESSAGE, hints=2),
                    passed("same_structure"),
                    passed("replace_leaves"),
                ],
            ),
            StudentResult(  # 2 + 3 + 2 + 3 = 10
                "Amara Okafor",
                [
                    passed("count_leaves", hints=1),
                    passed("leaves_in_order"),
                    passed("same_structure"),
                    passed("replace_leaves"),
                ],
            ),
            StudentResult(  # 2 + 1 + 1 + 0 = 4
                "Bruno Díaz",
                [
                    passed("count_leaves"),
                    partly("leaves_in_order", ORDER, "Reread Leaves → Flattening order: sorted?"),
                    partly("same_structure", COMPARING, "Reread Structure → Comparing structures"),
                    both_fail(
                        "replace_leaves",
                        "error",
                        "error",
                        ("ValueError: Too few leaves for PyTreeDef", TOO_FEW_LEAVES),
                        ("ValueError: Too few leaves for PyTreeDef", TOO_FEW_LEAVES),
                    ),
                ],
            ),
            StudentResult(  # 0 + 3 + 0 + 3 = 6
                "Chen Wei",
                [
                    both_fail(
                        "count_leaves",
                        "failed",
                        "failed-check",
                        ("Reread Leaves → None is a node", NONE_NODE),
                        ("Reread Leaves → Flattening order", ORDER),
                        hints=3,
                    ),
                    passed("leaves_in_order"),
                    both_fail(
                        "same_structure",
                        "timeout",
                        "timeout",
                        ("same_structure did not return in 10 s", None),
                        ("same_structure did not return in 10 s", None),
                    ),
                    passed("replace_leaves", hints=1),
                ],
            ),
            StudentResult(  # no leaves notebook: 0 + 0 + 2 + 1 = 3
                "Dmitri Volkov",
                [
                    not_handed_in("count_leaves"),
                    not_handed_in("leaves_in_order"),
                    passed("same_structure"),
                    partly("replace_leaves", UNFLATTEN, "Reread Structure → What unflatten checks"),
                ],
            ),
        ],
        isolation="bubblewrap",
    )


# Totals in percent, in the report's order: 80, 100, 40, 60, 30.


# The page in the browser -----------------------------------------------------------


@dataclass
class Opened:
    """A page opened from a file, with what went wrong and every request it made."""

    page: Page
    problems: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def value(self, selector: str) -> str:
        return self.page.locator(selector).get_attribute("data-value") or ""

    def values(self, selector: str) -> list[str]:
        return self.page.locator(selector).evaluate_all("cells => cells.map(c => c.dataset.value)")

    def numbers(self, selector: str) -> list[float]:
        return [float(value) for value in self.values(selector)]

    def texts(self, selector: str) -> list[str]:
        return self.page.locator(selector).all_text_contents()


def open_page(browser: Browser, html: Path, color_scheme: str = "light") -> Opened:
    """Open ``html`` in a fresh profile; a request for anything but a file or data is refused."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme=color_scheme
    )
    page = context.new_page()
    opened = Opened(page)

    def note(message: ConsoleMessage) -> None:
        if message.type == "error":
            opened.problems.append(message.text)

    def refuse(route: Route) -> None:
        opened.refused.append(route.request.url)
        route.abort()

    def record(request: Request) -> None:
        opened.requests.append(request.url)

    page.on("console", note)
    page.on("pageerror", lambda error: opened.problems.append(f"uncaught: {error}"))
    page.on("request", record)
    context.route(lambda url: not _is_offline(url), refuse)
    page.goto(html.as_uri())
    return opened


def page_of(report: Report, folder: Path, *extra: str) -> Path:
    """The page of ``report``, written by the CLI from its JSON report."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "report.json"
    source.write_text(report.to_json(), encoding="utf-8")
    html = folder / "page.html"
    done = run_cli("insight", source, "--html", html, *extra)
    assert done.returncode == 0, done.stderr
    return html


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return page_of(fixture_class(), tmp_path_factory.mktemp("insight"))


@pytest.fixture
def opened(browser: Browser, page_file: Path) -> Iterator[Opened]:
    shown = open_page(browser, page_file)
    yield shown
    shown.page.context.close()


def _is_offline(url: str) -> bool:
    return url.startswith(("file:", "data:"))


# Renders alone -----------------------------------------------------------------------


def test_the_page_renders_with_no_console_error_and_no_page_error(opened):
    opened.page.wait_for_load_state("load")
    assert opened.problems == []


def test_the_page_asks_nothing_of_another_machine(opened):
    opened.page.wait_for_load_state("load")
    assert opened.requests, "the page's own request was not recorded"
    assert [url for url in opened.requests if not _is_offline(url)] == []
    assert opened.refused == []


# The numbers, worked out by hand ---------------------------------------------------


def test_the_summary_gives_the_learners_and_their_mean_and_median(opened):
    assert opened.value("#learner-count") == "5"
    assert opened.value("#mean-score") == "62.0"  # (80 + 100 + 40 + 60 + 30) / 5
    assert opened.value("#median-score") == "60.0"  # the middle of 30, 40, 60, 80, 100


def test_the_sections_to_reteach_come_most_learners_first(opened):
    rows = "#reteach-table tbody tr"
    anchors = opened.page.locator(rows).evaluate_all("rows => rows.map(r => r.dataset.anchor)")
    # flattening order: the hostile learner and Bruno (leaves_in_order), Chen (count_leaves);
    # what unflatten checks: Bruno (an error) and Dmitri; then one learner each, by chapter
    assert anchors == [
        "flattening-order",
        "what-unflatten-checks",
        "none-is-a-node",
        "comparing-structures",
    ]
    assert opened.values(f"{rows} td.num") == ["3", "2", "1", "1"]


def test_a_section_to_reteach_names_its_functions_with_their_learners(opened):
    through = '#reteach-table tr[data-anchor="flattening-order"] [data-function]'
    functions = opened.page.locator(through).evaluate_all(
        "spans => spans.map(s => [s.dataset.function, s.dataset.value])"
    )
    assert functions == [["leaves_in_order", "2"], ["count_leaves", "1"]]


def test_a_section_to_reteach_links_into_the_book(opened):
    link = opened.page.locator('#reteach-table tr[data-anchor="none-is-a-node"] a')
    assert link.get_attribute("href").endswith("/book/leaves.html#none-is-a-node")


def test_the_functions_come_hardest_first(opened):
    names = opened.page.locator("#functions-table tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.function)"
    )
    # passed among those who handed it in: 2 of 4, 3 of 5 (mean 66.7%), 3 of 5 (70%), 3 of 4
    assert names == ["leaves_in_order", "replace_leaves", "same_structure", "count_leaves"]


# Each function's shares of the learners who started it, how many learners did not hand
# it in, and the median score of those who started it.
FUNCTIONS = {
    # scores 1, 3, 1, 3 of 3 (median 2), and one did not hand it in
    "leaves_in_order": {"passed": 0.5, "partial": 0.5, "absent": 1, "median": "2"},
    # scores 3, 3, 0, 3, 1 of 3: one raised an error
    "replace_leaves": {"passed": 0.6, "partial": 0.2, "raised": 0.2, "median": "3"},
    # scores 2, 2, 1, 0, 2 of 2: one timed out
    "same_structure": {"passed": 0.6, "partial": 0.2, "timeout": 0.2, "median": "2"},
    # scores 2, 2, 2, 0 of 2: one failed, and one did not hand it in
    "count_leaves": {"passed": 0.75, "failed": 0.25, "absent": 1, "median": "2"},
}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_shows_its_shares_and_median(opened, function):
    row = f'#functions-table tr[data-function="{function}"]'
    shares = opened.page.locator(f"{row} [data-group]").evaluate_all(
        "cells => Object.fromEntries(cells.map(c => [c.dataset.group, Number(c.dataset.value)]))"
    )
    expected = FUNCTIONS[function]
    groups = ("passed", "partial", "failed", "raised", "timeout", "not-started", "absent")
    assert shares == {group: expected.get(group, 0.0) for group in groups}
    assert float(opened.value(f'{row} [data-name="median"]')) == float(expected["median"])


def test_five_learners_are_too_few_for_a_discrimination(opened):
    cells = opened.texts('#functions-table [data-name="discrimination"]')
    assert cells == ["too few learners"] * 4


@pytest.fixture(scope="module")
def thrice_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of the class three times over: each learner's scores and total three times
    give the same correlations, with at least 12 learners who started each function."""
    report = fixture_class()
    report.students = [
        replace(student, student=f"{student.student} {copy}")
        for copy in range(3)
        for student in fixture_class().students
    ]
    return page_of(report, tmp_path_factory.mktemp("thrice"))


def test_discrimination_is_the_correlation_of_a_functions_score_with_the_total(
    browser, thrice_file
):
    # Over the learners who started the function: Dmitri did not hand in leaves.
    # count_leaves, in percent: x = 100, 100, 100, 0; totals y = 80, 100, 40, 60.
    # Means 75 and 70; x - 75 = 25, 25, 25, -75; y - 70 = 10, 30, -30, -10.
    # Σ(dx·dy) = 250 + 750 - 750 + 750 = 1000; Σdx² = 3·625 + 5625 = 7500;
    # Σdy² = 100 + 900 + 900 + 100 = 2000; r = 1000 / √(7500 · 2000) = 0.2582.
    # The others alike, on points (r does not change with the scale): leaves_in_order
    # x = 1, 3, 1, 3: 40 / √(4 · 2000) = 0.4472; over all five (totals 80, 100, 40,
    # 60, 30, mean 62): replace_leaves 130 / √(8 · 3280) = 0.8025; same_structure
    # 26 / √(3.2 · 3280) = 0.2538.
    cells = '#functions-table tr[data-function="{}"] [data-name="discrimination"]'
    opened = open_page(browser, thrice_file)
    try:
        shown = {f: opened.value(cells.format(f)) for f in FUNCTIONS}
    finally:
        opened.page.context.close()
    assert shown == {
        "count_leaves": "25.8",
        "leaves_in_order": "44.7",
        "replace_leaves": "80.3",
        "same_structure": "25.4",
    }


def test_the_hints_table_counts_who_opened_a_hint_and_who_passed(opened):
    rows = opened.page.locator("#hints-table tbody tr").evaluate_all(
        """rows => rows.map(r => [r.dataset.function,
            ...["opened", "passed-with", "passed-without"].map(
                name => r.querySelector(`[data-name="${name}"]`).dataset.value)])"""
    )
    # leaves_in_order: the hostile learner opened two and earned part; Amara and Chen passed
    # without. replace_leaves: Chen opened one and passed; the hostile learner and Amara
    # passed without. count_leaves: Amara (passed) and Chen (failed) opened some; the
    # hostile learner and Bruno passed without. No one opened a hint of same_structure.
    assert rows == [
        ["leaves_in_order", "1", "0", "2"],
        ["replace_leaves", "1", "1", "2"],
        ["count_leaves", "2", "1", "2"],
    ]


def test_each_learner_has_their_score(opened):
    names = opened.texts('#learners-table [data-name="learner"]')
    scores = opened.numbers('#learners-table [data-name="score"]')
    percents = opened.numbers('#learners-table [data-name="percent"]')
    assert list(zip(names, scores, percents, strict=True)) == [
        (HOSTILE, 8, 80),
        ("Amara Okafor", 10, 100),
        ("Bruno Díaz", 4, 40),
        ("Chen Wei", 6, 60),
        ("Dmitri Volkov", 3, 30),
    ]


# Hostile text stays text -----------------------------------------------------------


def test_a_hostile_name_is_shown_as_text(opened):
    cell = opened.page.locator('#learners-table [data-name="learner"]').first
    assert cell.text_content() == HOSTILE
    assert cell.evaluate("cell => cell.children.length") == 0


def test_a_hostile_message_is_shown_as_text(opened):
    example = opened.page.locator('#reteach-table tr[data-anchor="flattening-order"] .example')
    assert example.text_content() == HOSTILE_MESSAGE
    assert example.evaluate("cell => cell.children.length") == 0


def test_no_hostile_text_made_an_element_or_ran(opened):
    opened.page.wait_for_load_state("load")
    assert opened.page.locator("img").count() == 0
    assert opened.page.locator("script").count() == 1  # the page's own sorting script
    assert opened.page.evaluate("typeof window.__pwned") == "undefined"


# Sorting ---------------------------------------------------------------------------


def test_the_learners_sort_by_score_and_back(opened):
    header = opened.page.locator("#learners-table thead th", has_text="Score").locator("button")
    scores = '#learners-table tbody [data-name="score"]'
    header.click()
    assert opened.numbers(scores) == [3, 4, 6, 8, 10]
    header.click()
    assert opened.numbers(scores) == [10, 8, 6, 4, 3]


# Charts ----------------------------------------------------------------------------


def test_every_chart_has_a_title_and_a_text_alternative(opened):
    charts = opened.page.locator("svg").evaluate_all(
        """svgs => svgs.map(svg => [
            svg.querySelector(':scope > title')?.textContent.trim() ?? '',
            svg.querySelector(':scope > desc')?.textContent.trim() ?? ''])"""
    )
    assert len(charts) == 3  # outcomes, total scores, scores per chapter
    assert [chart for chart in charts if not all(chart)] == []


def _chart_text_lightness(opened: Opened) -> list[float]:
    """The lightness (0 black, 1 white) of every text of the outcome chart, as drawn."""
    return opened.page.locator("#functions figure svg text").evaluate_all(
        """texts => texts.map(t => {
            const [r, g, b] = getComputedStyle(t).fill.match(/\\d+/g).map(Number);
            return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
        })"""
    )


def test_a_charts_text_is_light_in_a_dark_theme(browser, page_file):
    opened = open_page(browser, page_file, color_scheme="dark")
    try:
        lightness = _chart_text_lightness(opened)
    finally:
        opened.page.context.close()
    assert lightness and min(lightness) > 0.6


def test_a_charts_text_is_dark_in_a_light_theme(opened):
    lightness = _chart_text_lightness(opened)
    assert lightness and max(lightness) < 0.4


# Pseudonyms ------------------------------------------------------------------------


# Every text of the page but its script's and style's source, charts' text included.
SHOWN_TEXT = """() => {
    const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
    const parts = [];
    while (walker.nextNode()) {
        const parent = walker.currentNode.parentElement.tagName.toLowerCase();
        if (parent !== "script" && parent !== "style") parts.push(walker.currentNode.data);
    }
    return parts.join(" ");
}"""


def _learners(browser: Browser, html: Path) -> tuple[dict[str, str], str, str]:
    """The names the page shows by score, the page's whole text, and its file's text."""
    opened = open_page(browser, html)
    try:
        names = opened.texts('#learners-table [data-name="learner"]')
        scores = opened.values('#learners-table [data-name="score"]')
        text = opened.page.evaluate(SHOWN_TEXT)
    finally:
        opened.page.context.close()
    return dict(zip(scores, names, strict=True)), text, html.read_text(encoding="utf-8")


def test_an_anonymised_page_shows_no_name(browser, tmp_path):
    shown, text, source = _learners(browser, page_of(fixture_class(), tmp_path, "--anonymise"))
    assert len(set(shown.values())) == 5
    assert [name for name in NAMES if name in text] == []
    assert [name for name in NAMES if name in source] == []
    assert "Eve" not in text


def test_an_anonymised_page_gives_a_name_the_same_pseudonym_each_time(browser, tmp_path):
    reordered = fixture_class()
    reordered.students.reverse()
    first, _, _ = _learners(browser, page_of(fixture_class(), tmp_path / "one", "--anonymise"))
    second, _, _ = _learners(browser, page_of(reordered, tmp_path / "two", "--anonymise"))
    assert first == second


# The misconception class -----------------------------------------------------------


@pytest.mark.slow
def test_the_misconception_classs_page_is_written_in_time_and_shows_sections_to_reteach(
    browser: Browser, graded_cases: Graded, tmp_path: Path
):
    assert graded_cases.report is not None, graded_cases.stderr
    source = tmp_path / "report.json"
    source.write_text(json.dumps(graded_cases.report), encoding="utf-8")
    html = tmp_path / "misconceptions.html"
    done = run_cli("insight", source, "--html", html)
    assert done.returncode == 0, done.stderr
    # the writing alone, as the command does it, without the interpreter's start-up or
    # the reading; the faster of two, as the machine may be busy with other work
    report = read_reports([source])
    seconds = min(_seconds_to_write(report, tmp_path / "timed.html") for _ in range(2))
    opened = open_page(browser, html)
    try:
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        opened.page.screenshot(path=SCREENSHOT)
        rows = opened.page.locator("#reteach-table tbody tr").count()
    finally:
        opened.page.context.close()
    assert opened.problems == []
    assert [url for url in opened.requests if not _is_offline(url)] == []
    assert rows > 0
    assert seconds < 2, f"the page took {seconds:.2f} s to write"


def _seconds_to_write(report: Report, html: Path) -> float:
    started = time.perf_counter()
    write_page(html, report, ["report.json"])
    return time.perf_counter() - started


def test_the_outcome_chart_leaves_out_the_functions_no_learner_started(tmp_path):
    untouched = _exercise(
        "replace_leaves",
        [
            _test("replace_leaves", False, "not-started", kind="not-started"),
            _test("replace_leaves", True, "not-started", kind="not-started"),
        ],
    )
    report = Report(
        [
            StudentResult("ada", [passed("count_leaves"), untouched]),
            StudentResult("bo", [partly("count_leaves", ORDER, "sorted?"), untouched]),
        ],
        "process",
    )
    html = tmp_path / "class.html"
    write_page(html, report, ["report.json"])
    figure = html.read_text(encoding="utf-8").split("How each function ended", 1)[1]
    figure = figure.split("</figure>", 1)[0]
    assert "leaves.count_leaves" in figure
    assert "structure.replace_leaves" not in figure
    assert "The 1 function no learner started is left out." in figure
