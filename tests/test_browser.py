"""The built book in a real browser: headless Chromium (Debian's package), driven by Playwright.

The book is served from ``_build/html`` by the server of ``./course serve`` on a free
local port, next to JupyterLab started as ``./course serve`` starts it (with a fresh token,
which the pages get from the address it prints).
The browser may reach nothing but this machine. A screenshot of every page of the
walk through the book (JPEG; close-ups of its first picture and question in PNG) is
written to ``<basetemp>/screenshots/`` (pytest's ``--basetemp DIR``; by default under
the system's temporary folder).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from figure_geometry import Label, Segment, problems
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Route,
)

from autograder.learner import progress
from autograder.load.course import REPO_ROOT, toc_order
from booktools.serve import make_server
from conftest import run_root

pytestmark = [pytest.mark.browser, pytest.mark.slow]

THIS_MACHINE = {"127.0.0.1", "localhost"}
KERNEL_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Visitor:
    """One browser profile: its pages share localStorage, as one learner's visits do.

    It lets requests to this machine through and records, and refuses, all others.
    """

    context: BrowserContext
    site: str
    offsite: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.context.route("**/*", self._only_this_machine)

    def _only_this_machine(self, route: Route) -> None:
        if urlsplit(route.request.url).hostname in THIS_MACHINE:
            route.continue_()
        else:
            self.offsite.append(route.request.url)
            route.abort()

    def open(self, path: str) -> tuple[Page, list[str]]:
        """A new tab on ``path`` of the site, and the list its console errors go to."""
        page = self.context.new_page()
        problems: list[str] = []

        def note(message: ConsoleMessage) -> None:
            if message.type == "error":
                problems.append(message.text)

        page.on("console", note)
        page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
        page.goto(self.site + path)
        return page, problems


# The servers and the browser -------------------------------------------------------


@pytest.fixture(scope="module")
def exercise_record(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """What the learner's own check runs recorded: one function passes, one fails."""
    record = tmp_path_factory.mktemp("record") / "progress.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTREES_PROGRESS", str(record))
        progress.record({"count_leaves": True, "leaves_in_order": False}, "leaves.ipynb")
        yield record


@pytest.fixture(scope="module")
def site(built: Path, exercise_record: Path) -> Iterator[str]:
    """The built book, served as ``./course serve`` serves it, on a free port."""
    server = make_server(built, port=0, log_requests=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@dataclass(frozen=True)
class Jupyter:
    """The learner's JupyterLab: its address, its token, and the book's address that
    ./course serve prints for it (with the token after ``#token=``)."""

    url: str
    token: str
    book_address: str

    def page(self, site: str, path: str) -> str:
        """``path`` of the book as the printed address opens it: pointed at this server."""
        return site + path + "?" + urlsplit(self.book_address).query + f"#token={self.token}"

    def get(self, path: str) -> object:
        request = urllib.request.Request(
            self.url + path, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)


@pytest.fixture(scope="module")
def jupyter(site: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Jupyter]:
    """JupyterLab as ./course serve starts it (python -m booktools.lab), for the book's port."""
    port = _free_port()
    book_port = urlsplit(site).port
    folder = tmp_path_factory.mktemp("jupyter")
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "booktools.lab", "--port", str(port),
         "--book-port", str(book_port), "--root", str(REPO_ROOT)],
        env={**os.environ, "JUPYTER_RUNTIME_DIR": str(folder / "runtime")},
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://localhost:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            printed = (folder / "server.log").read_text()
            try:
                book_address = printed.splitlines()[0].split()[-1]
                token = urlsplit(book_address).fragment.removeprefix("token=")
                server = Jupyter(url, token, book_address)
                server.get("/api/status")
                break
            except (OSError, IndexError):
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("Jupyter did not start:\n" + printed)
                time.sleep(0.5)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _visitor(browser: Browser, site: str) -> Visitor:
    return Visitor(browser.new_context(viewport={"width": 1280, "height": 900}), site)


@pytest.fixture
def visitor(browser: Browser, site: str) -> Iterator[Visitor]:
    """A first-time visitor, with nothing remembered."""
    fresh = _visitor(browser, site)
    yield fresh
    fresh.context.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = run_root(tmp_path_factory) / "screenshots"  # not a worker's folder under xdist
    folder.mkdir(exist_ok=True)
    return folder


# A learner walks through the book ----------------------------------------------------


