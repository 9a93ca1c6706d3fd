"""Learner text made safe to show anywhere: on a terminal, in XML, in UTF-8 files; and
points as the course writes them. Below every stage: the learner's tools show it as
the reports do."""

from __future__ import annotations

import re
import unicodedata

MAX_MESSAGE = 2000

# CSI and OSC terminal escape sequences, then any other control character but tab and newline.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What no UTF-8 file or XML 1.0 document can hold, and Unicode's non-characters: lone
# surrogates (JSON's "\ud800" decodes to one), U+FFFE and U+FFFF of every plane, and
# U+FDD0 to U+FDEF. Each becomes U+FFFD, the replacement character.
_NOT_TEXT = re.compile(
    "[\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000))
    + "]"
)
REPLACEMENT = "\ufffd"
_LINE_BREAKS = re.compile("[\n\t\u2028\u2029]")


def clean(text: str, limit: int | None = MAX_MESSAGE) -> str:
    """``text`` without terminal escape sequences, control or format characters, with
    U+FFFD for each character no UTF-8 file or XML document can hold (a lone surrogate,
    U+FFFE, U+FFFF) and each other non-character, cut after ``limit`` characters
    (``None``: as long as it is). Every format can write what it returns, and cleaning
    it again changes nothing when ``limit`` is None.

    Format characters (Unicode category Cf) are the bidi controls, which can show a
    message reversed or reordered, and the invisible ones (zero-width spaces and
    joiners, the byte order mark): neither belongs in a report.
    """
    text = _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))
    if not text.isascii():
        text = _NOT_TEXT.sub(REPLACEMENT, _without_format_characters(text))
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + f" … [{len(text) - limit} more characters cut]"


def clean_name(text: str) -> str:
    """``text`` cleaned as :func:`clean` does, whole, and on one line: a name or a path,
    whose line breaks and tabs become spaces, so that no name starts a line of its own
    on a terminal or in a log."""
    return _LINE_BREAKS.sub(" ", clean(text, limit=None))


def _without_format_characters(text: str) -> str:
    """``text`` without its characters of Unicode category Cf, as this Python knows it.

    Each distinct character of ``text`` is looked up, rather than a pattern of the whole
    category built from all 1.1 million code points (0.13 s of CPU, a tenth of a
    learner's ``check``); characters a later Unicode version adds are removed too.
    """
    found = {ord(c): None for c in set(text) if unicodedata.category(c) == "Cf"}
    return text.translate(found) if found else text


def points(value: float) -> str:
    """Points as every format writes them: ``3``, ``1.5``, never ``3.0``."""
    return f"{value:g}"
