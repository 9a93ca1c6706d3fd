"""What makes a tree picture hard to read, in plain geometry: text labels whose boxes
overlap, and lines (edges) that cross a label's box.

Shared by the generator's unit test (boxes estimated from the SVG's markup) and the
browser test (boxes measured with ``getBBox`` on the built pages).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Label:
    text: str
    x: float  # left
    y: float  # top
    width: float
    height: float


@dataclass(frozen=True)
class Segment:
    x1: float
    y1: float
    x2: float
    y2: float


def overlap(a: Label, b: Label) -> bool:
    """Whether the boxes of ``a`` and ``b`` share an area (touching edges do not count)."""
    return (
        min(a.x + a.width, b.x + b.width) - max(a.x, b.x) > 0
        and min(a.y + a.height, b.y + b.height) - max(a.y, b.y) > 0
    )


def crosses(segment: Segment, label: Label) -> bool:
    """Whether ``segment`` passes through ``label``'s box, edges included (Liang–Barsky)."""
    dx, dy = segment.x2 - segment.x1, segment.y2 - segment.y1
    start, end = 0.0, 1.0
    for p, q in (
        (-dx, segment.x1 - label.x),
        (dx, label.x + label.width - segment.x1),
        (-dy, segment.y1 - label.y),
        (dy, label.y + label.height - segment.y1),
    ):
        if p == 0:
            if q < 0:
                return False  # parallel to this side and outside it
            continue
        t = q / p
        if p < 0:
            start = max(start, t)
        else:
            end = min(end, t)
        if start > end:
            return False
    return True


def problems(labels: list[Label], segments: list[Segment]) -> list[str]:
    """Each pair of overlapping labels and each line through a label, as a sentence."""
    found = [
        f"labels {a.text!r} and {b.text!r} overlap"
        for a, b in combinations(labels, 2)
        if overlap(a, b)
    ]
    found += [
        f"a line from ({s.x1:.0f}, {s.y1:.0f}) to ({s.x2:.0f}, {s.y2:.0f}) crosses {label.text!r}"
        for s in segments
        for label in labels
        if crosses(s, label)
    ]
    return found