@dataclass
class Visit:
    page: str  # the page's name, e.g. "book/leaves"
    heading: str
    problems: list[str]
    screenshot: Path
    question: dict[str, str | bool] | None  # what answering the page's first question showed
    close_ups: list[Path]  # the page's first tree picture and its answered first question


def _answer_first_question(page: Page) -> dict[str, str | bool] | None:
    questions = page.locator(".pt-quiz")
    if questions.count() == 0:
        return None
    question = questions.first
    question.locator(".pt-quiz-choice").first.click()
    feedback = question.locator(".pt-quiz-feedback")
    feedback.wait_for(state="visible")
    return {
        "verdict": question.locator(".pt-quiz-verdict").inner_text(),
        "explanation": question.locator(".pt-quiz-explanation").inner_text(),
        "explanation_visible": question.locator(".pt-quiz-explanation").is_visible(),
    }


def _close_ups(page: Page, shot: Path) -> list[Path]:
    """Screenshots of the page's first tree picture and first question, beside ``shot``."""
    saved = []
    for selector, suffix in ((".pt-tree-figure", "picture"), (".pt-quiz", "question")):
        found = page.locator(selector)
        if found.count():
            path = shot.with_name(f"{shot.stem}-{suffix}.png")
            found.first.screenshot(path=path)
            saved.append(path)
    return saved


def _read_to_the_end(page: Page, name: str) -> None:
    page.locator("footer.prev-next-footer").scroll_into_view_if_needed()
    page.wait_for_function(
        "name => localStorage.getItem('pytrees-hands-on:read:' + name) !== null", arg=name
    )


@pytest.fixture(scope="module")
def reader(browser: Browser, site: str) -> Iterator[Visitor]:
    """The learner who walks through the book, then looks at their progress."""
    learner = _visitor(browser, site)
    yield learner
    learner.context.close()


@pytest.fixture(scope="module")
def walk(reader: Visitor, screenshots: Path) -> list[Visit]:
    """From the landing page, every page in turn through its "next" link: on each, answer
    the first question, read to the end, and take a screenshot."""
    page, problems = reader.open("")
    visits: list[Visit] = []
    while True:
        page.wait_for_load_state("networkidle")
        name = page.evaluate("DOCUMENTATION_OPTIONS.pagename")
        question = _answer_first_question(page)
        _read_to_the_end(page, name)
        shot = screenshots / f"{len(visits):02d}-{name.replace('/', '-')}.jpg"
        close_ups = _close_ups(page, shot)
        page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
        # JPEG: a page is up to 20,000 pixels tall, and PNG took a third longer (46 s a walk)
        page.screenshot(path=shot, full_page=True, quality=80)
        heading = page.locator("article h1").first.inner_text()
        visits.append(Visit(name, heading, list(problems), shot, question, close_ups))
        problems.clear()
        following = page.locator("a.right-next")
        if following.count() == 0 or len(visits) > 50:
            break
        with page.expect_navigation():
            following.first.click()
    page.close()
    return visits


def test_the_landing_page_opens_the_introduction(walk):
    assert walk[0].page == "book/intro"
    assert walk[0].heading.startswith("Pytrees Hands-On")


def test_next_links_walk_every_page_of_the_book_in_toc_order(walk):
    assert [visit.page for visit in walk] == ["book/intro"] + [f"book/{c}" for c in toc_order()]


def test_every_chapter_answers_a_question_in_the_page(walk, released_course):
    answered = {visit.page: visit.question for visit in walk if visit.question}
    assert set(answered) >= {f"book/{notebook.id}" for notebook in released_course.notebooks}
    for page, shown in answered.items():
        assert str(shown["verdict"]).startswith(("Right.", "Not quite.")), page
        assert shown["explanation_visible"] and shown["explanation"], page


def test_no_page_logs_a_console_error(walk):
    assert {visit.page: visit.problems for visit in walk if visit.problems} == {}


def test_no_page_asks_for_anything_outside_this_machine(walk, reader):
    assert reader.offsite == []


def test_every_page_of_the_walk_is_saved_as_a_screenshot(walk):
    for visit in walk:
        assert visit.screenshot.read_bytes()[:3] == b"\xff\xd8\xff", visit.page  # a JPEG


def test_every_chapter_is_saved_with_a_close_up_of_its_picture_and_answered_question(
    walk, released_course
):
    chapters = {f"book/{notebook.id}" for notebook in released_course.notebooks}
    close_ups = {visit.page: [p.name for p in visit.close_ups] for visit in walk}
    for page in chapters:
        assert [name.rsplit("-", 1)[1] for name in close_ups[page]] == [
            "picture.png",
            "question.png",
        ], page


