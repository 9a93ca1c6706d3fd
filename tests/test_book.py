"""The book builds with warnings as errors, runs its examples, and links to every exercise."""

from __future__ import annotations

import collections
import re
import shutil
from pathlib import Path

import pytest
import yaml

from autograder.load.course import REPO_ROOT
from booktools.binder import PLACEHOLDER_REPOSITORY
from booktools.question_audit import questions_without_code, read_page, recall_questions
from conftest import build_book

pytestmark = pytest.mark.slow


def test_the_book_builds_without_warnings(built):
    assert (built / "book" / "intro.html").exists()


def test_every_chapter_shows_outputs_made_at_build_time(built, course):
    for notebook in course.notebooks:
        html = (built / "book" / f"{notebook.id}.html").read_text(encoding="utf-8")
        assert html.count('class="cell_output') >= 3, notebook.id


def test_chapter_sources_hold_no_pasted_outputs(course):
    for notebook in course.notebooks:
        text = (REPO_ROOT / "book" / f"{notebook.id}.md").read_text(encoding="utf-8")
        assert "format_name: myst" in text
        assert "```{code-cell}" in text


def test_every_chapter_links_to_its_exercise_notebook(built, course):
    for notebook in course.notebooks:
        html = (built / "book" / f"{notebook.id}.html").read_text(encoding="utf-8")
        published = f"../notebooks/exercises/{notebook.filename}"
        assert f'href="{published}"' in html, f"no download link for {notebook.filename}"
        assert (built / "book" / published).resolve().exists()
        assert f"lab/tree/exercises/{notebook.id}/{notebook.filename}" in html


def test_the_landing_page_explains_learning_and_grading(built):
    html = (built / "book" / "intro.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", html)
    for phrase in (
        "python -m autograder check",
        "python -m autograder grade",
        "python -m autograder status",
    ):
        assert phrase in text


def test_the_security_page_is_built_and_states_the_isolation_modes(built):
    html = (built / "book" / "security.html").read_text(encoding="utf-8")
    for phrase in ("threat model", "bubblewrap", "What is not protected"):
        assert phrase in html


def test_the_gradescope_page_shows_both_scripts_and_the_isolation(built):
    text = re.sub(r"<[^>]+>", "", _page(built, "gradescope"))
    phrases = ("-m venv .venv", "--gradescope", "after_published", "--allow-unsandboxed")
    for phrase in (*phrases, "isolation: not isolated"):
        assert phrase in text, phrase


def test_the_instructors_page_names_each_workflow_it_describes_and_each_exists(built):
    text = re.sub(r"<[^>]+>", "", _page(built, "instructors"))
    named = set(re.findall(r"[\w-]+\.yml", text))
    assert {"grade-submissions.yml", "grade-class.yml", "check.yml", "ci.yml"} <= named
    for workflow in named:
        where = REPO_ROOT / ("learners" if workflow == "check.yml" else "") / ".github/workflows"
        assert (where / workflow).is_file(), workflow
    assert "FAIL_UNDER" in text


def _page(built: Path, name: str) -> str:
    return (built / "book" / f"{name}.html").read_text(encoding="utf-8")


def test_every_chapter_asks_at_least_three_questions_that_answer_in_the_page(built, course):
    for notebook in course.notebooks:
        html = _page(built, notebook.id)
        assert html.count('class="pt-quiz"') >= 3, notebook.id
        assert "quiz.js" in html and "quiz.css" in html


def test_no_letter_is_the_right_answer_of_more_than_a_third_of_the_questions(built, course):
    # a learner who always picks one letter should not do well without reading the code
    answers = collections.Counter(
        "ABCD"[int(index)]
        for notebook in course.notebooks
        for index in re.findall(
            r'class="pt-quiz"[^>]*data-answer="(\d)"', _page(built, notebook.id)
        )
    )
    assert max(answers.values()) <= sum(answers.values()) / 3, dict(sorted(answers.items()))


def test_no_question_asks_what_an_earlier_cell_already_shows(built, course):
    """No question's code only makes calls earlier visible cells (of its page, of an
    earlier chapter, or an earlier question's code) already made on arguments of the
    same kinds, unless it quotes the code no earlier cell holds (quiz(..., new=...))
    and a reader's reading (booktools/question_labels/) calls it a prediction, and no
    right answer is a whole line of an earlier output: the rule of
    booktools.question_audit. A question the reader answers by scrolling up measures
    scrolling, not the lesson. python -m booktools.question_audit _build/html prints
    the same list."""
    pages = [(n.id, built / "book" / f"{n.id}.html") for n in course.notebooks]
    recalled = [str(found) for found in recall_questions(pages)]
    assert recalled == [], (
        "ask about code whose output no earlier cell shows, or, if a question does ask for "
        "a prediction, quote what decides with quiz(..., new=...) and have it read "
        "(AUTHORING.md, Pictures and questions in a lesson):\n" + "\n".join(recalled)
    )


def test_every_question_has_its_own_code_cell_with_the_output_hidden(built, course):
    # the reader predicts the output of that cell; without it the audit above has
    # nothing to compare with what the page already showed
    pages = [(n.id, built / "book" / f"{n.id}.html") for n in course.notebooks]
    without = [question.key for question in questions_without_code(pages)]
    assert without == [], "put a hide-output code cell right before: " + ", ".join(without)


