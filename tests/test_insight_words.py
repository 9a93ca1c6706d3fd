"""What a class's page says in words, read from its HTML: how many learners started each
function, what it cannot tell a small class, each learner's chapters not started and
files not graded, and how the grader ran, out of the first view."""

from __future__ import annotations

from html.parser import HTMLParser

from autograder.load.handed_in import NotebookFile
from autograder.report.insight.page import class_page
from autograder.report.insight.stats import DISCRIMINATION_LEARNERS
from autograder.report.model import ExerciseResult, Report, StudentResult, TestResult

VOID = {"meta", "br", "img", "input", "link", "hr"}
DAMAGED = NotebookFile("custom_nodes.ipynb", "custom_nodes", False, "damaged: re-save it")


class _Elements(HTMLParser):
    """Every element's attributes with its whole text, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[int, dict[str, str | None], str]] = []
        self._open: list[tuple[str, int, dict[str, str | None], list[str]]] = []
        self._started = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self._open.append((tag, self._started, dict(attrs), []))
            self._started += 1

    def handle_data(self, data: str) -> None:
        for *_, parts in self._open:
            parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            name, started, attrs, parts = self._open.pop()
            self.found.append((started, attrs, " ".join("".join(parts).split())))
            if name == tag:
                return


def texts(html: str, **attrs: str) -> list[str]:
    """The text of each element whose attributes include ``attrs`` (``data_name`` for
    ``data-name``), in document order."""
    wanted = {key.replace("_", "-"): value for key, value in attrs.items()}
    parser = _Elements()
    parser.feed(html)
    matching = [
        (started, text)
        for started, found, text in parser.found
        if all(found.get(key) == value for key, value in wanted.items())
    ]
    return [text for _, text in sorted(matching)]


def exercise(notebook: str, name: str, outcome: str) -> ExerciseResult:
    earned = 1.0 if outcome == "passed" else 0.0
    return ExerciseResult(notebook, name, 1.0, [TestResult("t", outcome, earned, 1.0)])


def learner(name: str, *outcomes: str, files: list[NotebookFile] | None = None) -> StudentResult:
    """A learner whose ``leaves`` functions f and g, and ``structure`` function h, ended
    as ``outcomes`` say."""
    where = [("leaves.ipynb", "f"), ("leaves.ipynb", "g"), ("structure.ipynb", "h")]
    exercises = [exercise(nb, fn, out) for (nb, fn), out in zip(where, outcomes, strict=True)]
    return StudentResult(name, exercises, files=files)


def small_class(isolation: str = "bubblewrap", processes: str = "128 tasks (cgroup)") -> Report:
    return Report(
        [
            learner("ada", "passed", "failed", "passed"),
            learner("bob", "failed", "passed", "not-started", files=[DAMAGED]),
            learner("cy", "passed", "passed", "failed"),
        ],
        isolation,
        processes,
    )


def page(report: Report, anonymise: bool = False) -> str:
    return class_page(report, ["report.json"], "book", anonymise=anonymise)


def test_each_function_says_how_many_learners_started_it():
    shown = page(small_class())
    assert texts(shown, data_name="started")[-3:] == ["2 of 3", "3 of 3", "3 of 3"]


def test_a_function_not_started_is_counted_apart_and_not_as_failed():
    # h: ada passed, cy failed, bob did not start it: half of those who started it failed
    shown = page(small_class())
    failed = texts(shown, data_group="failed")
    not_started = texts(shown, data_group="not-started")
    assert (failed[0], not_started[0]) == ("50%", "1")


def test_with_too_few_learners_the_page_says_so_instead_of_a_discrimination():
    shown = page(small_class())
    assert set(texts(shown, data_name="discrimination")) == {"too few learners"}


def test_with_enough_learners_the_page_shows_the_discrimination():
    students = [
        learner(f"l{i}", *(["passed"] * 3 if i % 3 else ["failed"] * 3))
        for i in range(DISCRIMINATION_LEARNERS)
    ]
    shown = page(Report(students, "bubblewrap"))
    assert set(texts(shown, data_name="discrimination")) == {"100%"}


def test_with_no_hint_opened_the_hints_section_says_so_in_a_sentence():
    shown = page(small_class())
    assert texts(shown, id="no-hints") == ["No learner's notebook records a hint opened."]
    assert texts(shown, id="hints-table") == []


def test_a_learners_row_names_a_damaged_file_and_what_to_do():
    shown = page(small_class())
    assert texts(shown, data_name="files") == [
        "—",
        "not graded custom_nodes.ipynb (damaged: re-save it)",
        "—",
    ]


def test_a_learners_row_names_the_chapters_not_started():
    shown = page(small_class())
    assert texts(shown, data_name="not-started") == ["not started: Structure"]


def test_each_chapter_says_how_many_handed_it_in_and_started_it_and_their_mean():
    shown = page(small_class())
    structure = texts(shown, data_chapter="structure")
    assert structure[-1].split() == ["Structure", "3", "of", "3", "2", "of", "3", "50%"]


def test_how_the_grader_ran_is_folded_at_the_foot_of_the_page():
    shown = page(small_class())
    assert "128 tasks" not in texts(shown, id="summary")[0]
    assert texts(shown, id="settings") == [
        "How the grader ran isolation: bubblewrap, processes: 128 tasks (cgroup), seed: 0."
    ]


def test_isolation_weaker_than_bubblewrap_is_said_at_the_top():
    shown = page(small_class("process", "not capped"))
    assert texts(shown, id="caveats") == ["Graded with isolation: process, processes: not capped."]