# What the progress page remembers ------------------------------------------------------


@pytest.fixture(scope="module")
def progress_visit(walk: list[Visit], reader: Visitor) -> Iterator[tuple[Page, list[str]]]:
    """The progress page, opened in a new tab after the walk: a later visit."""
    page, problems = reader.open("book/progress.html")
    page.locator(".pt-progress-summary").filter(has_text="Read").wait_for()
    yield page, problems
    page.close()


@pytest.fixture
def progress_page(progress_visit: tuple[Page, list[str]]) -> Page:
    return progress_visit[0]


def _row(page: Page, chapter: str):
    return page.locator(f'tr[data-page="book/{chapter}"]')


def test_the_progress_page_remembers_every_chapter_read(progress_page, walk):
    read = progress_page.locator(".pt-progress-read").all_inner_texts()
    assert read and all(text == "✓ read" for text in read)


def test_the_progress_page_counts_the_questions_answered(progress_page, released_course):
    for notebook in released_course.notebooks:
        answered = _row(progress_page, notebook.id).locator(".pt-progress-questions")
        assert answered.inner_text().startswith("1 of "), notebook.id


def test_the_progress_page_logs_no_console_error(progress_visit):
    assert progress_visit[1] == []


def test_the_progress_page_shows_the_functions_check_recorded(progress_page):
    exercise = _row(progress_page, "leaves").locator(".pt-progress-exercise")
    assert "1 of 3 pass" in exercise.inner_text()
    states = {
        item.locator("code").inner_text(): item.get_attribute("data-state")
        for item in exercise.locator("li").all()
    }
    assert states == {
        "count_leaves": "passed",
        "leaves_in_order": "failing",
        "is_leaf_type": "unchecked",
    }


# Live code ---------------------------------------------------------------------------------


def _start_live_code(page: Page) -> None:
    page.locator(".dropdown-launch-buttons .dropdown-toggle").click()
    page.get_by_role("button", name="Live Code").click()


@pytest.fixture(scope="module")
def live(
    browser: Browser, site: str, jupyter: Jupyter
) -> Iterator[tuple[Visitor, Page, list[str]]]:
    """The leaves chapter with live code on, opened as the address ./course serve prints."""
    learner = _visitor(browser, site)
    page, problems = learner.open(jupyter.page("", "book/leaves.html"))
    _start_live_code(page)
    page.locator(".pt-live-code[data-state=ready]").wait_for(timeout=KERNEL_SECONDS * 1000)
    yield learner, page, problems
    learner.context.close()


def _output_after_running(page: Page, index: int, *, edit: str | None = None) -> list[str]:
    """Run the ``index``-th live cell (after typing ``edit`` over its code) and read its output."""
    cell = page.locator(".thebe-cell").nth(index)
    if edit is not None:
        cell.locator(".CodeMirror").click()
        page.keyboard.press("Control+A")
        page.keyboard.type(edit)
    cell.locator(".thebe-run-button").click()
    output = page.locator("[data-output]").nth(index).locator(".jp-OutputArea-output")
    output.first.wait_for(timeout=KERNEL_SECONDS * 1000)
    page.wait_for_timeout(300)  # let the rest of the output arrive
    return output.all_inner_texts()


def test_live_code_runs_a_chapter_cell_on_the_local_jupyter_server(live):
    _, page, _ = live
    shown = "\n".join(_output_after_running(page, 0))
    assert f"jax {importlib.metadata.version('jax')}" in shown


def test_an_edited_cell_runs_the_learners_own_code(live):
    _, page, _ = live
    code = 'import jax; print("leaves:", sum(jax.tree.leaves({"a": 1, "b": [2, 3]})))'
    assert "leaves: 6" in "\n".join(_output_after_running(page, 1, edit=code))


def test_live_code_logs_no_console_error_and_stays_on_this_machine(live):
    learner, page, problems = live
    _output_after_running(page, 0)
    assert problems == []
    assert learner.offsite == []


def test_a_script_in_a_live_output_does_not_run(live):
    _, page, _ = live
    code = (
        "from IPython.display import HTML, Javascript, display\n"
        "display(HTML('<b>shown</b><script>window.ptRan = 1</script>'"
        ' \'<img src="missing.png" onerror="window.ptRan = 2">\'))\n'
        "display(Javascript('window.ptRan = 3'))"
    )
    shown = "\n".join(_output_after_running(page, 2, edit=code))
    page.wait_for_timeout(1000)  # time for a script, had one been let run
    assert "shown" in shown
    assert page.evaluate("typeof window.ptRan") == "undefined"


