"""Which questions the page answers before they are asked, and which it may answer
(booktools/question_audit.py), on small pages written as MyST-NB builds them."""

from __future__ import annotations

import html
from pathlib import Path

from booktools.question_audit import (
    audit_report,
    questions_without_code,
    recall_questions,
    suspect_questions,
)
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


def _page(tmp_path: Path, *cells: str) -> list[tuple[str, Path]]:
    page = tmp_path / "page.html"
    imports = _cell("import jax")
    page.write_text(f"<html><body>{imports}{''.join(cells)}</body></html>", encoding="utf-8")
    return [("page", page)]


def _recalled(tmp_path: Path, *cells: str) -> list[str]:
    return [str(found) for found in recall_questions(_page(tmp_path, *cells))]


def _suspected(tmp_path: Path, *cells: str) -> list[str]:
    return [str(found) for found in suspect_questions(_page(tmp_path, *cells))]


SHOWN = 'jax.tree.leaves({"b": 1, "a": 2})'
ASKED = 'jax.tree.leaves({"z": 1, "y": 2})'


def _leaves_question(code: str = ASKED) -> str:
    return _question(code, ["[1, 2]", "[2, 1]"], "[2, 1]")


def _rerun_of(line: str) -> str:
    return f"page-1: every call of its code (jax.tree.leaves(dict)) ran, shown by page: {line}"


def test_a_question_that_reruns_a_shown_call_on_the_same_kind_of_input_is_a_suspect(tmp_path):
    found = _suspected(tmp_path, _cell(SHOWN, "[2, 1]"), _leaves_question())
    assert found == [_rerun_of(SHOWN)]


def test_a_question_on_another_kind_of_input_is_no_suspect(tmp_path):
    found = _suspected(
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
    found = _suspected(tmp_path, _cell(SHOWN, "[2, 1]", "tag_hide-output"), _leaves_question())
    assert found == []


def test_a_question_on_the_kind_of_input_of_an_earlier_question_is_a_suspect(tmp_path):
    found = _suspected(tmp_path, _leaves_question(), _leaves_question(SHOWN))
    assert found == [_rerun_of(ASKED)]


def test_a_question_whose_calls_ran_on_other_values_is_a_suspect_but_not_recall(tmp_path):
    assert _recalled(tmp_path, _cell(SHOWN, "[2, 1]"), _leaves_question()) == []


def _repeats(call: str, line: str) -> str:
    return f"page-1: its code repeats {call}, shown by page: {line}"


def test_a_question_that_repeats_a_shown_call_word_for_word_is_recall(tmp_path):
    respaced = "jax.tree.leaves( {'b': 1,\n 'a': 2} )  # the same call"
    found = _recalled(tmp_path, _cell(SHOWN, "[2, 1]"), _leaves_question(respaced))
    assert found == [_repeats("jax.tree.leaves({'b': 1, 'a': 2})", SHOWN)]


def test_a_name_is_compared_as_the_value_the_page_assigned_it(tmp_path):
    shown = 'spec = {"b": 1, "a": 2}\njax.tree.leaves(spec)'
    found = _recalled(tmp_path, _cell(shown, "[2, 1]"), _leaves_question(SHOWN))
    assert found == [_repeats("jax.tree.leaves({'b': 1, 'a': 2})", 'spec = {"b": 1, "a": 2}')]


def test_a_lambdas_parameter_is_not_the_pages_name_of_the_same_spelling(tmp_path):
    shown = "x = 3\njax.tree.map(lambda x: x + 1, [3])"
    asked = "jax.tree.map(lambda x: 3 + 1, [3])"
    assert _recalled(tmp_path, _cell(shown, "[4]"), _leaves_question(asked)) == []


def test_a_question_that_repeats_an_earlier_questions_code_is_recall(tmp_path):
    found = _recalled(tmp_path, _leaves_question(), _leaves_question())
    assert found == [_repeats("jax.tree.leaves({'z': 1, 'y': 2})", ASKED)]


def test_a_short_answer_in_an_earlier_output_is_a_coincidence(tmp_path):
    asked = _question("other(tree)", ["[1, 2]", "[2, 1]"], "[2, 1]")
    assert _recalled(tmp_path, _cell("show(tree)", "[2, 1]"), asked) == []


def test_the_report_lists_each_suspect_with_the_cell_it_matched_and_fails_only_recall(
    tmp_path,
):
    text, failed = audit_report(_page(tmp_path, _cell(SHOWN, "[2, 1]"), _leaves_question()))
    assert text == (
        "1 suspect questions (same API on the same kind of input):\n"
        f"  {_rerun_of(SHOWN)}\n"
        "0 questions the page answers before they are asked:\n"
    )
    assert not failed


def _asked_after_shown(tmp_path: Path, asked: str) -> list[str]:
    return _suspected(tmp_path, _cell(SHOWN, "[2, 1]"), _leaves_question(asked))


def test_an_ordered_dict_is_a_dict_to_the_audit(tmp_path):
    asked = f"from collections import OrderedDict\n{ASKED.replace('{', 'OrderedDict(', 1)}"
    asked = asked.replace('"z": 1, "y": 2})', "z=1, y=2))")
    assert _asked_after_shown(tmp_path, asked) == [_rerun_of(SHOWN)]


def test_an_array_function_on_leaves_asks_nothing_of_its_own(tmp_path):
    asked = 'import jax.numpy as jnp\njax.tree.leaves({"z": jnp.sum(jnp.ones(2)), "y": 2})'
    assert _asked_after_shown(tmp_path, asked) == [_rerun_of(SHOWN)]


def test_a_result_read_through_a_shown_function_is_a_suspect(tmp_path):
    mapped = "jax.tree.map(lambda x: (x, -x), [1, 2])"
    found = _suspected(
        tmp_path,
        _cell(mapped, "[(1, -1), (2, -2)]"),
        _cell(SHOWN, "[2, 1]"),
        _leaves_question("jax.tree.leaves(jax.tree.map(lambda x: (x, x), [3, 4]))"),
    )
    assert found == [
        "page-1: every call of its code (jax.tree.leaves(jax.tree.map()), "
        f"jax.tree.map(fn, list)) ran, shown by page: {SHOWN}; page: {mapped}"
    ]


def test_a_dict_holding_none_or_a_tuple_is_another_kind_than_a_dict_of_leaves(tmp_path):
    for asked in ('jax.tree.leaves({"z": None, "y": 2})', 'jax.tree.leaves({"z": (1, 2)})'):
        assert _asked_after_shown(tmp_path, asked) == [], asked


def test_a_function_that_returns_an_item_is_another_kind_than_one_that_computes(tmp_path):
    found = _suspected(
        tmp_path,
        _cell("jax.jit(lambda m, x: m * x)(2.0, 3.0)", "6.0"),
        _question("jax.jit(lambda m, x: (m * x, m)[1])(2.0, 3.0)", ["6.0", "2.0"], "2.0"),
    )
    assert found == []


def test_a_question_without_a_hidden_code_cell_of_its_own_is_listed(tmp_path):
    asked = quiz_html("page-2", "What?", ["1", "2"], "2", "Because.")
    page = tmp_path / "page.html"
    page.write_text(
        _leaves_question()
        + _cell(SHOWN, "[2, 1]")
        + f'<div class="cell tag_remove-input docutils container">'
        f'<div class="cell_output docutils container">{asked}</div></div>',
        encoding="utf-8",
    )
    assert [q.key for q in questions_without_code([("page", page)])] == ["page-2"]
