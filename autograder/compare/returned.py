"""What a learner's function returned, as a failing visible test shows it.

The text is made where the value is (the learner's worker, or their kernel for ``check``)
by the value's own ``__repr__``, which is the learner's code: :func:`short_repr` bounds
its length and its time, and falls back to the type's name. The grader cleans what a
worker sends and only ever shows it; no verdict is read from it.

:class:`Calls` records which line of a test cell made its last call of a learner's
function, so that the value is shown only for the statement that failed.
"""

from __future__ import annotations

import contextlib
import reprlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

MAX_SHOWN = 80
"""Characters of a returned value a message shows: enough for a small answer, one line."""
REPR_SECONDS = 0.5
"""How long a value's ``__repr__`` may run before its type's name stands in for it."""


class _TooSlow(Exception):
    """Raised in a ``__repr__`` that ran past :data:`REPR_SECONDS`."""


class _Short(reprlib.Repr):
    """reprlib's abbreviations, but a repr that fails fails the whole text: reprlib would
    show ``<Name instance at 0x...>`` instead, and let a repr run on past its time."""

    def repr_instance(self, x: Any, level: int) -> str:
        text = repr(x)
        return text if len(text) <= self.maxother else text[: self.maxother - 3] + "..."


_SHORT = _Short()
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = MAX_SHOWN


def short_repr(value: Any) -> str:
    """``value``'s repr on one line, at most :data:`MAX_SHOWN` characters; its type's name
    in angle brackets when the repr raises or takes longer than :data:`REPR_SECONDS`."""
    try:
        with _time_bound(REPR_SECONDS):
            text = _SHORT.repr(value)
        text = str.__str__(text)  # a str subclass's own methods are the learner's too
    except BaseException:  # noqa: BLE001 - a learner's __repr__ may raise anything, exit included
        text = f"<{_type_name(value)}>"
    return one_line(text)


def one_line(text: str) -> str:
    """``text`` with its runs of whitespace made one space, cut to :data:`MAX_SHOWN`."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _type_name(value: Any) -> str:
    try:
        name = type(value).__name__
        return str.__str__(name) if isinstance(name, str) else "a value"
    except BaseException:  # noqa: BLE001 - a metaclass may make even the name raise
        return "a value"


@contextlib.contextmanager
def _time_bound(seconds: float) -> Iterator[None]:
    """Raise :class:`_TooSlow` in the block after ``seconds`` on the clock, where a signal
    can do it (the main thread of a Unix process); elsewhere the block is not bounded."""
    main = threading.current_thread() is threading.main_thread()
    if not main or not hasattr(signal, "setitimer"):
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class _Call:
    function: str
    line: int | None
    shown: Callable[[], str | None] | None = None
    """The returned value's text, asked for only when shown; None while the call runs or
    when it raised."""


class Calls:
    """The last call a test cell made of a learner's function, and the cell line that made it.

    The stand-ins for the learner's functions (or, in the kernel, wrappers of them) tell
    it of each call: :meth:`started` before, :meth:`returned` after.
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self._last: _Call | None = None

    def started(self, function: str) -> None:
        self._last = _Call(function, _line_in(self.filename, sys._getframe(1)))

    def returned(self, shown: Callable[[], str | None]) -> None:
        if self._last is not None:
            self._last.shown = shown

    def shown(self, function: str, first: int, last: int) -> str | None:
        """What ``function`` returned, when the test's last call was of it and was made on
        lines ``first`` to ``last`` of the cell (the statement that failed), and returned."""
        call = self._last
        if call is None or call.function != function or call.shown is None:
            return None
        if call.line is None or not first <= call.line <= last:
            return None
        return call.shown()


def _line_in(filename: str, frame: Any) -> int | None:
    """The line of the innermost frame from ``frame`` outwards that runs code of ``filename``."""
    while frame is not None:
        if frame.f_code.co_filename == filename:
            return frame.f_lineno
        frame = frame.f_back
    return None