def test_the_token_leaves_the_address_and_stays_with_the_tab(live, jupyter):
    _, page, _ = live
    assert jupyter.token not in page.url
    kept = json.loads(page.evaluate("sessionStorage.getItem('pytrees-hands-on:jupyter')"))
    assert kept == {"server": jupyter.url, "token": jupyter.token}


def _kernels(jupyter: Jupyter) -> set[str]:
    """The ids of the kernels running on the Jupyter server."""
    return {kernel["id"] for kernel in jupyter.get("/api/kernels")}


def test_leaving_a_live_page_shuts_its_kernel_down(browser, site, jupyter):
    # A context without the request guard: the shutdown request is sent as the page
    # goes away, and Playwright's routing does not pass such a request on.
    context = browser.new_context()
    page = context.new_page()
    page.goto(jupyter.page(site, "book/structure.html"))
    before = _kernels(jupyter)
    _start_live_code(page)
    page.locator(".pt-live-code[data-state=ready]").wait_for(timeout=KERNEL_SECONDS * 1000)
    started = _kernels(jupyter) - before
    assert len(started) == 1
    page.goto(site + "book/intro.html")
    deadline = time.monotonic() + 30
    while started & _kernels(jupyter):
        assert time.monotonic() < deadline, "the kernel of the page left is still running"
        time.sleep(0.3)
    context.close()


def _no_server_message(page: Page) -> str:
    _start_live_code(page)
    message = page.locator(".pt-live-code[data-state=no-server]")
    message.wait_for()
    return message.inner_text()


def test_live_code_without_a_server_says_how_to_start_one(visitor):
    page, _ = visitor.open(f"book/structure.html?jupyter=http://127.0.0.1:{_free_port()}")
    assert "./course serve" in _no_server_message(page)
    assert page.locator(".thebe-cell").count() == 0


EXERCISE_LINK = 'a[href$="/lab/tree/exercises/leaves/leaves.ipynb"]'


def test_a_chapters_jupyterlab_link_opens_the_server_the_page_uses(visitor):
    server = f"http://127.0.0.1:{_free_port()}"
    page, _ = visitor.open(f"book/leaves.html?jupyter={server}")
    href = page.locator(EXERCISE_LINK).get_attribute("href")
    assert href == f"{server}/lab/tree/exercises/leaves/leaves.ipynb"


def test_a_chapters_jupyterlab_link_opens_port_8888_when_the_page_names_no_server(visitor):
    page, _ = visitor.open("book/leaves.html")
    href = page.locator(EXERCISE_LINK).get_attribute("href")
    assert href == "http://localhost:8888/lab/tree/exercises/leaves/leaves.ipynb"


def test_a_tab_keeps_the_server_it_was_pointed_at_from_page_to_page(visitor):
    server = f"http://127.0.0.1:{_free_port()}"
    page, _ = visitor.open(f"book/intro.html?jupyter={server}")
    with page.expect_navigation():
        page.locator("a.right-next").first.click()
    assert "jupyter=" not in page.url
    assert server in _no_server_message(page)


@pytest.mark.parametrize(
    "server",
    [
        "http://evil.example:8888",
        "https://localhost:8888",
        "http://localhost:8888@evil.example",
        "http://localhost.evil.example:8888",
        "http://192.168.1.2:8888",
        "javascript:alert(1)",
    ],
)
def test_a_jupyter_server_off_this_machine_is_refused_in_the_page(visitor, server):
    page, _ = visitor.open("book/structure.html?" + urlencode({"jupyter": server}))
    _start_live_code(page)
    message = page.locator(".pt-live-code[data-state=refused]")
    message.wait_for()
    assert server in message.inner_text() and "./course serve" in message.inner_text()
    assert page.locator(".thebe-cell").count() == 0
    assert visitor.offsite == []


def test_a_stored_server_off_this_machine_is_not_used(visitor):
    page, _ = visitor.open("book/structure.html")
    page.evaluate(
        "sessionStorage.setItem('pytrees-hands-on:jupyter',"
        " JSON.stringify({server: 'http://evil.example:8888', token: 'x'}))"
    )
    page.reload()
    assert "evil.example" not in _no_server_message(page)
    assert visitor.offsite == []


