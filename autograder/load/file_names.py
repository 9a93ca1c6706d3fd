"""File names as text a report can hold."""

from __future__ import annotations

import os


def shown_name(name: str) -> str:
    """``name``, as the file system gave it, with each byte that is not UTF-8 written ``\\xNN``.

    Python hands such bytes over as lone surrogates (``os.listdir`` decodes with
    ``surrogateescape``), which no UTF-8 file can hold; written out, two names that
    differ in such a byte stay apart, as they are on disk.
    """
    return os.fsencode(name).decode("utf-8", "backslashreplace")
