"""Trees drawn as trees: an SVG picture of a pytree, made from the real object.

Every node is what ``jax.tree_util.flatten_one_level_with_keys`` finds in it, so the
picture shows what JAX sees, not what the author thinks it sees: containers as
boxes named by their type, each edge labelled with the key JAX gives the child,
leaves as rounded boxes with their value, ``None`` and empty containers as nodes
without children, and a custom node's aux_data in a dashed box beside it.

Written here rather than with graphviz so the book needs no system package and the
picture follows the page's light or dark theme (colours are CSS variables of the
book's theme, with fallbacks for JupyterLab).
"""

from __future__ import annotations

import html
import itertools
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.tree_util as tu
import numpy as np
from IPython.display import HTML

# Lengths in pixels. A level is a row of boxes; below it the edges run down to the next
# row, each ending above its child's key label, which sits just over the child's box:
#
#   [parent]
#      \           EDGE_RISE at least
#       \          KEY_GAP
#       'key'      KEY_HEIGHT
#                  KEY_GAP
#     [child]
#
# so no edge crosses a label, and labels of one row sit in slots that do not overlap.
NODE_HEIGHT = 30
KEY_HEIGHT = 14
KEY_GAP = 4
EDGE_RISE = 24
LEVEL_GAP = NODE_HEIGHT + EDGE_RISE + 2 * KEY_GAP + KEY_HEIGHT
TOP = 4
GAP = 14
AUX_GAP = 14
# Text widths per character: a monospace font's advance (0.6 em) at 12 px for the
# nodes, whose boxes pad their text by 8 px a side, and a little over it at 11 px for
# the keys, which have no box, so an estimate is never short of the drawn text.
CHAR = 7.2
KEY_CHAR = 6.8
MAX_LABEL = 22

STYLE = """
.pt-tree text { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; fill: currentColor; }
.pt-tree .edge { stroke: var(--pst-color-text-muted, #888); stroke-width: 1.2; fill: none; }
.pt-tree .key { font-size: 11px; fill: var(--pst-color-text-muted, #777); }
.pt-tree .container rect { fill: var(--pst-color-primary-bg, #e6ecfb);
  stroke: var(--pst-color-primary, #3a5ccc); stroke-width: 1.5; }
.pt-tree .custom rect { fill: var(--pst-color-secondary-bg, #f6e9fb);
  stroke: var(--pst-color-secondary, #9b3fc1); stroke-width: 1.5; }
.pt-tree .leaf rect { fill: var(--pst-color-success-bg, #e3f4e8);
  stroke: var(--pst-color-success, #2f8a4c); stroke-width: 1.5; }
.pt-tree .empty rect { fill: none; stroke: var(--pst-color-text-muted, #888);
  stroke-dasharray: 4 3; stroke-width: 1.2; }
.pt-tree .aux rect { fill: none; stroke: var(--pst-color-secondary, #9b3fc1);
  stroke-dasharray: 5 3; stroke-width: 1.2; }
.pt-tree .layout rect { fill: var(--pst-color-warning-bg, #fbf3e0);
  stroke: var(--pst-color-warning, #b7791f); stroke-dasharray: 4 2; stroke-width: 1.2; }
.pt-tree .aux line { stroke: var(--pst-color-secondary, #9b3fc1); stroke-dasharray: 2 3; }
"""


@dataclass
class _Node:
    label: str
    kind: str  # "container", "custom", "leaf", "layout" or "empty"
    key: str = ""
    aux: str | None = None
    children: list[_Node] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def _leaf_label(value: Any) -> str:
    if isinstance(value, np.ndarray | jax.Array):
        return f"{value.dtype}{list(value.shape)}"
    return _short(repr(value))


def _key_text(key: Any) -> str:
    for attribute in ("key", "idx", "name"):
        if hasattr(key, attribute):
            value = getattr(key, attribute)
            return _short(repr(value) if attribute == "key" else str(value))
    return _short(str(key))


_BUILTIN_NODES = {list, tuple, dict, type(None)}
_EMPTY_LABELS = {list: "[]", tuple: "()", dict: "{}"}


def _leaf(value: Any, key: str) -> _Node:
    return _Node(_leaf_label(value), "leaf", key)