def test_a_token_goes_only_to_the_server_it_came_with(visitor, jupyter, site):
    page, _ = visitor.open(jupyter.page("", "book/intro.html"))
    other = f"http://127.0.0.1:{_free_port()}"
    sent: list[dict[str, str]] = []
    visitor.context.on(
        "request",
        lambda request: sent.append(request.headers) if request.url.startswith(other) else None,
    )
    page.goto(f"{site}book/structure.html?jupyter={other}")
    _no_server_message(page)
    assert sent, "the page was expected to look for the server it was pointed at"
    assert [headers for headers in sent if jupyter.token in json.dumps(headers)] == []


# Tree pictures ---------------------------------------------------------------------------

# Every tree picture of the page as the browser lays it out: each text's box (getBBox)
# and each line's ends, in the picture's coordinates, and how far the picture's centre
# is from its caption's (0 when the picture is wider than the page and scrolls).
MEASURE_PICTURES = """
() => Array.from(document.querySelectorAll('figure.pt-tree-figure')).map(figure => {
  const svg = figure.querySelector('svg.pt-tree');
  const labels = Array.from(svg.querySelectorAll('text')).map(text => {
    const box = text.getBBox();
    return {text: text.textContent, x: box.x, y: box.y, width: box.width, height: box.height};
  });
  const lines = Array.from(svg.querySelectorAll('path, line')).map(line => {
    const start = line.getPointAtLength(0);
    const end = line.getPointAtLength(line.getTotalLength());
    return [start.x, start.y, end.x, end.y];
  });
  const shown = svg.getBoundingClientRect();
  const under = (figure.querySelector('figcaption') || figure).getBoundingClientRect();
  const centre = rect => (rect.left + rect.right) / 2;
  const fits = shown.width <= figure.clientWidth;
  return {name: svg.querySelector('title').textContent, labels, lines,
          offCentre: fits ? Math.abs(centre(shown) - centre(under)) : 0};
})
"""


def _picture_problems(picture: dict) -> list[str]:
    labels = [Label(**label) for label in picture["labels"]]
    segments = [Segment(*line) for line in picture["lines"]]
    found = problems(labels, segments)
    if picture["offCentre"] > 2:
        found.append(f"it is {picture['offCentre']:.0f}px off its caption's centre")
    return found


@pytest.mark.parametrize("page", ["intro", *toc_order()])
def test_no_tree_picture_has_labels_that_overlap_or_lines_through_them(visitor, built, page):
    view, _ = visitor.open(f"book/{page}.html")
    view.evaluate("document.fonts.ready.then(() => true)")
    pictures = view.evaluate(MEASURE_PICTURES)
    drawn = (built / "book" / f"{page}.html").read_text(encoding="utf-8").count('class="pt-tree"')
    assert len(pictures) == drawn
    found = [
        f"book/{page}, picture {number} ({picture['name'][:60]}): {problem}"
        for number, picture in enumerate(pictures, start=1)
        for problem in _picture_problems(picture)
    ]
    assert found == [], "\n".join(found)


# The theme and search ------------------------------------------------------------------------


def _background_lightness(page: Page) -> float:
    colour = page.evaluate("getComputedStyle(document.body).backgroundColor")
    red, green, blue = (int(part) for part in colour[colour.index("(") + 1 : -1].split(",")[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def _switch_theme_to(page: Page, theme: str) -> None:
    switch = page.locator(".theme-switch-button:visible").first
    for _ in range(3):
        if page.evaluate("document.documentElement.dataset.theme") == theme:
            return
        switch.click()
    assert page.evaluate("document.documentElement.dataset.theme") == theme


def test_the_theme_switch_turns_the_page_dark_and_back(visitor):
    page, problems = visitor.open("book/leaves.html")
    _switch_theme_to(page, "dark")
    assert _background_lightness(page) < 0.2
    _switch_theme_to(page, "light")
    assert _background_lightness(page) > 0.8
    assert problems == []


def test_searching_aux_data_lands_on_the_aux_data_chapter(visitor):
    page, problems = visitor.open("book/intro.html")
    page.locator(".search-button__button:visible").first.click()
    field = page.locator("input[name=q]:visible").first
    field.fill("aux_data")
    with page.expect_navigation():
        field.press("Enter")
    result = page.locator("#search-results a[href*='aux_data.html']").first
    result.wait_for()
    with page.expect_navigation():
        result.click()
    assert urlsplit(page.url).path.endswith("/book/aux_data.html")
    assert page.locator("article h1").first.inner_text().startswith("aux_data")
    assert problems == []
