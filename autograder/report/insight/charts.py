"""The class page's charts, drawn with Matplotlib as SVG to put inline in the page.

Every chart is an ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that says in
words what it shows, so a screen reader, a text browser and a search all read it.
Text stays text (``svg.fonttype: none``) and takes the colour of the page around it
(``currentColor``), so one drawing reads in a light and in a dark theme and prints.
The palette is Okabe and Ito's, made to be told apart by colour-blind readers; the
bars of the outcome chart are hatched too, for a grey print.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Sequence

import matplotlib

# pyplot is not used: a Figure of its own draws headless, without a display or its
# backend's start-up, and savefig writes it with Matplotlib's SVG backend.
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from autograder.report.insight.stats import GROUPS, FunctionStats

PALETTE = {
    "passed": "#009E73",
    "partial": "#56B4E9",
    "failed": "#E69F00",
    "raised": "#D55E00",
    "timeout": "#CC79A7",
    "not-started": "#DDDDDD",
    "absent": "#999999",
}
"""Each outcome group's colour, from Okabe and Ito's colour-blind-safe palette."""
HATCHES = {
    "passed": "",
    "partial": "..",
    "failed": "//",
    "raised": "xx",
    "timeout": "\\\\",
    "not-started": "--",
    "absent": "",
}

BARS = "#0072B2"
"""The histograms' colour (Okabe and Ito's blue)."""

# Drawn in this colour, text and axes are then given the page's: an RGB no chart uses.
_INK = "#010203"

_STYLE = {
    "svg.fonttype": "none",
    "svg.hashsalt": "pytrees-hands-on",  # the same ids in every drawing: same report, same page
    "text.parse_math": False,  # a $ in a name is a dollar sign, not a formula
    "font.size": 9,
    "font.family": "sans-serif",
    "text.color": _INK,
    "axes.labelcolor": _INK,
    "axes.edgecolor": _INK,
    "xtick.color": _INK,
    "ytick.color": _INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "hatch.color": "#ffffff",
    "hatch.linewidth": 0.6,
}


def outcome_chart(functions: Sequence[FunctionStats]) -> str:
    """A horizontal bar per function, split into the shares of :data:`GROUPS`."""
    labels = [f"{f.chapter}.{f.name}" for f in functions]
    with matplotlib.rc_context(_STYLE):
        figure = _figure(7.5, 0.24 * len(functions), labels, legend=True)
        axes = figure.add_subplot()
        rows = range(len(functions))
        left = [0.0] * len(functions)
        for group, words in GROUPS.items():
            widths = [100 * f.share(group) for f in functions]
            # one collection a group, not a patch a bar: a tenth of the drawing time
            bars = [
                [(x, row - 0.375), (x + w, row - 0.375), (x + w, row + 0.375), (x, row + 0.375)]
                for row, x, w in zip(rows, left, widths, strict=True)
                if w
            ]
            axes.add_collection(
                PolyCollection(
                    bars,
                    facecolors=PALETTE[group],
                    hatch=HATCHES[group] or None,
                    linewidths=0,
                    label=words,
                ),  # fmt: skip
                autolim=False,
            )
            left = [a + b for a, b in zip(left, widths, strict=True)]
        axes.set_yticks(list(rows), labels)
        axes.set_ylim(len(functions) - 0.5, -0.5)
        axes.set_xlim(0, 100)
        axes.set_xlabel("share of the class (%)")
        # centred on the figure, not the plot: the labels on the left would push a legend
        # centred on the plot past the figure's right edge
        figure.legend(loc="upper center", bbox_to_anchor=(0.5, 1.0), ncols=4, frameon=False)
        words = "; ".join(
            f"{f.chapter}.{f.name}: "
            + ", ".join(
                f"{100 * f.share(g):.0f}% {w}" for g, w in GROUPS.items() if f.counts.get(g)
            )
            for f in functions
        )
        return _svg(
            figure,
            "How each function ended, hardest first",
            f"For each function, the share of learners by outcome. {words}.",
        )


def histogram(percents: Sequence[float], title: str) -> str:
    """A histogram of scores in percent, in ten bins of 10 points (100 % in the last)."""
    with matplotlib.rc_context(_STYLE):
        figure = _figure(5.5, 1.6, ["learners"])
        axes = figure.add_subplot()
        counts = _binned(percents)
        axes.bar([5 + 10 * i for i in range(10)], counts, width=9, color=BARS)
        axes.set_xlim(0, 100)
        axes.set_xticks(range(0, 101, 10))
        axes.set_xlabel("score (%)")
        axes.set_ylabel("learners")
        axes.yaxis.get_major_locator().set_params(integer=True)
        return _svg(figure, title, _describe_bins(counts))


def chapter_histograms(chapters: dict[str, list[float]]) -> str:
    """Each chapter's histogram of scores as one row of a grid: a cell per 10 points,
    shaded and labelled by how many learners scored in it (a blank cell: none)."""
    names = list(chapters)
    counts = [_binned(chapters[name]) for name in names]
    top = max((max(row) for row in counts), default=1) or 1
    with matplotlib.rc_context(_STYLE):
        figure = _figure(7.5, 0.28 * len(names), names)
        axes = figure.add_subplot()
        for row, binned in enumerate(counts):
            for column, count in enumerate(binned):
                if not count:
                    continue
                shade = matplotlib.colormaps["cividis"](0.25 + 0.75 * count / top)
                axes.add_patch(
                    Rectangle((10 * column, row - 0.45), 9.6, 0.9, color=shade, linewidth=0)
                )
                ink = text_colour_on(shade)
                axes.text(10 * column + 4.8, row, str(count), ha="center", va="center", color=ink)
        axes.set_xlim(0, 100)
        axes.set_ylim(len(names) - 0.5, -0.5)
        axes.set_xticks(range(0, 101, 10))
        axes.set_yticks(range(len(names)), names)
        axes.set_xlabel("score (%)")
        words = "; ".join(
            f"{name}: {_describe_bins(row)}" for name, row in zip(names, counts, strict=True)
        )
        return _svg(figure, "Scores per chapter", f"Learners per score range, by chapter. {words}")


def text_colour_on(shade: Sequence[float]) -> str:
    """Black or white, whichever contrasts more with ``shade`` (RGB in 0 to 1), by WCAG 2's
    relative luminance: on every shade of the scores grid, at least the 4.5:1 of text."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in shade[:3]]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    # black's contrast, (L + 0.05) / 0.05, against white's, 1.05 / (L + 0.05)
    return "#000000" if (luminance + 0.05) ** 2 >= 1.05 * 0.05 else "#ffffff"


