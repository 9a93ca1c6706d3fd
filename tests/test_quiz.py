"""The markup of a question that answers in the page (booktools/quiz.py)."""

from booktools.quiz import IN_THE_BOOK, quiz, quiz_html


def test_a_question_links_the_section_whose_rule_decides_its_answer():
    markup = quiz_html(
        "k-1", "Which?", ["a", "b"], "b", "Because.", ("Dicts sort their keys", "#dicts")
    )
    assert 'Reread <a href="#dicts">Dicts sort their keys</a>.' in markup


def test_a_question_without_a_section_has_no_reread_link():
    assert "Reread" not in quiz_html("k-1", "Which?", ["a", "b"], "b", "Because.")


def _noscript(markup: str) -> str:
    return markup.split("<noscript>")[1].split("</noscript>")[0]


def test_without_scripts_a_question_states_its_answer_then_the_explanation():
    markup = quiz_html("k-1", "How many?", ["Three", "Four"], "Four", "Because of order.")
    assert _noscript(markup) == "<p>Answer: Four. Because of order.</p>"


def test_without_scripts_an_answer_the_explanation_opens_with_is_read_once():
    once = quiz_html("k-1", "How many?", ["Three", "Four"], "Four", "Four. Counter is a leaf.")
    twice = quiz_html("k-2", "How often?", ["Twice", "Three times"], 1, "Three: once each.")
    assert _noscript(once) == "<p>Answer: Four. Counter is a leaf.</p>"
    assert _noscript(twice) == "<p>Answer: Three: once each.</p>"


QUESTION = ("k-1", "How many?", ["Three", "Four"], "Four", "Because of order.", ("Order", "#o"))


def test_outside_the_books_build_a_question_shows_its_choices_and_the_answer_when_asked(
    monkeypatch,
):
    monkeypatch.delenv(IN_THE_BOOK, raising=False)
    markup = quiz(*QUESTION).data
    assert '<ol type="A"><li><code>Three</code></li><li><code>Four</code></li></ol>' in markup
    assert (
        "<details><summary>Show the answer</summary>"
        "<p>Answer: Four. Because of order. Reread <em>Order</em>.</p></details>"
    ) in markup
    assert "<button" not in markup


def test_in_the_books_build_a_question_answers_in_the_page(monkeypatch):
    monkeypatch.setenv(IN_THE_BOOK, "1")
    assert quiz(*QUESTION).data == quiz_html(*QUESTION)


def test_what_a_question_says_is_new_is_kept_for_the_audit_and_not_shown():
    markup = quiz_html("k-1", "Which?", ["a", "b"], "b", "Because.", new="P(None)")
    assert 'data-new="P(None)"' in markup
    assert markup.count("P(None)") == 1
