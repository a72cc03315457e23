"""The report's plots, drawn as small inline SVG from summary statistics.

Each plot is a few elements per scenario or mode, never one per item: the forest plot draws
each compared scenario's reduction with its interval, the distributions plot one box per mode
and metric (quartiles, median, whiskers), the success plot one cell per scenario and mode. So a
run of 10,000 items draws as fast and as small as a run of 100. The output is a pure function of
the data (the same run always gives the same page), and every text from the run is escaped.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from markupsafe import Markup

from pytest_ghxbench.render.html.formats import fmt_value
from pytest_ghxbench.render.html.intervals import OVERALL_LABEL, ForestData, ForestRow
from pytest_ghxbench.render.html.items import ItemView
from pytest_ghxbench.render.html.svg import (
    Scale,
    clip_label,
    fmt_tick,
    label_room,
    line,
    nice_ticks,
    num,
    rect,
    svg_element,
    text,
    title,
)

__all__ = [
    "DISTRIBUTION_METRICS",
    "BoxStats",
    "Plot",
    "box_stats",
    "distributions_plot",
    "forest_plot",
    "rate_colour",
    "success_plot",
]

# The colour of a pass rate, from 0 % (red) through 50 % (yellow) to 100 % (green).
RATE_COLOURS: tuple[tuple[float, tuple[int, int, int]], ...] = (
    (0.0, (215, 48, 39)),
    (25.0, (252, 141, 89)),
    (50.0, (254, 224, 139)),
    (75.0, (145, 207, 96)),
    (100.0, (26, 152, 80)),
)


@dataclass(frozen=True)
class Plot:
    """One figure of the page: ``svg`` is ``None`` when there was nothing to draw (``note``
    says why)."""

    name: str
    title: str
    caption: str
    svg: Markup | None
    note: str = ""


def _draw(name: str, heading: str, caption: str, draw: Callable[[], Markup]) -> Plot:
    try:
        return Plot(name, heading, caption, draw())
    except Exception as exc:  # a plot never costs the report: say what went wrong instead
        return Plot(name, heading, caption, None, f"could not draw this plot: {exc!r}")


def forest_plot(data: ForestData) -> Plot:
    name, heading = "forest", "Per-scenario reductions, candidate vs baseline"
    caption = (
        f"Reduction of the median ({data.candidate} vs {data.baseline}) per scenario over stable "
        f"rows; positive means {data.candidate} needs less. Bars: {data.note}. Last row: the "
        "gate's median over scenarios and its interval."
    )
    if data.empty:
        reason = data.note if not data.panels else "no scenario has stable rows in both modes"
        return Plot(name, heading, caption, None, f"No data for this plot: {reason}.")
    return _draw(name, heading, caption, lambda: _forest_svg(data))


FOREST_TOP, FOREST_ROW, FOREST_PANEL, FOREST_GAP = 30.0, 18.0, 280.0, 44.0


def _forest_svg(data: ForestData) -> Markup:
    labels: list[str] = []
    for panel in data.panels:
        for row in panel.rows:
            if not row.overall and row.label not in labels:
                labels.append(row.label)
    has_overall = any(row.overall for panel in data.panels for row in panel.rows)
    room = label_room([*labels, OVERALL_LABEL if has_overall else ""])
    position = {label: FOREST_TOP + FOREST_ROW * (i + 0.5) for i, label in enumerate(labels)}
    bottom = FOREST_TOP + FOREST_ROW * (len(labels) + (1.5 if has_overall else 0))
    overall_y = bottom - FOREST_ROW * 0.5
    parts: list[str] = []
    for label, y in [*position.items(), *([(OVERALL_LABEL, overall_y)] if has_overall else [])]:
        shown = clip_label(label, room)
        parts.append(text(room - 6, y + 4, shown, anchor="end", tip=label * (shown != label)))
    for number, panel in enumerate(data.panels):
        left = room + number * (FOREST_PANEL + FOREST_GAP)
        middle = left + FOREST_PANEL / 2
        values = [0.0]
        for row in panel.rows:
            values += [v for v in (row.estimate, row.low, row.high) if v is not None]
        ticks = nice_ticks(min(values), max(values))
        x = Scale(ticks[0], ticks[-1], left, left + FOREST_PANEL)
        parts.append(text(middle, 14, f"{panel.title} reduction (%)", anchor="middle", css="h"))
        for tick in ticks:
            parts.append(line("grid", x(tick), x(tick), FOREST_TOP - 6, bottom))
            parts.append(text(x(tick), bottom + 14, fmt_tick(tick), anchor="middle"))
        parts.append(line("zero", x(0), x(0), FOREST_TOP - 6, bottom))
        for row in panel.rows:
            y = overall_y if row.overall else position[row.label]
            parts.append(_forest_row(row, x, y))
        caption = "reduction, % (positive: candidate better)"
        parts.append(text(middle, bottom + 30, caption, anchor="middle", css="muted"))
    width = room + len(data.panels) * (FOREST_PANEL + FOREST_GAP)
    return svg_element(width, bottom + 38, parts, "per-scenario reductions")


def _forest_row(row: ForestRow, x: Scale, y: float) -> str:
    css = "overall" if row.overall else "estimate"
    has_interval = row.low is not None and row.high is not None
    interval = f" (95 % interval {row.low:,.1f} to {row.high:,.1f})" if has_interval else ""
    tip = title(f"{row.label}: {row.estimate:,.1f} %{interval}")
    drawn = ""
    if row.low is not None and row.high is not None:
        drawn = line(css, x(row.low), x(row.high), y, y, tip)
    cx = x(row.estimate)
    if row.overall:
        return drawn + f'<path class="{css}" d="M{num(cx)} {num(y - 5)}l5 5-5 5-5-5z">{tip}</path>'
    return drawn + f'<circle class="{css}" cx="{num(cx)}" cy="{num(y)}" r="3.5">{tip}</circle>'


DISTRIBUTION_METRICS: tuple[tuple[str, str, float], ...] = (
    ("tokens_active", "active tokens", 1.0),
    ("latency_ms", "latency (s)", 1e-3),
    ("tool_calls", "tool calls", 1.0),
    ("cost_usd", "cost (USD)", 1.0),
)


@dataclass(frozen=True)
class BoxStats:
    """A box plot's numbers: quartiles, whiskers (the furthest values within 1.5 IQR of the
    box) and how many values lie beyond them."""

    count: int
    q1: float
    median: float
    q3: float
    low: float
    high: float
    beyond: int


def box_stats(values: Sequence[float]) -> BoxStats | None:
    if not values:
        return None
    data = np.asarray(values, dtype=float)
    q1, median, q3 = (float(v) for v in np.percentile(data, [25, 50, 75]))
    reach = 1.5 * (q3 - q1)
    inside = data[(data >= q1 - reach) & (data <= q3 + reach)]
    return BoxStats(
        count=len(data),
        q1=q1,
        median=median,
        q3=q3,
        low=float(inside.min()),
        high=float(inside.max()),
        beyond=len(data) - len(inside),
    )


def distributions_plot(items: Sequence[ItemView], modes: Sequence[str]) -> Plot:
    name, heading = "distributions", "Distributions per mode"
    caption = (
        "Every item with a value, per mode: boxes span the quartiles, the bar is the median, "
        "whiskers reach the furthest values within 1.5 IQR of the box; n counts the items "
        "(values beyond the whiskers are counted in the tooltip, not drawn)."
    )
    column = {mode: index for index, mode in enumerate(modes)}
    values: dict[str, list[list[float]]] = {
        attribute: [[] for _ in modes] for attribute, _, _ in DISTRIBUTION_METRICS
    }
    for item in items:
        index = column.get(item.mode)
        if index is None:
            continue
        for attribute, _, scale in DISTRIBUTION_METRICS:
            value = getattr(item, attribute)
            if value is not None:
                values[attribute][index].append(value * scale)
    if not any(group for groups in values.values() for group in groups):
        return Plot(name, heading, caption, None, "No data for this plot: no item has a value.")
    boxes = {
        attribute: [box_stats(group) for group in groups] for attribute, groups in values.items()
    }
    return _draw(name, heading, caption, lambda: _distributions_svg(boxes, modes))


BOX_WIDTH, BOX_SLOT, BOX_AXIS, BOX_HEIGHT, BOX_GAP = 34.0, 86.0, 52.0, 150.0, 24.0


def _distributions_svg(boxes: dict[str, list[BoxStats | None]], modes: Sequence[str]) -> Markup:
    panel_width = BOX_AXIS + BOX_SLOT * len(modes)
    parts: list[str] = []
    for number, (attribute, label, _) in enumerate(DISTRIBUTION_METRICS):
        left = (number % 2) * (panel_width + BOX_GAP)
        top = (number // 2) * (BOX_HEIGHT + 56) + 20
        plot_left = left + BOX_AXIS
        drawn = [box for box in boxes[attribute] if box is not None]
        parts.append(text(left + panel_width / 2, top - 6, label, anchor="middle", css="h"))
        parts.append(rect("frame", plot_left, top, BOX_SLOT * len(modes), BOX_HEIGHT))
        if drawn:
            ticks = nice_ticks(min(b.low for b in drawn), max(b.high for b in drawn), 4)
            y = Scale(ticks[0], ticks[-1], top + BOX_HEIGHT, top)
            for tick in ticks:
                parts.append(line("grid", plot_left, left + panel_width, y(tick), y(tick)))
                parts.append(text(plot_left - 4, y(tick) + 4, fmt_tick(tick), anchor="end"))
        else:
            middle = (plot_left + left + panel_width) / 2
            parts.append(text(middle, top + BOX_HEIGHT / 2, "no data", anchor="middle"))
        for index, (mode, box) in enumerate(zip(modes, boxes[attribute], strict=True)):
            centre = plot_left + BOX_SLOT * (index + 0.5)
            if box is not None:
                parts.append(_box(box, centre, y, mode))
            below = top + BOX_HEIGHT
            parts.append(text(centre, below + 14, clip_label(mode, BOX_SLOT), anchor="middle"))
            count = f"n={box.count:,}" if box is not None else "n=0"
            parts.append(text(centre, below + 27, count, anchor="middle", css="muted"))
    height = 2 * (BOX_HEIGHT + 56) + 6
    return svg_element(2 * panel_width + BOX_GAP, height, parts, "distributions per mode")


def _box(box: BoxStats, centre: float, y: Scale, mode: str) -> str:
    half = BOX_WIDTH / 2
    tip = title(
        f"{mode}: n={box.count:,}, median {fmt_value(box.median)}, quartiles "
        f"{fmt_value(box.q1)} to {fmt_value(box.q3)}, whiskers {fmt_value(box.low)} to "
        f"{fmt_value(box.high)}, {box.beyond:,} beyond"
    )
    top, bottom = y(box.q3), y(box.q1)
    return (
        f'<g class="box">{tip}'
        + line("", centre, centre, y(box.high), top)
        + line("", centre, centre, bottom, y(box.low))
        + rect("", centre - half, top, BOX_WIDTH, max(bottom - top, 1.0))
        + line("median", centre - half, centre + half, y(box.median), y(box.median))
        + "</g>"
    )


def success_plot(items: Sequence[ItemView], modes: Sequence[str]) -> Plot:
    name, heading = "success", "Success per scenario and mode"
    caption = (
        "Share of a scenario's items in a mode that passed (success with a valid output); "
        "cells read passed/items, grey cells have no items."
    )
    scenarios = sorted({item.scenario for item in items})
    if not scenarios or not modes:
        return Plot(name, heading, caption, None, "No data for this plot: there are no items.")
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    for item in items:
        passed, total = counts.get((item.scenario, item.mode), (0, 0))
        counts[item.scenario, item.mode] = (passed + (item.outcome == "pass"), total + 1)
    return _draw(name, heading, caption, lambda: _success_svg(counts, scenarios, modes))


def rate_colour(rate: float) -> str:
    """The fill of a cell whose items passed ``rate`` percent of the time."""
    for (start, low), (end, high) in itertools.pairwise(RATE_COLOURS):
        if rate <= end:
            share = max(0.0, (rate - start) / (end - start))
            red, green, blue = (round(a + share * (b - a)) for a, b in zip(low, high, strict=True))
            return f"#{red:02x}{green:02x}{blue:02x}"
    return "#1a9850"


CELL_WIDTH, CELL_HEIGHT, CELLS_TOP = 90.0, 18.0, 22.0


def _success_svg(
    counts: dict[tuple[str, str], tuple[int, int]], scenarios: Sequence[str], modes: Sequence[str]
) -> Markup:
    room = label_room(scenarios)
    parts: list[str] = []
    for column, mode in enumerate(modes):
        centre = room + CELL_WIDTH * (column + 0.5)
        parts.append(text(centre, 14, clip_label(mode, CELL_WIDTH), anchor="middle", tip=mode))
    for row, scenario in enumerate(scenarios):
        y = CELLS_TOP + row * CELL_HEIGHT
        shown = clip_label(scenario, room)
        parts.append(
            text(room - 6, y + 13, shown, anchor="end", tip=scenario * (shown != scenario))
        )
        for column, mode in enumerate(modes):
            passed, total = counts.get((scenario, mode), (0, 0))
            x = room + column * CELL_WIDTH
            rate = 100.0 * passed / total if total else None
            fill = "#dddddd" if rate is None else rate_colour(rate)
            parts.append(rect("cell", x, y, CELL_WIDTH, CELL_HEIGHT, fill))
            shade = "dark" if rate is None or 25 <= rate <= 80 else "light"  # dark on the middle
            label = f"{passed}/{total}" if total else "—"
            parts.append(text(x + CELL_WIDTH / 2, y + 13, label, anchor="middle", css=shade))
    width = room + CELL_WIDTH * len(modes) + 4
    return svg_element(width, CELLS_TOP + CELL_HEIGHT * len(scenarios) + 4, parts, "success")
