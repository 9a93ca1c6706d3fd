"""The ports of ``./course serve``: whether they are free, and when its servers answer there.

``./course serve`` runs this file as a script (``python booktools/ports.py``), with any
Python 3.11+ and nothing installed, so that a taken port is known before the set-up and
the build, which can take minutes:

- ``free VARIABLE=PORT ...`` exits 0 when every port is free, else 1 with one line naming
  every taken port, the variable that sets it, and free ports to use instead;
- ``wait SECONDS PORT ...`` exits 0 once a server answers HTTP on every port, 1 if one
  does not within SECONDS.
"""

from __future__ import annotations

import http.client
import socket
import sys
import time

LOCALHOST = "127.0.0.1"


def is_free(port: int) -> bool:
    """Whether a server could listen on ``port`` of this machine now.

    Bound as both servers bind (SO_REUSEADDR), so the closed connections of a server that
    just stopped do not count as taken; a server listening there does.
    """
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((LOCALHOST, port))
        except OSError:
            return False
    return True


def free_port_after(port: int, avoid: set[int]) -> int:
    """The first free port above ``port`` that is not in ``avoid``."""
    candidate = port + 1
    while candidate in avoid or not is_free(candidate):
        candidate += 1
    return candidate


def clash(ports: dict[str, int]) -> str | None:
    """One line naming every port of ``ports`` (by variable) that is taken, with free
    ports to set instead; None when all are free."""
    taken = {variable: port for variable, port in ports.items() if not is_free(port)}
    if not taken:
        return None
    avoid = set(ports.values())
    instead = {}
    for variable, port in taken.items():
        instead[variable] = free_port_after(port, avoid)
        avoid.add(instead[variable])
    named = " and ".join(f"{port} ({variable})" for variable, port in taken.items())
    example = " ".join(f"{variable}={port}" for variable, port in instead.items())
    which = "Port" if len(taken) == 1 else "Ports"
    verb = "is" if len(taken) == 1 else "are"
    return (
        f"{which} {named} {verb} taken (by another server, or an earlier ./course serve): "
        f"set {' and '.join(taken)}, e.g. {example} ./course serve"
    )


def answers(port: int) -> bool:
    """Whether an HTTP server answers on ``port`` of this machine (with any status)."""
    connection = http.client.HTTPConnection(LOCALHOST, port, timeout=5)
    try:
        connection.request("HEAD", "/")
        connection.getresponse()
    except OSError:
        return False
    except http.client.HTTPException:
        return True  # something answered, if not well
    finally:
        connection.close()
    return True


def wait_until_answering(ports: list[int], seconds: float) -> bool:
    """Whether every port of ``ports`` answers within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not all(answers(port) for port in ports):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def main(argv: list[str]) -> int:
    if argv[:1] == ["free"]:
        ports = {}
        for pair in argv[1:]:
            variable, _, port = pair.partition("=")
            ports[variable] = int(port)
        message = clash(ports)
        if message:
            print(message, file=sys.stderr)
            return 1
        return 0
    if argv[:1] == ["wait"]:
        return 0 if wait_until_answering([int(p) for p in argv[2:]], float(argv[1])) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
