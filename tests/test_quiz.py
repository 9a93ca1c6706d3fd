"""The markup of a question that answers in the page (booktools/quiz.py)."""

from booktools.quiz import quiz_html


def test_a_question_links_the_section_whose_rule_decides_its_answer():
    markup = quiz_html(
        "k-1", "Which?", ["a", "b"], "b", "Because.", ("Dicts sort their keys", "#dicts")
    )
    assert 'Reread <a href="#dicts">Dicts sort their keys</a>.' in markup


def test_a_question_without_a_section_has_no_reread_link():
    assert "Reread" not in quiz_html("k-1", "Which?", ["a", "b"], "b", "Because.")
