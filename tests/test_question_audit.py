"""Which questions the page answers before they are asked (booktools/question_audit.py),
on small pages written as MyST-NB builds them."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from booktools.question_audit import (
    audit_report,
    digests,
    questions_without_code,
    recall_questions,
)
from booktools.question_readings import Reading, digest
from booktools.quiz import quiz_html

IMPORTS = "import jax\nimport jax.numpy as jnp"


def _cell(code: str, output: str = "", tags: str = "") -> str:
    shown = f'<div class="cell_output docutils container"><pre>{html.escape(output)}</pre></div>'
    if "hide-output" in tags:
        shown = f"<details><summary>Show code cell output</summary>{shown}</details>"
    return (
        f'<div class="cell {tags} docutils container">'
        f'<div class="cell_input docutils container"><pre>{html.escape(code)}</pre></div>'
        f"{shown if output else ''}</div>"
    )


def _question(code: str, choices: tuple[str, str] = ("[1, 2]", "[2, 1]")) -> str:
    asked = quiz_html("page-1", "What?", list(choices), choices[1], "Because.")
    return _cell(code, "hidden", "tag_hide-output") + (
        f'<div class="cell tag_remove-input docutils container">'
        f'<div class="cell_output docutils container">{asked}</div></div>'
    )


def _page(tmp_path: Path, *cells: str) -> list[tuple[str, Path]]:
    page = tmp_path / "page.html"
    page.write_text(f"<html><body>{_cell(IMPORTS)}{''.join(cells)}</body></html>", "utf-8")
    return [("page", page)]


def _recalled(tmp_path: Path, *cells: str, readings: dict | None = None) -> list[str]:
    """What the audit says of each question it fails, with no reading but ``readings``."""
    found = recall_questions(_page(tmp_path, *cells), readings or {})
    return [str(each) for each in found]


def _flagged(tmp_path: Path, *cells: str, readings: dict | None = None) -> list[str]:
    """The keys of the questions the audit fails, with no reading but ``readings``."""
    found = recall_questions(_page(tmp_path, *cells), readings or {})
    return [each.question.key for each in found]


def _flagged_after(tmp_path: Path, shown: str, asked: str) -> list[str]:
    """The keys the rule flags when the code ``asked`` follows a cell that showed ``shown``."""
    return _flagged(tmp_path, _shown(shown), _question(asked))


def _shown(code: str) -> str:
    return _cell(code, "an output")


SHOWN = 'jax.tree.leaves({"b": 1, "a": 2})'
ASKED = 'jax.tree.leaves({"z": 3, "y": 4})'
RERUN = (
    "page-1: every call of its code ran before (jax.tree.leaves(container|number)), "
    f"shown by page: {SHOWN}"
)


def test_a_question_that_reruns_a_shown_call_on_inputs_of_the_same_kinds_is_recall(tmp_path):
    assert _recalled(tmp_path, _shown(SHOWN), _question(ASKED)) == [RERUN]


def test_a_question_whose_input_holds_a_node_kind_no_earlier_call_held_is_not(tmp_path):
    asked = 'jax.tree.leaves({"z": None, "y": 4})'
    assert _recalled(tmp_path, _shown(SHOWN), _question(asked)) == []


def test_node_kinds_may_each_come_from_another_earlier_call(tmp_path):
    # a question whose parts are each shown counts as shown
    shown = (_shown('jax.tree.leaves({"a": None})'), _shown('jax.tree.leaves({"a": []})'))
    asked = _question('jax.tree.leaves({"a": None, "b": ()})')
    assert _flagged(tmp_path, *shown, asked) == ["page-1"]


def test_the_message_names_the_cell_that_held_the_kinds_not_the_last_call(tmp_path):
    holding = 'jax.tree.map(lambda leaf: leaf + 1, {"z": 1, "a": (2, None, [])})'
    later = "jax.tree.map(lambda x: x - 1, 10)"
    asked = _question('jax.tree.map(lambda leaf: leaf * 2, {"y": 5, "b": (6, None, [])})')
    [found] = _recalled(tmp_path, _shown(holding), _shown(later), asked)
    assert found.endswith(f"shown by page: {holding}")


def test_leaf_types_may_each_come_from_another_earlier_call(tmp_path):
    shown = (_shown('jax.tree.leaves({"a": 1.0})'), _shown('jax.tree.leaves({"a": "text"})'))
    asked = _question('jax.tree.leaves({"b": "name", "c": 2})')
    assert _flagged(tmp_path, *shown, asked) == ["page-1"]


def test_a_number_and_a_float_array_are_one_leaf_type(tmp_path):
    shown = _shown("jax.tree.reduce(lambda t, x: t + x, {'w': jnp.ones(2)})")
    asked = _question("jax.tree.reduce(lambda t, x: t + x, [3, 4])")
    assert _flagged(tmp_path, shown, asked) == ["page-1"]


def test_an_int_array_is_another_leaf_type_than_a_float_array(tmp_path):
    shown = _shown("jax.tree.leaves({'w': jnp.ones(2)})")
    assert _recalled(tmp_path, shown, _question("jax.tree.leaves({'w': jnp.arange(2)})")) == []


def test_an_output_hidden_until_opened_shows_nothing(tmp_path):
    hidden = _cell(SHOWN, "[2, 1]", "tag_hide-output")
    assert _recalled(tmp_path, hidden, _question(ASKED)) == []


def test_an_earlier_questions_code_counts_as_shown(tmp_path):
    found = _recalled(tmp_path, _question(SHOWN), _question(ASKED))
    assert found == [RERUN]


def test_an_instance_is_known_by_how_its_class_was_made(tmp_path):
    registered = "@jax.tree_util.register_pytree_node_class\nclass {}:\n    pass"
    shown = _shown(f"{registered.format('Pair')}\n\njax.tree.leaves([Pair()])")
    same = _question(f"{registered.format('Other')}\n\njax.tree.leaves([Other()])")
    plain = _question("class Plain:\n    pass\n\njax.tree.leaves([Plain()])")
    assert _flagged(tmp_path, shown, same) == ["page-1"]
    assert _recalled(tmp_path, shown, plain) == []


@pytest.mark.parametrize(
    ("shown", "asked"),
    [
        (  # another name
            "@jax.jit\ndef f(x):\n    return x\n\nf({'a': jnp.ones(2)})",
            "@jax.jit\ndef g(y):\n    return y\n\ng({'b': jnp.zeros(3)})",
        ),
        (  # other arguments, in another order
            "def loss(p, x):\n    return p\n\njax.grad(loss)({'w': 1.0}, 2.0)",
            "def total(tree):\n    return tree\n\njax.grad(total)({'b': 3.0})",
        ),
    ],
)
def test_a_transformed_function_is_known_by_its_transformation_not_its_name_or_arguments(
    tmp_path, shown, asked
):
    assert _flagged_after(tmp_path, shown, asked) == ["page-1"]


def test_comparing_two_results_is_a_step_of_its_own(tmp_path):
    shown = _shown('jax.tree.structure({"a": 1})')
    asked = 'jax.tree.structure({"a": 1}) == jax.tree.structure({"b": 2})'
    assert _recalled(tmp_path, shown, _question(asked)) == []


def test_changing_an_object_in_place_is_a_step_of_its_own(tmp_path):
    shown = _shown("@jax.jit\ndef f(x):\n    return x\n\nf({'a': 1.0})")
    asked = "@jax.jit\ndef f(x):\n    return x\n\nbox = {'a': 1.0}\nf(box)\nbox.mode = 2\nf(box)"
    assert _recalled(tmp_path, shown, _question(asked)) == []


def test_a_question_whose_answer_is_a_line_of_an_earlier_output_is_recall(tmp_path):
    answer = "{'a': (1, 30)}"
    asked = _question("other(tree)", ("{'a': 1}", answer))
    found = _recalled(tmp_path, _cell("show(tree)", answer), asked)
    assert found == [
        f'page-1: its answer "{answer}" stands in an output, shown by page: show(tree)'
    ]


def test_a_short_answer_in_an_earlier_output_is_a_coincidence(tmp_path):
    assert _recalled(tmp_path, _cell("show(tree)", "[2, 1]"), _question("other(tree)")) == []


def test_the_report_lists_each_recall_question_and_fails(tmp_path):
    text, failed = audit_report(_page(tmp_path, _shown(SHOWN), _question(ASKED)))
    assert text == f"1 questions the book's test fails:\n  {RERUN}\n"
    assert failed


def test_a_question_without_a_hidden_code_cell_of_its_own_is_listed(tmp_path):
    asked = quiz_html("page-2", "What?", ["1", "2"], "2", "Because.")
    page = tmp_path / "page.html"
    page.write_text(
        _question(ASKED)
        + _cell(SHOWN, "[2, 1]")
        + f'<div class="cell tag_remove-input docutils container">'
        f'<div class="cell_output docutils container">{asked}</div></div>',
        encoding="utf-8",
    )
    assert [q.key for q in questions_without_code([("page", page)])] == ["page-2"]


def test_attributes_set_inside_a_definition_change_nothing_yet(tmp_path):
    registered = "@jax.tree_util.register_pytree_node_class\nclass {}:\n"
    keeping = "    def __init__(self, x):\n        pass\n\njax.tree.leaves([Pair(1.0)])"
    setting = "    def __init__(self, x):\n        self.x = x\n\njax.tree.leaves([Other(2.0)])"
    shown = _shown(registered.format("Pair") + keeping)
    asked = _question(registered.format("Other") + setting)
    assert _flagged(tmp_path, shown, asked) == ["page-1"]


def test_an_ordered_dict_is_a_plain_container_and_a_counter_a_kind_of_its_own(tmp_path):
    imports = "from collections import Counter, OrderedDict\n"
    ordered = _question(f"{imports}jax.tree.leaves(OrderedDict(z=3, y=4))")
    counter = _question(f"{imports}jax.tree.leaves(Counter(z=3, y=4))")
    assert _flagged(tmp_path, _shown(SHOWN), ordered) == ["page-1"]
    assert _recalled(tmp_path, _shown(SHOWN), counter) == []


def test_a_literal_keyword_argument_is_compared_by_its_value(tmp_path):
    shown = _shown("axes = (None, 0)\njax.vmap(f, in_axes=axes)")
    same = _question("jax.vmap(g, in_axes=(None, 0))")
    other = _question("jax.vmap(g, in_axes=(None, 1))")
    assert _flagged(tmp_path, shown, same) == ["page-1"]
    assert _recalled(tmp_path, shown, other) == []


def test_a_subclass_of_a_registered_class_is_one_kind_however_its_base_was_registered(
    tmp_path,
):
    shown = _shown(
        "class Base:\n    pass\n\n"
        "jax.tree_util.register_pytree_node(Base, f, g)\n"
        "class Sub(Base):\n    pass\n\njax.tree.leaves(Sub())"
    )
    asked = _question(
        "@jax.tree_util.register_pytree_node_class\nclass Pair:\n    pass\n\n"
        "class Named(Pair):\n    pass\n\njax.tree.leaves(Named())"
    )
    assert _flagged(tmp_path, shown, asked) == ["page-1"]


def test_every_optax_transformation_has_the_same_init(tmp_path):
    imports = "import optax\n"
    shown = _shown(f"{imports}optax.adam(1e-3).init({{'w': jnp.ones(2)}})")
    asked = _question(f"{imports}optax.sgd(0.1, momentum=0.9).init({{'b': jnp.zeros(3)}})")
    assert _flagged(tmp_path, shown, asked) == ["page-1"]


def test_a_function_the_question_defines_is_read_through_the_calls_of_its_body(tmp_path):
    asked = _question("def count(n):\n    return len(jax.tree.leaves({'z': 3}))\n\ncount(1)")
    assert _flagged(tmp_path, _shown(SHOWN), asked) == ["page-1"]


def test_what_a_lambda_returns_counts_only_for_a_tree_function(tmp_path):
    shown = _shown("jax.lax.cond(True, lambda: {'a': 1.0}, lambda: {'b': 2.0})")
    cond = _question("jax.lax.cond(True, lambda: (1.0, 2.0), lambda: [1.0, 2.0])")
    mapped = _question("jax.tree.map(lambda x: (x, x), [1.0])")
    assert _flagged(tmp_path, shown, cond) == ["page-1"]
    assert _recalled(tmp_path, _shown("jax.tree.map(lambda x: x, [1.0])"), mapped) == []


CHOICES = ("[1, 2]", "[2, 1]")


def _quoted(code: str, new: str, choices: tuple[str, str] = CHOICES) -> str:
    """A question on ``code`` that says ``new`` is what no earlier cell showed."""
    asked = quiz_html("page-1", "What?", list(choices), 1, "Because.", new=new)
    return _cell(code, "hidden", "tag_hide-output") + (
        f'<div class="cell tag_remove-input docutils container">'
        f'<div class="cell_output docutils container">{asked}</div></div>'
    )


def _read_as(code: str, *labels: str) -> dict[str, list[Reading]]:
    """Readings that call the question ``_quoted`` makes of ``code`` each of ``labels``."""
    return {"page-1": [Reading(label, digest(code, CHOICES, 1)) for label in labels]}


QUOTED = 'jax.tree.leaves({"z": 3, "y": (4,)})'


def test_a_flagged_question_read_as_a_prediction_that_quotes_new_code_passes(tmp_path):
    asked = _quoted(QUOTED, new='"y": (4,)')
    found = _recalled(tmp_path, _shown(SHOWN), asked, readings=_read_as(QUOTED, "prediction"))
    assert found == []


def test_a_flagged_question_with_a_new_quote_and_no_reading_fails_saying_what_it_needs(
    tmp_path,
):
    [found] = _recalled(tmp_path, _shown(SHOWN), _quoted(QUOTED, new='"y": (4,)'))
    read = digest(QUOTED, CHOICES, 1)
    assert f"no reading calls this question ({read}) a prediction: have someone who" in found


def test_a_reading_of_the_question_before_it_changed_does_not_count(tmp_path):
    readings = _read_as('jax.tree.leaves({"z": 3})', "prediction")
    asked = _quoted(QUOTED, new='"y": (4,)')
    [found] = _recalled(tmp_path, _shown(SHOWN), asked, readings=readings)
    before = digest('jax.tree.leaves({"z": 3})', CHOICES, 1)
    assert f"the readings of it ({before}) read it before it changed" in found


def test_a_reading_that_calls_the_question_recall_fails_it(tmp_path):
    readings = _read_as(QUOTED, "prediction", "recall")
    asked = _quoted(QUOTED, new='"y": (4,)')
    [found] = _recalled(tmp_path, _shown(SHOWN), asked, readings=readings)
    assert "its calls ran before, and a reader's reading calls it recall" in found


def test_a_quote_in_an_earlier_cell_without_output_is_refused(tmp_path):
    defined = _cell('extra = {"y": (4,)}')
    asked = _quoted(QUOTED, new='"y": (4,)')
    readings = _read_as(QUOTED, "prediction")
    [found] = _recalled(tmp_path, _shown(SHOWN), defined, asked, readings=readings)
    assert "is new, but it was shown, shown by page: extra = " in found


def test_a_quote_that_differs_from_shown_code_only_by_its_values_is_refused(tmp_path):
    found = _recalled(tmp_path, _shown(SHOWN), _quoted(ASKED, new='{"z": 3, "y": 4}'))
    assert found == [
        f'page-1: it says \'{{"z": 3, "y": 4}}\' is new, but it was shown, shown by page: {SHOWN}'
    ]


def test_a_quote_that_only_renames_what_an_earlier_cell_bound_is_refused(tmp_path):
    shown = _shown("total = 0\nfor leaf in jax.tree.leaves(tree):\n    total += leaf")
    asked = "count = 0\nfor x in jax.tree.leaves(tree):\n    count += x"
    quote = "for x in jax.tree.leaves(tree): count += x"
    readings = _read_as(asked, "prediction")
    [found] = _recalled(tmp_path, shown, _quoted(asked, quote), readings=readings)
    assert "is new, but it was shown, shown by page: total = 0" in found


def test_a_quote_that_uses_another_object_of_the_page_is_new(tmp_path):
    shown = _shown("jax.tree.leaves(params)")
    asked = "jax.tree.leaves(stacked)"
    readings = _read_as(asked, "prediction")
    assert _recalled(tmp_path, shown, _quoted(asked, asked), readings=readings) == []


def test_an_int_in_a_quote_is_not_the_float_an_earlier_cell_held(tmp_path):
    shown = _shown("f(1.0)\nf(2.0)")
    assert _recalled(tmp_path, shown, _quoted("f(1.0)\nf(2)", "f(2)")) == []


def test_a_quote_not_in_the_questions_own_code_is_refused(tmp_path):
    found = _recalled(tmp_path, _shown(SHOWN), _quoted(ASKED, new="is_leaf=None"))
    assert found == ["page-1: it says 'is_leaf=None' is new, but its code has none, shown by "]


def test_a_quote_does_not_excuse_an_answer_shown_in_an_earlier_output(tmp_path):
    answer = "{'a': (1, 30)}"
    asked = _quoted("other(tree, is_leaf=None)", "is_leaf=None", ("{'a': 1}", answer))
    assert _flagged(tmp_path, _cell("show(tree)", answer), asked) == ["page-1"]


def test_the_digests_name_each_question_with_the_digest_of_what_the_reader_sees(tmp_path):
    printed = digests(_page(tmp_path, _shown(SHOWN), _quoted(QUOTED, new='"y": (4,)')))
    assert printed == f"page-1 {digest(QUOTED, CHOICES, 1)}\n"
