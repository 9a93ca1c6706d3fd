"""Which questions the page answers before they are asked (booktools/question_audit.py),
on small pages written as MyST-NB builds them."""

from __future__ import annotations

import html
from pathlib import Path

from booktools.question_audit import recall_questions
from booktools.quiz import quiz_html


def _cell(code: str, output: str = "", tags: str = "") -> str:
    shown = f'<div class="cell_output docutils container"><pre>{html.escape(output)}</pre></div>'
    if "hide-output" in tags:
        shown = f"<details><summary>Show code cell output</summary>{shown}</details>"
    return (
        f'<div class="cell {tags} docutils container">'
        f'<div class="cell_input docutils container"><pre>{html.escape(code)}</pre></div>'
        f"{shown if output else ''}</div>"
    )


def _question(code: str, choices: list[str], answer: str) -> str:
    asked = quiz_html("page-1", "What?", choices, answer, "Because.")
    return _cell(code, "hidden", "tag_hide-output") + (
        f'<div class="cell tag_remove-input docutils container">'
        f'<div class="cell_output docutils container">{asked}</div></div>'
    )


def _recalled(tmp_path: Path, *cells: str) -> list[str]:
    page = tmp_path / "page.html"
    imports = _cell("import jax")
    page.write_text(f"<html><body>{imports}{''.join(cells)}</body></html>", encoding="utf-8")
    return [str(found) for found in recall_questions([("page", page)])]


SHOWN = 'jax.tree.leaves({"b": 1, "a": 2})'
ASKED = 'jax.tree.leaves({"z": 1, "y": 2})'


def _leaves_question(code: str = ASKED) -> str:
    return _question(code, ["[1, 2]", "[2, 1]"], "[2, 1]")


def _rerun_of(line: str) -> str:
    return f"page-1: every call of its code (jax.tree.leaves(dict)) ran, shown by page: {line}"


def test_a_question_that_reruns_a_shown_call_on_the_same_kind_of_input_is_recall(tmp_path):
    found = _recalled(tmp_path, _cell(SHOWN, "[2, 1]"), _leaves_question())
    assert found == [_rerun_of(SHOWN)]


def test_a_question_on_another_kind_of_input_is_not_recall(tmp_path):
    found = _recalled(
        tmp_path,
        _cell(SHOWN, "[2, 1]"),
        _question("jax.tree.leaves(Row((1, 2)))", ["[(1, 2)]", "[1, 2]"], "[(1, 2)]"),
    )
    assert found == []


def test_a_question_whose_answer_is_a_line_of_an_earlier_output_is_recall(tmp_path):
    found = _recalled(
        tmp_path,
        _cell("show(tree)", "{'a': (1, 30)}"),
        _question("other(tree)", ["{'a': (1, 30)}", "{'a': 1}"], "{'a': (1, 30)}"),
    )
    assert found == [
        "page-1: its answer \"{'a': (1, 30)}\" stands in an output, shown by page: show(tree)"
    ]


def test_an_output_hidden_until_opened_shows_no_answer(tmp_path):
    found = _recalled(tmp_path, _cell(SHOWN, "[2, 1]", "tag_hide-output"), _leaves_question())
    assert found == []


def test_a_question_that_repeats_an_earlier_question_is_recall(tmp_path):
    found = _recalled(tmp_path, _leaves_question(), _leaves_question(SHOWN))
    assert found == [_rerun_of(ASKED)]
