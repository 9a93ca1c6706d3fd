"""A semester, end to end, as an instructor runs it mid-course.

The course is released (``release``); each learner's git repository is made from the
release, as a template repository gives them one, and holds what a class holds
mid-course; the instructor collects them (``collect``) and grades them with every
output (``grade``). The tests read what each output says about each learner.

The class, in the course's order of chapters:

- ada solved the first two chapters and left the others untouched;
- bob answered two of Mapping's five functions, one of Leaves right and two wrong
  (one returns a wrong number, one misreads ``None``);
- carol solved aux_data in a copy (``aux_data-Copy1.ipynb``) beside the untouched
  original, and her Custom nodes notebook was cut off while saving;
- dan's repository is empty: he never pushed;
- eve started nothing: her repository is the release as she got it.

Expected scores are worked out from the points the course declares. The class is built
and graded once for the module; each test reads one behaviour from the outputs.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Locator
from test_insight_page import Opened, open_page

from autograder.author.seal import MARKERS
from autograder.load.book import chapter_titles
from autograder.load.course import REPO_ROOT, SOLUTIONS, Course
from conftest import run_cli, write_variant
from misconceptions.leaves import CASES as LEAVES_CASES

pytestmark = pytest.mark.slow

SCREENSHOT = REPO_ROOT / "_build" / "test-artifacts" / "semester-class-page.png"
LEARNERS = ("ada", "bob", "carol", "dan", "eve")
EMPTY = "dan"
COLLECTED = ("ada", "bob", "carol", "eve")

ADA_SOLVED = ("leaves", "structure")
BOB_ANSWERED = {"leaves": ("leaves_in_order",), "mapping": ("ones_from_shapes", "global_norm")}
BOB_WRONG = {
    # Counts the leaves but ignores none_is_leaf: the visible test's second call returns 2
    # where it should return 3.
    "count_leaves": """
def count_leaves(tree, *, none_is_leaf=False):
    return len(jax.tree.leaves(tree))
""",
    # Takes None for a leaf: the visible test sends the learner to Leaves → None is a node.
    "is_leaf_type": next(
        case["source"]
        for case in LEAVES_CASES
        if case["function"] == "is_leaf_type"
        and case["teaches"] == "Reread Leaves → None is a node"
        and "visible_passes" not in case
    ),
}
CAROL_SOLVED = "aux_data"
CAROL_COPY = "exercises/aux_data/aux_data-Copy1.ipynb"
CAROL_ORIGINAL = "exercises/aux_data/aux_data.ipynb"
DAMAGED = {"carol": "custom_nodes"}
CAROL_DAMAGED = "exercises/custom_nodes/custom_nodes.ipynb"

_GIT_IDENTITY = ("-c", "user.name=Learner", "-c", "user.email=learner@example.org")


@dataclass
class Semester:
    """What the instructor's commands printed and wrote."""

    root: Path
    collected: subprocess.CompletedProcess[str]
    graded: subprocess.CompletedProcess[str]
    report: dict
    summary: str
    feedback: dict[str, str]
    junit: ET.Element
    grades: list[dict[str, str]]
    page: Path

    def student(self, name: str) -> dict:
        return next(s for s in self.report["students"] if s["student"] == name)

    def exercise(self, student: str, function: str) -> dict:
        return next(e for e in self.student(student)["exercises"] if e["name"] == function)


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", *_GIT_IDENTITY, "-C", str(folder), *args], check=True, capture_output=True
    )


def _answers(chapter: str, functions: tuple[str, ...] | None = None) -> dict[str, str]:
    """The reference answer cells of ``chapter`` (all, or ``functions``'), by grade_id, as
    a learner who wrote them would hold them: without nbgrader's solution markers."""
    nb = nbformat.read(SOLUTIONS / chapter / f"{chapter}.ipynb", as_version=4)
    answers = {}
    for cell in nb.cells:
        nbgrader = cell.metadata.get("nbgrader", {})
        grade_id = nbgrader.get("grade_id")
        if nbgrader.get("solution") and (functions is None or grade_id in functions):
            lines = cell.source.splitlines()
            answers[grade_id] = "\n".join(s for s in lines if s.strip() not in MARKERS)
    return answers


