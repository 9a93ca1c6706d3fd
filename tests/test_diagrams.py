"""The tree pictures' layout: labels apart from each other and from the edges.

The text boxes here are estimated from the SVG's markup with a monospace font's
metrics (an advance of 0.6 em, 0.95 em above the baseline and 0.25 em below);
``tests/test_browser.py`` measures the same on the built pages.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections import namedtuple
from typing import Any

import numpy as np
import pytest
from figure_geometry import Label, Segment, problems

from booktools.diagrams import draw_tree, sharded_tree_svg, tree_svg

SVG = "{http://www.w3.org/2000/svg}"
ADVANCE, ASCENT, DESCENT = 0.6, 0.95, 0.25


class Scaled:
    """A custom node with aux_data, registered below."""

    def __init__(self, value: Any, factor: float) -> None:
        self.value, self.factor = value, factor


def _register() -> None:
    import jax

    jax.tree_util.register_pytree_with_keys(
        Scaled,
        lambda s: (((jax.tree_util.GetAttrKey("value"), s.value),), s.factor),
        lambda factor, children: Scaled(children[0], factor),
    )


_register()


def _labels(svg: ElementTree.Element) -> list[Label]:
    labels = []
    for text in svg.iter(f"{SVG}text"):
        size = 11 if text.get("class") == "key" else 12
        content = "".join(text.itertext())
        width = len(content) * ADVANCE * size
        x = float(text.get("x"))
        if text.get("text-anchor") == "middle":
            x -= width / 2
        top = float(text.get("y")) - ASCENT * size
        labels.append(Label(content, x, top, width, (ASCENT + DESCENT) * size))
    return labels


def _segments(svg: ElementTree.Element) -> list[Segment]:
    segments = []
    for path in svg.iter(f"{SVG}path"):
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", path.get("d"))]
        segments.append(Segment(*numbers))
    for line in svg.iter(f"{SVG}line"):
        segments.append(Segment(*(float(line.get(a)) for a in ("x1", "y1", "x2", "y2"))))
    return segments


def _parse(tree: Any) -> ElementTree.Element:
    return ElementTree.fromstring(tree_svg(tree, "a caption"))


TREES = {
    "two scalar leaves": {
        "count": np.array(0, np.int32),
        "total": np.array(0.0, np.float32),
    },
    "two levels of dicts": {
        "params": {"b": np.zeros(()), "w": np.zeros(2)},
        "grads": {"b": 0.0, "w": np.zeros(2)},
    },
    "a long key beside a short one": (None, {"x": 0, "temperature": None}),
    "a wide list": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    "a named tuple": namedtuple("Layer", "weight bias")(np.zeros((2, 3)), None),
    "a custom node with aux_data": [Scaled({"inner": [1.0, 2.0]}, 0.5), Scaled(3.0, 2)],
    "long keys over short leaves": {
        "a_rather_long_key_name": 1,
        "another_long_key_name": 2,
        "and_one_more_long_key": 3,
    },
}


@pytest.mark.parametrize("tree", TREES.values(), ids=TREES.keys())
def test_no_labels_overlap_and_no_edge_crosses_a_label(tree):
    svg = _parse(tree)
    assert problems(_labels(svg), _segments(svg)) == []


def _sharded_params() -> dict:
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    placed = {
        "dense": {"w": (np.zeros((8, 4)), P("data", "model")), "b": (np.zeros(4), P())},
        "out": {"w": (np.zeros((4, 2)), P(None, "model"))},
    }
    tree = {
        name: {
            leaf: jax.device_put(x, NamedSharding(mesh, spec)) for leaf, (x, spec) in layer.items()
        }
        for name, layer in placed.items()
    }
    tree["step"] = jax.numpy.zeros((), np.int32)
    return tree


def test_a_sharded_tree_shows_each_arrays_spec_and_block_under_it():
    texts = [
        label.text for label in _labels(ElementTree.fromstring(sharded_tree_svg(_sharded_params())))
    ]
    for layout in (
        "P(data,model): [2,2] each",
        "P(): [4] each",
        "P(None,model): [4,1] each",
        "one device",
    ):
        assert layout in texts
    assert texts.count("float32[8, 4]") == 1


def test_no_labels_of_a_sharded_tree_overlap_and_no_edge_crosses_one():
    svg = ElementTree.fromstring(sharded_tree_svg(_sharded_params(), "a caption"))
    assert problems(_labels(svg), _segments(svg)) == []


def _figure_tag(markup: str) -> str:
    return re.match(r"<figure [^>]*>", markup).group(0)


def test_a_picture_wider_than_the_page_can_be_reached_and_scrolled_by_keyboard():
    shown = draw_tree({"a": [1, 2]}, "Two leaves under a list").data
    assert 'tabindex="0"' in _figure_tag(shown)
    assert "<figcaption" in shown and "Two leaves under a list" in shown  # its name


def test_a_picture_without_a_caption_is_named_all_the_same():
    tag = _figure_tag(draw_tree({"a": [1, 2]}).data)
    assert 'tabindex="0"' in tag and 'aria-label="A pytree"' in tag


# What a screen reader reads -------------------------------------------------------


def _named(svg: ElementTree.Element, attribute: str) -> str:
    """The text of the element the picture's ``attribute`` (aria-labelledby, ...) names."""
    target = svg.get(attribute)
    found = [element for element in svg.iter() if element.get("id") == target]
    assert len(found) == 1, f"{attribute}={target!r} names {len(found)} elements"
    return "".join(found[0].itertext())


def test_a_picture_is_named_by_its_caption():
    svg = ElementTree.fromstring(tree_svg({"a": 1}, "one dict, one leaf"))
    assert svg.get("role") == "img"
    assert _named(svg, "aria-labelledby") == "one dict, one leaf"


def test_a_picture_without_a_caption_is_named_by_its_root():
    svg = ElementTree.fromstring(tree_svg([1, 2]))
    assert _named(svg, "aria-labelledby") == "A pytree whose root is list"


def test_a_pictures_description_says_what_the_tree_holds_key_by_key():
    svg = ElementTree.fromstring(tree_svg({"b": [2.5, None], "a": 1}, "a caption"))
    assert _named(svg, "aria-describedby") == (
        "A pytree of 2 leaves. Its root is node dict, 2 children "
        "('a': leaf 1; 'b': node list, 2 children (0: leaf 2.5; 1: None, a node with no children))."
    )


def test_a_pictures_description_names_a_custom_nodes_aux_data_and_an_arrays_shape():
    svg = ElementTree.fromstring(tree_svg(Scaled(np.zeros((2, 3), np.float32), 0.5)))
    assert _named(svg, "aria-describedby") == (
        "A pytree of 1 leaf. Its root is custom node Scaled with aux_data 0.5, "
        "1 child (value: leaf float32[2, 3])."
    )


def test_a_sharded_pictures_description_says_where_each_array_lives():
    svg = ElementTree.fromstring(sharded_tree_svg(_sharded_params()))
    described = _named(svg, "aria-describedby")
    assert "leaf float32[8, 4], laid out as P(data,model): [2,2] each" in described
    assert "laid out as one device" in described


def test_two_pictures_have_ids_of_their_own():
    first, second = (ElementTree.fromstring(tree_svg([1])) for _ in range(2))
    assert first.get("aria-labelledby") != second.get("aria-labelledby")
    assert first.get("aria-describedby") != second.get("aria-describedby")
