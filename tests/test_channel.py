"""Messages between grader and worker: one over a limit is refused; the pipe stays in step."""

from __future__ import annotations

import contextlib
import json
import os
import struct
import subprocess
import sys
import threading

import pytest

from autograder.execute import channel, wire


@pytest.fixture
def pipe():
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):
            os.close(fd)


def write_raw(fd: int, *bodies: bytes) -> threading.Thread:
    """Write length-prefixed ``bodies`` from a thread, as a worker writing to its pipe."""

    def write() -> None:
        for body in bodies:
            data = struct.pack(">I", len(body)) + body
            while data:
                data = data[os.write(fd, data) :]

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_a_message_over_the_size_limit_is_refused_and_the_next_one_is_read(pipe):
    read_fd, write_fd = pipe
    big = json.dumps({"ok": True, "value": "x" * channel.MAX_MESSAGE}).encode()
    write_raw(write_fd, big, b'{"ok": true, "value": 1}')
    with pytest.raises(wire.WireError, match=f"over the limit of {channel.MAX_MESSAGE} bytes"):
        channel.receive(read_fd, timeout=30)
    assert channel.receive(read_fd, timeout=30) == {"ok": True, "value": 1}


def test_a_message_of_too_many_values_is_refused_before_it_is_parsed(pipe, monkeypatch):
    read_fd, write_fd = pipe
    parsed = []
    monkeypatch.setattr(channel.json, "loads", lambda text: parsed.append(text) or {})
    write_raw(write_fd, b'{"value": [' + b"[]," * wire.MAX_VALUES + b"[]]}")
    with pytest.raises(wire.WireError, match=f"more than {wire.MAX_VALUES} values"):
        channel.receive(read_fd, timeout=30)
    assert parsed == []


def test_a_message_nested_past_what_json_can_read_is_refused_as_too_deep(pipe):
    read_fd, write_fd = pipe
    write_raw(write_fd, b'{"value": ' + b"[" * 5_000 + b"]" * 5_000 + b"}")
    with pytest.raises(wire.WireError, match="deeper than"):
        channel.receive(read_fd, timeout=30)


MEMORY_PROBE = """
import json, os, struct, threading
from autograder.execute import channel, wire

def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def hostile(prefix):
    # about 1 MiB of custom nodes, each with a name of its own: what the attack writes
    names = [f"{prefix}{i}" for i in range(15_000)]
    value = [{"$node": n, "children": [], "aux": {"value": None}} for n in names]
    return json.dumps({"ok": True, "value": value}).encode()[: channel.MAX_MESSAGE - 1]

wire.decode([{"$node": "Warm", "children": [], "aux": {"value": None}}])
before = resident()
read_fd, write_fd = os.pipe()
refused = 0
for notebook in range(3):
    with wire.notebook_classes():
        for reply in range(2):
            body = hostile(f"N{notebook}x{reply}x")
            body = body[: body.rindex(b"},") + 1] + b"]}"
            writer = threading.Thread(
                target=os.write, args=(write_fd, struct.pack(">I", len(body)) + body)
            )
            writer.start()
            try:
                wire.decode(channel.receive(read_fd, timeout=60)["value"])
            except wire.WireError:
                refused += 1
            writer.join()
print(json.dumps({"grew": resident() - before, "refused": refused}))
"""


def test_hostile_replies_of_many_names_leave_the_reader_s_memory_bounded():
    """Six replies of about 1 MiB of uniquely named nodes, over three notebooks."""
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    measured = json.loads(done.stdout)
    assert measured["refused"] == 6
    assert measured["grew"] < 64 * 1024**2, measured