def _questions(built: Path, course) -> list:
    return [
        question
        for notebook in course.notebooks
        for _, questions in read_page(built / "book" / f"{notebook.id}.html", notebook.id)
        for question in questions
    ]


def _is_error(choice: str) -> bool:
    return bool(re.search(r"\w*(Error|Exception)\b|\braises?\b", choice, flags=re.IGNORECASE))


def test_no_right_choice_stands_out_by_its_form(built, course):
    """Among three or more choices, the right one is not the only one of its form: not
    the only error among values, nor the only value among errors. A learner who picks
    the odd one out must not be right for it."""
    odd = []
    for question in _questions(built, course):
        errors = [_is_error(choice) for choice in question.choices]
        alike = errors.count(errors[question.answer])
        if len(errors) >= 3 and alike == 1:
            odd.append(f"{question.key}: {question.right!r} among {question.choices}")
    assert odd == [], "\n".join(odd)


# The right choice may be the longest or the shortest by a wide margin (half again as
# long as every other, or two thirds as short) in at most this share of the questions:
# about as often as a choice picked by length alone would be right.
WIDE_MARGIN, LENGTH_GIVEAWAYS = 1.5, 0.1


def test_picking_the_choice_of_odd_length_does_not_win(built, course):
    """Across the book, the right choice is the longest of its question by a wide
    margin, or the shortest by one, in at most one question in ten."""
    questions = _questions(built, course)
    standing_out = []
    for question in questions:
        right = len(question.right)
        others = [len(c) for i, c in enumerate(question.choices) if i != question.answer]
        if right > WIDE_MARGIN * max(others) or right * WIDE_MARGIN < min(others):
            standing_out.append(question.key)
    assert len(standing_out) <= LENGTH_GIVEAWAYS * len(questions), standing_out


def test_every_question_links_a_section_that_exists(built, course):
    # the explanation names the rule that decides; its link leads to where it is taught
    unlinked = []
    for notebook in course.notebooks:
        html = _page(built, notebook.id)
        for key, body in re.findall(
            r'<div class="pt-quiz"[^>]*data-key="([^"]+)"(.*?)<noscript>', html, flags=re.S
        ):
            link = re.search(r'class="pt-quiz-reread">Reread <a href="([^"]*)"', body)
            if not link:
                unlinked.append(f"{key}: no section, quiz(..., section=(title, address))")
                continue
            page, _, anchor = link.group(1).partition("#")
            target = _page(built, page.removesuffix(".html")) if page else html
            if f'id="{anchor}"' not in target:
                unlinked.append(f"{key}: {link.group(1)} is no section of the book")
    assert unlinked == [], "\n".join(unlinked)


DIAGRAM_CHAPTERS = ("leaves", "structure", "custom_nodes", "aux_data")


@pytest.mark.parametrize("chapter", DIAGRAM_CHAPTERS)
def test_trees_are_drawn_as_trees_where_the_brief_asks(built, chapter):
    assert 'class="pt-tree"' in _page(built, chapter)


def test_the_reference_page_links_every_function_it_lists_to_a_section(built):
    html = _page(built, "reference")
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S)
    listed = 0
    for row in rows:
        names = re.findall(r"<code[^>]*><span[^>]*>(jax\.tree[\w.]*)</span>", row)
        if not names:
            continue
        listed += 1
        links = re.findall(r'href="([\w./-]+\.html)#([\w-]+)"', row)
        assert links, f"{names[0]} is not linked to a section"
        for page, anchor in links:
            target = (built / "book" / page).read_text(encoding="utf-8")
            assert f'id="{anchor}"' in target, f"{names[0]}: {page}#{anchor} does not exist"
    assert listed >= 20


BOOK_SOURCES = ("_config.yml", "_toc.yml", "book", "booktools", "exercises", "gradescope")


def test_editing_one_chapter_executes_only_that_chapter_again(built, tmp_path):
    from jupyter_cache import get_cache

    site = tmp_path / "site"
    site.mkdir()
    for name in BOOK_SOURCES:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, site / name)
        else:
            shutil.copy(source, site / name)
    shutil.copytree(REPO_ROOT / "_build" / ".jupyter_cache", site / "_build" / ".jupyter_cache")
    chapter = site / "book" / "gotchas.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8") + "\n```{code-cell} ipython3\n1 + 1\n```\n",
        encoding="utf-8",
    )
    cache = get_cache(site / "_build" / ".jupyter_cache")
    before = {record.pk for record in cache.list_cache_records()}
    done = build_book(site)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    added = [r.uri for r in cache.list_cache_records() if r.pk not in before]
    assert [Path(uri).name for uri in added] == ["gotchas.md"]


def test_no_page_links_to_binder_or_colab_while_the_repository_is_the_placeholder(built):
    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["repository"]["url"] == PLACEHOLDER_REPOSITORY
    linking = [
        page.relative_to(built).as_posix()
        for page in sorted(built.rglob("*.html"))
        if re.search(r"mybinder\.org|colab\.research\.google\.com", page.read_text("utf-8"))
    ]
    assert linking == []


def test_every_chapter_is_published_as_a_notebook_and_no_other_page_is(built, course):
    published = sorted(path.stem for path in (built / "notebooks").glob("*.ipynb"))
    assert published == sorted(notebook.id for notebook in course.notebooks)