def _figure(
    width: float, plot_height: float, labels: Sequence[str], legend: bool = False
) -> Figure:
    """A figure ``width`` inches wide whose plot is ``plot_height`` tall, with room on the
    left for ``labels`` and below for an axis's label; above for a legend.

    The margins are set, not found by Matplotlib's layout engines, which take several
    times as long to draw a chart of fifty rows (0.45 s against 0.1 s here).
    """
    left = 0.25 + 0.065 * max((len(label) for label in labels), default=4)
    top = 0.55 if legend else 0.15
    bottom = 0.45
    height = max(plot_height, 0.3) + top + bottom  # a chart of no rows still draws
    figure = Figure(figsize=(width, height))
    figure.subplots_adjust(
        left=left / width, right=1 - 0.2 / width, top=1 - top / height, bottom=bottom / height
    )
    return figure


def _binned(percents: Sequence[float]) -> list[int]:
    counts = [0] * 10
    for value in percents:
        counts[min(int(value // 10), 9)] += 1
    return counts


def _describe_bins(counts: list[int]) -> str:
    ranges = [
        f"{count} from {10 * i} to {'100' if i == 9 else f'under {10 * i + 10}'}%"
        for i, count in enumerate(counts)
        if count
    ]
    return (", ".join(ranges) or "no learners") + "."


def _svg(figure: Figure, title: str, description: str) -> str:
    """``figure`` as an inline ``<svg>`` element with ``title`` and ``description``."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
    text = buffer.getvalue()
    svg = text[text.index("<svg") :].replace(_INK, "currentColor")
    # Matplotlib writes no <title> or <desc>; they are the chart's accessible name and text.
    opening = re.match(r"<svg[^>]*>", svg)
    assert opening is not None
    head = opening.group(0)[:-1] + ' role="img">'
    accessible = f"<title>{html.escape(title)}</title><desc>{html.escape(description)}</desc>"
    return head + accessible + svg[opening.end() :]
