"""Learner text in reports: no terminal escapes, no control characters, bounded length."""

from autograder.report.text import clean


def test_terminal_escape_sequences_are_removed():
    assert clean("\x1b[31mred\x1b[0m \x1b]0;title\x07done") == "red done"


def test_control_characters_are_removed_but_lines_stay():
    assert clean("a\x00b\x08c\r\nd\te") == "abc\nd\te"


def test_long_text_is_cut_and_says_so():
    out = clean("x" * 5000, limit=100)
    assert out.startswith("x" * 100) and "4900 more characters cut" in out


def test_plain_text_is_unchanged():
    assert clean("count_leaves raised KeyError: 'a'") == "count_leaves raised KeyError: 'a'"
