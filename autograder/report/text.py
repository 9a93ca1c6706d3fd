"""How a report writes text in Markdown and in a spreadsheet; learner text made safe
for every format is :mod:`autograder.safe_text`'s."""

from __future__ import annotations

import re

# Markdown's punctuation that can start markup, and HTML's (escaped with a backslash).
_MARKDOWN = re.compile(r"[\\*_\[\]<>&|#!~]")
# What starts a list item where a line begins ("- ", "+ ", "1. ", "1) "); escaped so that
# text written after a list item's own marker stays its text.
_LIST_START = re.compile(r"^(\d*)([-+.)])")
# What makes a spreadsheet read a cell as a formula (OWASP's list).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def markdown_cell(text: str) -> str:
    """``text`` on one line, shown as written in Markdown (a table cell, a list item, a heading).

    Outside code spans, Markdown's and HTML's characters are escaped, so a learner's
    folder name or message can neither add a link, an image or HTML nor end a table
    cell, nor start a list where it begins a line; inside code spans (the course's own
    hints use them) only the pipe is.
    """
    # Only single backticks pair into code spans here. Markdown pairs a run of n backticks
    # with the next run of exactly n, so a longer run left as written could open a span
    # that swallows the escapes after it; it is escaped, one backslash a backtick.
    runs = re.split(r"(`+)", " ".join(text.split()))
    singles = [index for index, run in enumerate(runs) if run == "`"]
    lone = singles.pop() if len(singles) % 2 else None  # shown as itself
    opening = set(singles[::2])
    written, in_code = [], False
    for index, run in enumerate(runs):
        if index in singles:
            in_code = index in opening
            written.append(run)
        elif in_code:
            written.append(run.replace("|", "\\|"))
        elif index == lone or run.startswith("`"):
            written.append("\\`" * len(run))
        else:
            written.append(_escape_markdown(run))
    return _LIST_START.sub(r"\1\\\2", "".join(written))


def _escape_markdown(text: str) -> str:
    return _MARKDOWN.sub(r"\\\g<0>", text)


def spreadsheet_text(text: str) -> str:
    """``text`` for a CSV cell that a spreadsheet will not read as a formula."""
    return f"'{text}" if text[:1] in _FORMULA_STARTS else text