def _walk(value: Any, key: str = "", leaf: Any = _leaf) -> _Node:
    """The drawing's node for ``value``; ``leaf(value, key)`` makes the node of a leaf."""
    try:
        children, aux = tu.flatten_one_level_with_keys(value)
    except ValueError:
        return leaf(value, key)
    kind_type = type(value)
    if value is None:
        return _Node("None", "empty", key)
    if not children and type(value) in _EMPTY_LABELS:
        return _Node(_EMPTY_LABELS[type(value)], "empty", key)
    fields = getattr(kind_type, "_fields", None)
    name = kind_type.__name__
    custom = (
        kind_type not in _BUILTIN_NODES
        and fields is None
        and name
        not in {
            "OrderedDict",
            "defaultdict",
        }
    )
    node = _Node(name, "custom" if custom else "container", key)
    if custom and aux is not None:
        node.aux = _short(repr(aux))
    keys = list(fields) if fields else [_key_text(k) for k, _ in children]
    node.children = [_walk(child, keys[i], leaf) for i, (_, child) in enumerate(children)]
    if not node.children:
        node.kind = "empty" if not custom else node.kind
    return node


def _width(node: _Node) -> float:
    return max(len(node.label) * CHAR + 16, 40)


def _key_width(node: _Node) -> float:
    return len(node.key) * KEY_CHAR


def _aux_width(node: _Node) -> float:
    return (len(node.aux) + len("aux_data: ")) * CHAR + 20 if node.aux else 0.0


def _own_span(node: _Node) -> float:
    """Room the node needs for itself, centred on it: its box, the key label over it,
    and its aux_data box to the right (mirrored on the left, to stay centred)."""
    half = max(_width(node), _key_width(node)) / 2
    if node.aux:
        half = max(half, _width(node) / 2 + AUX_GAP + _aux_width(node))
    return 2 * half + GAP


def _span(node: _Node) -> float:
    return max(_own_span(node), sum(_span(child) for child in node.children))


def _layout(node: _Node, depth: int, left: float) -> None:
    """Place ``node``'s subtree in the slot that starts at ``left``."""
    span = _span(node)
    node.y = TOP + depth * LEVEL_GAP
    node.x = left + span / 2
    children = sum(_span(child) for child in node.children)
    cursor = left + (span - children) / 2
    for child in node.children:
        _layout(child, depth + 1, cursor)
        cursor += _span(child)


def _nodes(node: _Node) -> list[_Node]:
    out = [node]
    for child in node.children:
        out.extend(_nodes(child))
    return out


def _edge_and_key(parent: _Node, child: _Node) -> list[str]:
    """The edge from ``parent`` down to ``child``, ending above the child's key label,
    and the label, centred over the child's box."""
    end = child.y - (2 * KEY_GAP + KEY_HEIGHT if child.key else 0)
    parts = [
        f'<path class="edge" d="M{parent.x:.1f},{parent.y + NODE_HEIGHT:.1f} '
        f'L{child.x:.1f},{end:.1f}"/>'
    ]
    if child.key:
        # The baseline leaves the descenders inside the label's band.
        baseline = child.y - KEY_GAP - 3
        parts.append(
            f'<text class="key" x="{child.x:.1f}" y="{baseline:.1f}" text-anchor="middle">'
            f"{html.escape(child.key)}</text>"
        )
    return parts


# Numbers the pictures a kernel draws, so each one's title and description have ids of
# their own on a page (a chapter's pictures are all drawn by one kernel).
_PICTURE_NUMBERS = itertools.count(1)


def _leaf_count(node: _Node) -> int:
    return sum(1 for n in _nodes(node) if n.kind == "leaf")


def _phrase(node: _Node) -> str:
    """What ``node`` holds, in words, its children's in parentheses after it."""
    if node.kind == "layout":
        return f"laid out as {node.label}"
    if node.kind == "empty":
        return f"{node.label}, a node with no children"
    if node.kind == "leaf":
        words = f"leaf {node.label}"
        return words + "".join(f", {_phrase(child)}" for child in node.children)
    kind = "custom node" if node.kind == "custom" else "node"
    words = f"{kind} {node.label}"
    if node.aux:
        words += f" with aux_data {node.aux}"
    count = len(node.children)
    if not count:
        return words + ", with no children"
    children = "; ".join(f"{child.key}: {_phrase(child)}" for child in node.children)
    return f"{words}, {count} {'child' if count == 1 else 'children'} ({children})"


def _describe(root: _Node) -> str:
    """The picture in words, for a screen reader: how many leaves the tree has, then each
    node from the root down, every child after the key it hangs under, as drawn."""
    leaves = _leaf_count(root)
    noun = "leaf" if leaves == 1 else "leaves"
    return f"A pytree of {leaves} {noun}. Its root is {_phrase(root)}."