def _answer(work: Path, chapter: str, replacements: dict[str, str], copy: str = "") -> None:
    """Write ``replacements`` into the learner's notebook of ``chapter`` (or a copy of it)."""
    notebook = work / "exercises" / chapter / f"{chapter}.ipynb"
    write_variant(notebook, work / copy if copy else notebook, replacements)


def _ada(work: Path) -> None:
    for chapter in ADA_SOLVED:
        _answer(work, chapter, _answers(chapter))


def _bob(work: Path) -> None:
    _answer(work, "leaves", {**_answers("leaves", BOB_ANSWERED["leaves"]), **BOB_WRONG})
    _answer(work, "mapping", _answers("mapping", BOB_ANSWERED["mapping"]))


def _carol(work: Path) -> None:
    _answer(work, CAROL_SOLVED, _answers(CAROL_SOLVED), copy=CAROL_COPY)
    damaged = work / CAROL_DAMAGED
    content = damaged.read_bytes()
    damaged.write_bytes(content[: len(content) // 2])


def _eve(work: Path) -> None:
    """Started nothing."""


WORK = {"ada": _ada, "bob": _bob, "carol": _carol, "eve": _eve}


def _hand_out(release: Path, remotes: Path, work: Path) -> Path:
    """Each learner's repository made from the release, as bare remotes, with their work
    pushed; the roster that names them."""
    _git(release, "init", "--quiet", "--initial-branch=main")
    _git(release, "add", "--all")
    _git(release, "commit", "--quiet", "-m", "The course's release")
    rows = ["learner,repository"]
    for name in LEARNERS:
        remote = remotes / f"{name}.git"
        rows.append(f"{name},{remote}")
        if name == EMPTY:
            subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
            continue
        subprocess.run(["git", "clone", "--quiet", "--bare", str(release), str(remote)], check=True)
        clone = work / name
        subprocess.run(["git", "clone", "--quiet", str(remote), str(clone)], check=True)
        WORK[name](clone)
        _git(clone, "add", "--all")
        _git(clone, "commit", "--quiet", "--allow-empty", "-m", "my work")
        _git(clone, "push", "--quiet")
    roster = remotes.parent / "roster.csv"
    roster.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return roster


@pytest.fixture(scope="module")
def semester(tmp_path_factory: pytest.TempPathFactory) -> Semester:
    root = tmp_path_factory.mktemp("semester")
    released = run_cli("release", root / "release")
    assert released.returncode == 0, released.stderr
    roster = _hand_out(root / "release", root / "remotes", root / "work")
    submissions = root / "submissions"
    collected = run_cli("collect", roster, "--into", submissions, "--allow-local")
    reports = root / "reports"
    outputs = {
        "--json": reports / "report.json",
        "--junit": reports / "report.xml",
        "--markdown": reports / "summary.md",
        "--feedback": reports / "feedback",
        "--csv": reports / "grades.csv",
        "--html": reports / "class.html",
    }
    options = [str(item) for pair in outputs.items() for item in pair]
    env = {**os.environ, "COLUMNS": "400"}  # the terminal table's rows unwrapped
    graded = run_cli("grade", submissions, *options, env=env)
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr
    return Semester(
        root=root,
        collected=collected,
        graded=graded,
        report=json.loads(outputs["--json"].read_text(encoding="utf-8")),
        summary=outputs["--markdown"].read_text(encoding="utf-8"),
        feedback={p.stem: p.read_text(encoding="utf-8") for p in outputs["--feedback"].iterdir()},
        junit=ET.parse(outputs["--junit"]).getroot(),
        grades=list(csv.DictReader(outputs["--csv"].open(encoding="utf-8"))),
        page=outputs["--html"],
    )


# What the class did, function by function, worked out from how it was made -----------


def _functions(course: Course, *chapters: str) -> set[str]:
    return {f.name for chapter in chapters for f in course.notebook(chapter).functions}


def answered(course: Course) -> dict[str, set[str]]:
    """The functions each collected learner changed from the stub, right or wrong."""
    return {
        "ada": _functions(course, *ADA_SOLVED),
        "bob": {name for names in BOB_ANSWERED.values() for name in names} | set(BOB_WRONG),
        "carol": _functions(course, CAROL_SOLVED),
        "eve": set(),
    }


def solved(course: Course) -> dict[str, set[str]]:
    """The functions each collected learner answered right."""
    return {**answered(course), "bob": answered(course)["bob"] - set(BOB_WRONG)}


def not_started(course: Course, learner: str) -> set[str]:
    """The functions ``learner`` left as the release gave them (a damaged file's are not)."""
    damaged = _functions(course, DAMAGED[learner]) if learner in DAMAGED else set()
    return {f.name for f in course.functions} - answered(course)[learner] - damaged


def chapters_not_started(course: Course, learner: str) -> list[str]:
    """The chapters of which ``learner`` started no function, in the course's order."""
    untouched = not_started(course, learner)
    return [n.id for n in course.notebooks if _functions(course, n.id) <= untouched]


def started_by_someone(course: Course) -> set[str]:
    """The chapters at least one learner started."""
    everyone = set.intersection(*(set(chapters_not_started(course, n)) for n in COLLECTED))
    return {n.id for n in course.notebooks} - everyone - set(DAMAGED.values())


def _started(course: Course, function: str) -> int:
    """How many learners started ``function`` (a damaged file's functions are not started)."""
    return sum(function in answered(course)[learner] for learner in COLLECTED)


def _unescaped(markdown: str) -> str:
    """Markdown's text without the backslashes that escape ``_`` and ``[`` in it."""
    return re.sub(r"\\(.)", r"\1", markdown)


def _row(table: str, learner: str) -> str:
    """``learner``'s row of a Markdown table, unescaped."""
    return _unescaped(next(line for line in table.splitlines() if f"| {learner} |" in line))


def _terminal_row(semester: Semester, learner: str) -> str:
    """``learner``'s row of the table ``grade`` printed, with the lines its cells wrap onto."""
    lines = semester.graded.stdout.splitlines()
    [start] = [i for i, line in enumerate(lines) if line.startswith(f"│ {learner} ")]
    end = start + 1
    while end < len(lines) and re.match(r"│\s+│", lines[end]):  # the learner's cell is empty
        end += 1
    return "\n".join(lines[start:end])


def _section(markdown: str, heading: str) -> list[str]:
    """The lines under ``heading`` up to the next heading of the same level or above."""
    lines = markdown.splitlines()
    start = lines.index(heading) + 1
    level = heading.split()[0]
    end = next(
        (i for i in range(start, len(lines)) if re.match(rf"#{{1,{len(level)}}} ", lines[i])),
        len(lines),
    )
    return lines[start:end]


# Collecting ----------------------------------------------------------------------------


def test_the_class_is_collected_but_the_empty_repository_which_says_why(semester):
    lines = semester.collected.stdout.splitlines()
    assert semester.collected.returncode == 0, semester.collected.stderr
    assert f"{EMPTY}: the repository has no commit yet" in lines
    into = semester.root / "submissions"
    assert lines[-1] == f"collected 4 of 5 learners into {into}; not collected: {EMPTY}"


def test_every_collected_learner_has_a_result(semester):
    assert [s["student"] for s in semester.report["students"]] == list(COLLECTED)


# Scores --------------------------------------------------------------------------------


@pytest.mark.parametrize("learner", COLLECTED)
def test_each_learner_scores_exactly_the_points_of_the_functions_they_solved(
    semester, course, learner
):
    student = semester.student(learner)
    assert student["score"] == sum(course.function(f).points for f in solved(course)[learner])
    assert student["max_score"] == course.points


# Not started ---------------------------------------------------------------------------


@pytest.mark.parametrize("learner", COLLECTED)
def test_every_untouched_function_is_not_started_with_no_points_message_pointer_or_hint(
    semester, course, learner
):
    untouched = not_started(course, learner)
    results = {e["name"]: e for e in semester.student(learner)["exercises"]}
    said = {
        name: (e["status"], e["score"], e["hint"], {
            (t["outcome"], t["kind"], t["points"], t["message"], t["pointer"]) for t in e["tests"]
        })
        for name, e in results.items()
        if name in untouched
    }  # fmt: skip
    assert said.keys() == untouched
    expected = ("not-started", 0, "", {("not-started", "not-started", 0, "", None)})
    assert {name: result for name, result in said.items() if result != expected} == {}


def test_an_untouched_chapter_whose_stub_raises_at_the_top_is_not_started(semester, course):
    # treedef_api's first answer cell ends in a top-level raise: run, its tests fail a check
    functions = _functions(course, "treedef_api")
    statuses = {
        (s["student"], e["name"]): e["status"]
        for s in semester.report["students"]
        for e in s["exercises"]
        if e["name"] in functions
    }
    assert set(statuses.values()) == {"not-started"}


def test_a_function_that_was_answered_is_never_not_started(semester, course):
    statuses = {
        (learner, name): semester.exercise(learner, name)["status"]
        for learner, names in answered(course).items()
        for name in names
    }
    assert {key for key, status in statuses.items() if status != "passed"} == {
        ("bob", name) for name in BOB_WRONG
    }
    assert {statuses[("bob", name)] for name in BOB_WRONG} == {"failed"}


def test_a_damaged_files_functions_are_corrupt_not_not_started(semester, course):
    learner, chapter = next(iter(DAMAGED.items()))
    statuses = {semester.exercise(learner, name)["status"] for name in _functions(course, chapter)}
    assert statuses == {"corrupt"}


# The damaged file and the renamed copy --------------------------------------------------


def test_the_damaged_file_is_listed_as_not_graded_and_why_in_the_json(semester):
    files = {f["path"]: f for f in semester.student("carol")["files"]}
    damaged = files[CAROL_DAMAGED]
    assert damaged["graded"] is False
    assert damaged["why"].startswith("damaged")


def test_the_renamed_copy_is_graded_and_the_untouched_original_is_not(semester):
    files = {f["path"]: f for f in semester.student("carol")["files"]}
    assert files[CAROL_COPY]["graded"] is True
    assert (files[CAROL_ORIGINAL]["graded"], files[CAROL_ORIGINAL]["why"]) == (
        False,
        "fewer answered cells",
    )


def test_the_damaged_file_is_on_its_learners_summary_row(semester):
    row = _row(semester.summary, "carol")
    assert f"not graded {CAROL_DAMAGED} (damaged" in row


def test_the_renamed_copy_is_named_on_its_learners_summary_row(semester):
    row = _row(semester.summary, "carol")
    assert f"graded {CAROL_COPY} as aux_data" in row
    assert f"not graded {CAROL_ORIGINAL} (fewer answered cells)" in row


def test_the_damaged_and_renamed_files_are_on_their_learners_terminal_row(semester):
    row = _terminal_row(semester, "carol")
    assert f"not graded {CAROL_DAMAGED} (damaged" in row
    assert f"graded {CAROL_COPY} as aux_data" in row


def test_the_damaged_file_leads_its_learners_feedback(semester):
    feedback = _unescaped(semester.feedback["carol"])
    head = feedback.split("\n## ", 1)[0]
    assert f"not graded {CAROL_DAMAGED} (damaged" in head


def test_the_damaged_file_is_on_its_chapters_row_of_the_grades_csv(semester):
    [row] = [
        r
        for r in semester.grades
        if (r["student_id"], r["assignment"]) == ("carol", "custom_nodes")
    ]
    assert f"not graded {CAROL_DAMAGED} (damaged" in row["files (graded, and not graded)"]


def test_the_damaged_file_is_in_its_learners_junit_properties(semester):
    [suite] = semester.junit.findall("./testsuite[@name='carol']")
    files = suite.find("./properties/property[@name='files']")
    assert files is not None and f"not graded {CAROL_DAMAGED} (damaged" in files.get("value")


# Chapters not started, in one line ------------------------------------------------------


@pytest.mark.parametrize("learner", COLLECTED)
def test_each_learners_summary_row_names_the_chapters_not_started_not_their_functions(
    semester, course, learner
):
    row = _row(semester.summary, learner)
    chapters = chapters_not_started(course, learner)
    assert [chapter for chapter in chapters if chapter not in row] == []
    listed = {f.name for f in course.functions if f"`{f.name}`" in row}
    assert listed & _functions(course, *chapters) == set()


@pytest.mark.parametrize("learner", COLLECTED)
def test_each_learners_terminal_row_names_the_chapters_not_started_not_their_functions(
    semester, course, learner
):
    row = _terminal_row(semester, learner)
    chapters = chapters_not_started(course, learner)
    assert [chapter for chapter in chapters if chapter not in row] == []
    listed = {f.name for f in course.functions if re.search(rf"\b{f.name}\b", row)}
    assert listed & _functions(course, *chapters) == set()


@pytest.mark.parametrize("learner", COLLECTED)
def test_each_learners_feedback_names_the_chapters_not_started_in_one_line(
    semester, course, learner
):
    chapters = chapters_not_started(course, learner)
    lines = _unescaped(semester.feedback[learner]).splitlines()
    assert [line for line in lines if all(chapter in line for chapter in chapters)] != []


def test_the_feedback_of_a_learner_who_started_nothing_is_shorter_than_the_list_of_chapters(
    semester, course
):
    lines = [line for line in semester.feedback["eve"].splitlines() if line.strip()]
    assert len(lines) < len(course.notebooks), "\n".join(lines)


def _after_the_score(feedback: str) -> str:
    """The first paragraph of a feedback file after its title and score; it must come
    before the first notebook's section."""
    paragraphs = [p for p in _unescaped(feedback).split("\n\n") if p.strip()]
    assert not paragraphs[2].startswith("#"), paragraphs[2]
    return paragraphs[2]


def test_the_feedback_of_a_learner_who_started_nothing_leads_with_the_first_chapter(
    semester, course
):
    assert course.notebooks[0].id in _after_the_score(semester.feedback["eve"])


def test_the_feedback_of_a_learner_with_a_damaged_file_leads_with_that_file(semester):
    assert "custom_nodes.ipynb" in _after_the_score(semester.feedback["carol"])


def test_feedback_gives_no_failure_or_hint_for_what_was_not_started(semester):
    # ada passed every function she started: the rest was never started
    feedback = semester.feedback["ada"]
    assert "Hint:" not in feedback
    assert "not written yet" not in feedback
    assert "Reread" not in feedback


# Feedback on a wrong answer --------------------------------------------------------------


def test_a_wrong_visible_answers_message_says_what_it_returned(semester):
    [test] = semester.exercise("bob", "count_leaves")["tests"]
    assert "should be 3" in test["message"]
    assert re.search(r"(returned|got)\W+2\b", test["message"]), test["message"]


def test_a_wrong_visible_answers_feedback_says_what_it_returned(semester):
    feedback = _unescaped(semester.feedback["bob"])
    said = feedback.split("`count_leaves`", 1)[1].split("\n### ", 1)[0]
    assert re.search(r"(returned|got)\W+2\b", said), said


# The class's summary ---------------------------------------------------------------------


def test_what_to_reteach_names_no_section_of_a_chapter_nobody_started(semester, course):
    titles = chapter_titles()
    started = {titles[chapter] for chapter in started_by_someone(course)}
    sections = [
        line for line in _section(semester.summary, "### What to reteach") if line.startswith("- ")
    ]
    where = [re.match(r"- \*\*(.+?) → ", _unescaped(line)).group(1) for line in sections]
    assert where and set(where) <= started, sections


def test_what_to_reteach_leads_with_the_section_a_started_function_sent_a_learner_to(semester):
    sections = [
        _unescaped(line)
        for line in _section(semester.summary, "### What to reteach")
        if line.startswith("- ")
    ]
    assert sections[0].startswith("- **Leaves → None is a node**: 1 learner")


def _pass_rates(summary: str) -> list[str]:
    """The rows of the summary's table of pass rates, hardest function first."""
    section = _section(summary, "### Pass rates per function")
    return [line for line in section if re.match(r"\| [^-].* \| `\w+` \|", line)]


def test_pass_rates_count_only_the_learners_who_started_the_function(semester, course):
    # count_leaves: ada passed, bob failed, carol and eve never started it
    [row] = [line for line in _pass_rates(semester.summary) if "`count_leaves`" in line]
    started = _started(course, "count_leaves")
    assert f"| {started} of {len(COLLECTED)} |" in row, row
    assert "| 50% |" in row and "25%" not in row, row


def test_pass_rates_rank_every_function_someone_started_before_those_nobody_started(
    semester, course
):
    ranked = [re.search(r"`(\w+)`", row).group(1) for row in _pass_rates(semester.summary)]
    started = [_started(course, name) > 0 for name in ranked]
    assert started == sorted(started, reverse=True), ranked


# The class's page, in a browser ---------------------------------------------------------


@pytest.fixture(scope="module")
def class_page(browser, semester: Semester) -> Iterator[Opened]:
    """The page ``grade --html`` wrote, opened from its file as an instructor opens it."""
    opened = open_page(browser, semester.page)
    yield opened
    opened.page.context.close()


def _learner_row(class_page: Opened, learner: str) -> Locator:
    return class_page.page.locator("#learners-table tbody tr").filter(
        has=class_page.page.locator('[data-name="learner"]', has_text=learner)
    )


@pytest.mark.browser
def test_a_screenshot_of_the_class_page_is_saved_and_shows_each_learner(class_page):
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    class_page.page.screenshot(path=SCREENSHOT, full_page=True)
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert class_page.value("#learner-count") == str(len(COLLECTED))
    for learner in COLLECTED:
        assert _learner_row(class_page, learner).is_visible(), learner


@pytest.mark.browser
def test_the_class_page_shows_the_damaged_file_on_its_learners_row(class_page):
    row = _learner_row(class_page, "carol").inner_text()
    assert "custom_nodes.ipynb" in row and "damaged" in row, row


@pytest.mark.browser
def test_the_class_pages_sections_to_reteach_are_all_in_chapters_someone_started(
    class_page, course
):
    links = class_page.page.locator("#reteach-table tbody tr a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    chapters = {re.search(r"book/([\w-]+)\.html", link).group(1) for link in links}
    assert chapters and chapters <= started_by_someone(course), links


@pytest.mark.browser
def test_the_class_pages_pass_rate_counts_only_the_learners_who_started_the_function(
    class_page,
):
    row = '#functions-table tr[data-function="count_leaves"]'
    assert float(class_page.value(f'{row} [data-group="passed"]')) == 0.5


@pytest.mark.browser
def test_the_class_page_says_how_many_learners_started_each_function(class_page, course):
    started = class_page.page.locator("#functions-table tbody tr").evaluate_all(
        """rows => Object.fromEntries(rows.map(r => [r.dataset.function,
            Number(r.querySelector('[data-name="started"]').dataset.value)]))"""
    )
    assert started == {name: _started(course, name) for name in started}
    assert started["count_leaves"] == 2


@pytest.mark.browser
def test_the_class_page_says_a_section_to_reteach_of_how_many_who_started(class_page, course):
    cell = class_page.page.locator('#reteach-table tr[data-anchor="none-is-a-node"] td.num')
    assert cell.get_attribute("data-value") == "1"
    assert cell.get_attribute("data-started") == str(_started(course, "is_leaf_type"))


@pytest.mark.browser
def test_the_class_page_says_too_few_learners_instead_of_a_discrimination(class_page):
    cell = class_page.page.locator(
        '#functions-table tr[data-function="count_leaves"] [data-name="discrimination"]'
    )
    assert cell.get_attribute("data-value") == ""
    assert "too few" in cell.inner_text()


@pytest.mark.browser
@pytest.mark.parametrize("learner", COLLECTED)
def test_the_class_page_names_each_learners_chapters_not_started(class_page, course, learner):
    titles = chapter_titles()
    row = _learner_row(class_page, learner).inner_text()
    assert [c for c in chapters_not_started(course, learner) if titles[c] not in row] == []


@pytest.mark.browser
def test_the_class_page_ranks_every_function_someone_started_before_those_nobody_started(
    class_page, course
):
    ranked = class_page.page.locator("#functions-table tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.function)"
    )
    started = [_started(course, name) > 0 for name in ranked]
    assert started == sorted(started, reverse=True), ranked
