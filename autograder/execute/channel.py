"""Length-prefixed JSON messages over a pair of pipe file descriptors."""

from __future__ import annotations

import json
import os
import selectors
import struct
import time
from typing import Any

MAX_MESSAGE = 64 * 1024 * 1024
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
    """Read one message, waiting at most ``timeout`` seconds (forever when None)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    if size > MAX_MESSAGE:
        raise ChannelError(f"message of {size} bytes is over the {MAX_MESSAGE}-byte limit")
    body = _read_exactly(fd, size, deadline)
    try:
        message = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ChannelError(f"unreadable message: {exc}") from None
    if not isinstance(message, dict):
        raise ChannelError("a message must be a JSON object")
    return message


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
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
            chunks.append(chunk)
            remaining -= len(chunk)
    return b"".join(chunks)
