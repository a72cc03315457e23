"""A few helpers to write small SVG plots by hand: linear scales, round tick values, escaped
text. The plots are a handful of elements per scenario or mode (never one per item), so drawing
them costs microseconds and they stay a few kilobytes; styling is in the page's stylesheet."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = [
    "CHAR_WIDTH",
    "Scale",
    "clip_label",
    "fmt_tick",
    "label_room",
    "line",
    "nice_ticks",
    "num",
    "rect",
    "svg_element",
    "text",
    "title",
]

CHAR_WIDTH = 6.2
"""Rough width of one character of the plots' 11 px labels, to make room for them."""


def num(value: float) -> str:
    """A coordinate, briefly (one decimal at most)."""
    rounded = round(value, 1)
    return str(int(rounded)) if rounded == int(rounded) else str(rounded)


@dataclass(frozen=True)
class Scale:
    """Maps ``[low, high]`` of the data onto ``[start, end]`` pixels (``end`` may be smaller,
    for a y axis that grows upwards)."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.high - self.low
        fraction = (value - self.low) / span if span else 0.5
        return self.start + fraction * (self.end - self.start)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values (1, 2 or 5 times a power of ten apart) covering
    ``[low, high]``: the first is at or below ``low``, the last at or above ``high``."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high < low:
        low, high = high, low
    if high == low:
        pad = abs(low) * 0.1 or 1.0
        low, high = low - pad, high + pad
    raw = (high - low) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    steps = round((last - first) / step)
    return [round(first + i * step, 10) for i in range(steps + 1)]


def fmt_tick(value: float) -> str:
    """A tick label: thousands as ``12k``, small numbers with the digits they need."""
    magnitude = abs(value)
    if magnitude >= 10_000:
        return f"{value / 1000:,.0f}k"
    if magnitude >= 1000 and value == int(value):
        return f"{value:,.0f}"
    if magnitude == 0 or magnitude >= 10:
        return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"
    return f"{value:.3g}"


def label_room(labels: Iterable[str], least: float = 40.0, most: float = 260.0) -> float:
    """Pixels to leave for the longest of ``labels`` (within ``least`` and ``most``)."""
    longest = max((len(label) for label in labels), default=0)
    return min(most, max(least, longest * CHAR_WIDTH + 10))


def clip_label(label: str, room: float) -> str:
    """``label`` cut (with an ellipsis) to what fits in ``room`` pixels."""
    fits = max(4, int((room - 6) / CHAR_WIDTH))
    return label if len(label) <= fits else label[: fits - 1] + "…"


def text(
    x: float, y: float, value: str, *, anchor: str = "start", css: str = "", tip: str = ""
) -> str:
    """A ``<text>`` element (escaped), with an optional tooltip."""
    attributes = f' text-anchor="{anchor}"' if anchor != "start" else ""
    attributes += f' class="{css}"' if css else ""
    inner = f"{title(tip)}{escape(value)}" if tip else str(escape(value))
    return f'<text x="{num(x)}" y="{num(y)}"{attributes}>{inner}</text>'


def line(css: str, x1: float, x2: float, y1: float, y2: float, inner: str = "") -> str:
    """A ``<line>`` element of class ``css`` (none when empty)."""
    attributes = f' class="{css}"' if css else ""
    coordinates = f'x1="{num(x1)}" x2="{num(x2)}" y1="{num(y1)}" y2="{num(y2)}"'
    return (
        f"<line{attributes} {coordinates}>{inner}</line>"
        if inner
        else (f"<line{attributes} {coordinates}/>")
    )


def rect(css: str, x: float, y: float, width: float, height: float, fill: str = "") -> str:
    """A ``<rect>`` element of class ``css`` (none when empty), with an optional fill."""
    attributes = f' class="{css}"' if css else ""
    attributes += f' fill="{fill}"' if fill else ""
    return (
        f'<rect{attributes} x="{num(x)}" y="{num(y)}" width="{num(width)}" height="{num(height)}"/>'
    )


def title(value: str) -> str:
    """A tooltip (``<title>``) for the enclosing element."""
    return f"<title>{escape(value)}</title>"


def svg_element(width: float, height: float, parts: Sequence[str], label: str) -> Markup:
    """The ``<svg>`` element (sized in pixels, scalable) holding ``parts``."""
    head = (
        f'<svg class="plot" width="{num(width)}" '
        f'height="{num(height)}" viewBox="0 0 {num(width)} {num(height)}" role="img" '
        f'aria-label="{escape(label)}">'
    )
    # Markup: every text part was escaped where it was made.
    return Markup(head + "".join(parts) + "</svg>")
