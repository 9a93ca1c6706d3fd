"""Length-prefixed JSON messages over a pair of pipe file descriptors.

A message over :data:`MAX_MESSAGE` bytes, or holding more than
:data:`~autograder.execute.wire.MAX_VALUES` values, is refused with a
:class:`~autograder.execute.wire.WireError` once it has been read (or skipped): the
pipe stays in step, so the process that sent it can go on answering.
"""

from __future__ import annotations

import json
import os
import selectors
import struct
import time
from collections.abc import Iterator
from typing import Any

from autograder.execute.wire import MAX_DEPTH, MAX_VALUES, WireError, count_values

# The largest reply of grading solutions/ is 4803 bytes and the largest request 9190
# (see autograder.execute.wire); an error's message and traceback, 2000 characters
# each, take at most about 25 kB. A megabyte leaves two hundred times that, and
# bounds what reading one reply costs the grader.
MAX_MESSAGE = 1024 * 1024
_HEADER = struct.Struct(">I")


class ChannelClosed(EOFError):
    """The other end closed its pipe or went away."""


class ChannelTimeout(TimeoutError):
    """No complete message arrived before the deadline."""


class ChannelError(ValueError):
    """The other end sent something that is not a message."""


def send(fd: int, message: dict[str, Any]) -> None:
    """Write one message; raises :class:`ChannelClosed` when the reader is gone."""
    body = json.dumps(message, allow_nan=False, separators=(",", ":")).encode()
    data = _HEADER.pack(len(body)) + body
    try:
        while data:
            written = os.write(fd, data)
            data = data[written:]
    except (BrokenPipeError, OSError) as exc:
        raise ChannelClosed(str(exc)) from None


def readable(fd: int, timeout: float) -> bool:
    """Whether something (a message, or the end of the pipe) arrives within ``timeout`` seconds."""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        return bool(selector.select(max(timeout, 0.0)))


def receive(fd: int, timeout: float | None = None) -> dict[str, Any]:
    """Read one message, waiting at most ``timeout`` seconds (forever when None).

    Raises :class:`ChannelTimeout`, :class:`ChannelClosed`, :class:`ChannelError`
    for what is not a message, and :class:`WireError` for a message over a limit.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    if size > MAX_MESSAGE:
        _skip(fd, size, deadline)
        raise WireError(f"a message of {size} bytes is over the limit of {MAX_MESSAGE} bytes")
    body = _read_exactly(fd, size, deadline)
    if count_values(body) > MAX_VALUES:
        raise WireError(f"the message holds more than {MAX_VALUES} values (the limit)")
    try:
        message = json.loads(body)
    except RecursionError:
        nested = f"the message is nested deeper than {MAX_DEPTH} levels (the limit)"
        raise WireError(nested) from None
    except ValueError as exc:
        raise ChannelError(f"unreadable message: {exc}") from None
    if not isinstance(message, dict):
        raise ChannelError("a message must be a JSON object")
    return message


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    return b"".join(_chunks(fd, size, deadline))


def _skip(fd: int, size: int, deadline: float | None) -> None:
    """Read ``size`` bytes and keep none of them."""
    for _ in _chunks(fd, size, deadline):
        pass


def _chunks(fd: int, size: int, deadline: float | None) -> Iterator[bytes]:
    remaining = size
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while remaining:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and (wait <= 0 or not selector.select(wait)):
                raise ChannelTimeout(f"no reply within the time limit ({size - remaining} bytes)")
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                raise ChannelClosed("the other end closed the channel")
            yield chunk
            remaining -= len(chunk)