def _svg(root: _Node, caption: str | None) -> str:
    _layout(root, 0, 0)
    nodes = _nodes(root)
    width = _span(root)
    height = max(n.y for n in nodes) + NODE_HEIGHT + 10
    parts = []
    for node in nodes:
        for child in node.children:
            parts.extend(_edge_and_key(node, child))
    for node in nodes:
        w = _width(node)
        radius = 12 if node.kind == "leaf" else 3
        parts.append(
            f'<g class="{node.kind}"><rect x="{node.x - w / 2:.1f}" y="{node.y:.1f}" '
            f'width="{w:.1f}" height="{NODE_HEIGHT}" rx="{radius}"/>'
            f'<text x="{node.x:.1f}" y="{node.y + 19:.1f}" text-anchor="middle">'
            f"{html.escape(node.label)}</text></g>"
        )
        if node.aux:
            aux_w = _aux_width(node)
            ax = node.x + w / 2 + AUX_GAP
            parts.append(
                f'<g class="aux"><line x1="{node.x + w / 2:.1f}" y1="{node.y + 15:.1f}" '
                f'x2="{ax:.1f}" y2="{node.y + 15:.1f}"/>'
                f'<rect x="{ax:.1f}" y="{node.y:.1f}" width="{aux_w:.1f}" '
                f'height="{NODE_HEIGHT}" rx="3"/>'
                f'<text x="{ax + 8:.1f}" y="{node.y + 19:.1f}">aux_data: '
                f"{html.escape(node.aux)}</text></g>"
            )
    title = html.escape(caption or f"A pytree whose root is {root.label}")
    description = html.escape(_describe(root))
    ids = f"pt-tree-{next(_PICTURE_NUMBERS)}"
    return (
        f'<svg class="pt-tree" role="img" aria-labelledby="{ids}-title" '
        f'aria-describedby="{ids}-desc" width="{width + 8:.0f}" '
        f'height="{height:.0f}" viewBox="-4 0 {width + 8:.0f} {height:.0f}" '
        # Centred under the page's column as the caption is; scrolled when wider.
        'style="display:block;margin:0 auto" '
        f'xmlns="http://www.w3.org/2000/svg"><title id="{ids}-title">{title}</title>'
        f'<desc id="{ids}-desc">{description}</desc>'
        f"<style>{STYLE}</style>{''.join(parts)}</svg>"
    )


def tree_svg(tree: Any, caption: str | None = None) -> str:
    """The SVG markup of ``tree``'s diagram."""
    return _svg(_walk(tree), caption)


def draw_tree(tree: Any, caption: str | None = None) -> HTML:
    """Show ``tree`` as a diagram (in a notebook or a built page), with an optional caption."""
    return _figure(tree_svg(tree, caption), caption)


def _figure(svg: str, caption: str | None) -> HTML:
    # A picture wider than the page scrolls sideways: a keyboard reaches it by Tab
    # (tabindex), and a screen reader names it by its caption, or "A pytree". Named
    # outright: Chromium left a focusable figure holding a named picture unnamed.
    named = html.escape(caption or "A pytree")
    figure = (
        f'<figure class="pt-tree-figure" tabindex="0" aria-label="{named}" '
        'style="overflow-x:auto;margin:0.5em 0">'
    )
    figure += svg
    if caption:
        figure += f'<figcaption style="font-size:0.9em">{html.escape(caption)}</figcaption>'
    return HTML(figure + "</figure>")


def _layout_label(array: Any) -> str:
    """Where ``array`` lives: its spec and each device's block, or its one device."""
    sharding = getattr(array, "sharding", None)
    if isinstance(sharding, jax.sharding.NamedSharding):
        spec = ",".join(_spec_entry(entry) for entry in sharding.spec)
        block = ",".join(str(n) for n in sharding.shard_shape(array.shape))
        return f"P({spec}): [{block}] each"
    if isinstance(sharding, jax.sharding.SingleDeviceSharding):
        return "one device"
    return "not on a device" if sharding is None else type(sharding).__name__


def _spec_entry(entry: Any) -> str:
    if isinstance(entry, tuple):
        return "(" + ",".join(entry) + ")"
    return str(entry)


def _sharded_leaf(value: Any, key: str) -> _Node:
    """A leaf with its layout in a box under it."""
    node = _leaf(value, key)
    if isinstance(value, jax.Array):
        node.children = [_Node(_layout_label(value), "layout")]
    return node


def sharded_tree_svg(tree: Any, caption: str | None = None) -> str:
    """The SVG markup of ``tree``'s diagram, each array over a box saying where it lives.

    The box of an array laid out over a mesh (a ``NamedSharding``) shows its
    ``PartitionSpec`` and the shape of the block each device holds, as
    ``P(data,None): [2,4] each``; an array on one device says ``one device``.
    """
    return _svg(_walk(tree, leaf=_sharded_leaf), caption)


def draw_sharded_tree(tree: Any, caption: str | None = None) -> HTML:
    """Show a tree of arrays laid out over devices (see :func:`sharded_tree_svg`)."""
    return _figure(sharded_tree_svg(tree, caption), caption)
