"""Learner text in reports: no terminal escapes, no control characters, bounded length."""

from autograder.safe_text import clean, clean_name


def test_terminal_escape_sequences_are_removed():
    assert clean("\x1b[31mred\x1b[0m \x1b]0;title\x07done") == "red done"


def test_control_characters_are_removed_but_lines_stay():
    assert clean("a\x00b\x08c\r\nd\te") == "abc\nd\te"


def test_long_text_is_cut_and_says_so():
    out = clean("x" * 5000, limit=100)
    assert out.startswith("x" * 100) and "4900 more characters cut" in out


def test_plain_text_is_unchanged():
    assert clean("count_leaves raised KeyError: 'a'") == "count_leaves raised KeyError: 'a'"


def test_bidi_controls_are_removed():
    # right-to-left override, isolates, marks: they show text reordered ("Trojan source")
    bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
    assert clean(f"raised {bidi}KeyError") == "raised KeyError"


def test_zero_width_and_other_format_characters_are_removed():
    invisible = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
    assert clean(f"Key{invisible}Error") == "KeyError"


def test_other_non_ascii_text_is_kept():
    assert clean("Total: 7 ∕ 7 — ✅ déjà") == "Total: 7 ∕ 7 — ✅ déjà"


def test_a_name_stays_on_one_line():
    assert clean_name("a\n[2/2] b_victim: 0 / 7\tx\u2028y") == "a [2/2] b_victim: 0 / 7 x y"


def test_a_learner_whose_name_holds_a_line_break_is_reported_on_one_line():
    from autograder.report.model import StudentResult

    assert "\n" not in StudentResult("a\nerror: b crashed the grader").student
