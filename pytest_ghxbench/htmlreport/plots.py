"""The report's plots, drawn by matplotlib as inline SVG.

Figures are made with :class:`matplotlib.figure.Figure` directly (never ``pyplot``), so no GUI
backend is ever loaded and no global figure state is touched; ``savefig(format="svg")`` uses the
SVG backend. Text stays text (``svg.fonttype: none``), which keeps each plot small, and a fixed
hash salt per plot makes the output (and its element ids) the same for the same data.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from pytest_ghxbench.htmlreport.intervals import ForestData
from pytest_ghxbench.htmlreport.items import OUTCOME_LABELS, ItemView

if TYPE_CHECKING:  # matplotlib >= 3.9 names its rc keys; only the type checker needs them
    from matplotlib.typing import RcKeyType

__all__ = ["Plot", "distributions_plot", "forest_plot", "success_plot", "svg_of"]

OUTCOME_COLORS = {"pass": "#2a9d55", "fail": "#d98a00", "runner_error": "#c0392b"}
ESTIMATE_COLOR = "#1f5fa8"
OVERALL_COLOR = "#111111"
RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "font.size": 8.0,
    "font.family": "sans-serif",
    "axes.titlesize": 9.0,
    "axes.labelsize": 8.0,
}
_SVG_START = re.compile(r"<svg\b")
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


@dataclass(frozen=True)
class Plot:
    """One figure of the page: ``svg`` is ``None`` when there was nothing to draw (``note``
    says why)."""

    name: str
    title: str
    caption: str
    svg: str | None
    note: str = ""


def svg_of(figure: Figure, salt: str) -> Markup:
    """The figure as an ``<svg>`` element for inlining (no XML prolog, no RDF metadata)."""
    buffer = io.StringIO()
    with matplotlib.rc_context({**RC, "svg.hashsalt": f"ghxbench-{salt}"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    start = _SVG_START.search(text)
    text = text[start.start() :] if start else text
    # Markup: inlined as it is; matplotlib escapes the text it writes (scenario ids included).
    return Markup(_METADATA.sub("", text, count=1))


def _draw(name: str, title: str, caption: str, salt: str, draw: Callable[[], Figure]) -> Plot:
    try:
        with matplotlib.rc_context(RC):
            figure = draw()
        return Plot(name, title, caption, svg_of(figure, salt))
    except Exception as exc:  # a plot never costs the report: say what went wrong instead
        return Plot(name, title, caption, None, f"could not draw this plot: {exc!r}")


def forest_plot(data: ForestData) -> Plot:
    name, title = "forest", "Per-scenario reductions, candidate vs baseline"
    caption = (
        f"Reduction of the median ({data.candidate} vs {data.baseline}) per scenario over stable "
        f"rows; positive means {data.candidate} needs less. Bars: {data.note}. Last row: the "
        "gate's median over scenarios and its interval."
    )
    if data.empty:
        reason = data.note if not data.panels else "no scenario has stable rows in both modes"
        return Plot(name, title, caption, None, f"No data for this plot: {reason}.")
    return _draw(name, title, caption, "forest", lambda: _forest_figure(data))


def _forest_figure(data: ForestData) -> Figure:
    labels: list[str] = []
    for panel in data.panels:
        for row in panel.rows:
            if row.label not in labels and not row.overall:
                labels.append(row.label)
    has_overall = any(row.overall for panel in data.panels for row in panel.rows)
    position = {label: index for index, label in enumerate(labels)}
    overall_y = len(labels) + 0.5
    height = 0.9 + 0.24 * (len(labels) + (1.5 if has_overall else 0))
    figure = Figure(figsize=(9.0, height), layout="constrained")
    axes = figure.subplots(1, len(data.panels), sharey=True, squeeze=False)[0]
    for ax, panel in zip(axes, data.panels, strict=True):
        ax.axvline(0, color="#888888", linewidth=0.8, zorder=1)
        for row in panel.rows:
            y = overall_y if row.overall else position[row.label]
            color = OVERALL_COLOR if row.overall else ESTIMATE_COLOR
            if row.low is not None and row.high is not None:
                ax.hlines(y, row.low, row.high, color=color, linewidth=1.4, zorder=2)
            marker = "D" if row.overall else "o"
            ax.plot([row.estimate], [y], marker=marker, color=color, markersize=4.5, zorder=3)
        ax.set_title(f"{panel.title} reduction (%)")
        ax.set_xlabel("reduction, % (positive: candidate better)")
        ax.grid(axis="x", color="#e4e4e4", linewidth=0.6)
        ax.set_axisbelow(True)
        if not panel.rows:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", color="#777777")
    ticks = [float(index) for index in range(len(labels))]
    names = list(labels)
    if has_overall:
        ticks.append(overall_y)
        names.append("median over scenarios")
    axes[0].set_yticks(ticks, names)
    axes[0].set_ylim(max(ticks, default=0.0) + 0.7, -0.7)
    return figure


def _metric_values(items: Sequence[ItemView], attribute: str) -> list[float | None]:
    values: list[float | None] = []
    for item in items:
        value = getattr(item, attribute)
        values.append(value if isinstance(value, float) else None)
    return values


DISTRIBUTION_METRICS: tuple[tuple[str, str, float], ...] = (
    ("tokens_active", "active tokens", 1.0),
    ("latency_ms", "latency (s)", 1e-3),
    ("tool_calls", "tool calls", 1.0),
    ("cost_usd", "cost (USD)", 1.0),
)


def distributions_plot(items: Sequence[ItemView], modes: Sequence[str]) -> Plot:
    name, title = "distributions", "Distributions per mode"
    caption = (
        "Every item's value per mode: boxes span the quartiles of all items with a value "
        "(whiskers 1.5 IQR), dots are the items, coloured by outcome (green pass, amber fail, "
        "red runner error)."
    )
    has_value = any(
        value is not None
        for attribute, _, _ in DISTRIBUTION_METRICS
        for value in _metric_values(items, attribute)
    )
    if not items or not modes or not has_value:
        return Plot(name, title, caption, None, "No data for this plot: no item has a value.")
    return _draw(name, title, caption, "distributions", lambda: _distribution_figure(items, modes))


def _distribution_figure(items: Sequence[ItemView], modes: Sequence[str]) -> Figure:
    width = max(7.0, min(12.0, 1.6 * len(modes) * 2))
    figure = Figure(figsize=(width, 5.2), layout="constrained")
    axes = figure.subplots(2, 2, squeeze=False).ravel()
    jitter = np.random.default_rng(0)
    for ax, (attribute, label, scale) in zip(axes, DISTRIBUTION_METRICS, strict=True):
        _distribution_axes(ax, items, modes, attribute, label, scale, jitter)
    handles = [
        ax_handle
        for outcome, color in OUTCOME_COLORS.items()
        for ax_handle in axes[0].plot(
            [], [], "o", color=color, markersize=4, label=OUTCOME_LABELS[outcome]
        )
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
    return figure


def _distribution_axes(
    ax: Axes,
    items: Sequence[ItemView],
    modes: Sequence[str],
    attribute: str,
    label: str,
    scale: float,
    jitter: np.random.Generator,
) -> None:
    ax.set_title(label)
    boxes: list[list[float]] = []
    positions: list[int] = []
    for position, mode in enumerate(modes):
        mode_items = [item for item in items if item.mode == mode]
        values = _metric_values(mode_items, attribute)
        present = [
            (item, value * scale)
            for item, value in zip(mode_items, values, strict=True)
            if value is not None
        ]
        if not present:
            continue
        boxes.append([value for _, value in present])
        positions.append(position)
        offsets = jitter.uniform(-0.18, 0.18, len(present))
        colors = [OUTCOME_COLORS.get(item.outcome, "#777777") for item, _ in present]
        ax.scatter(
            position + offsets,
            [value for _, value in present],
            s=10,
            c=colors,
            alpha=0.65,
            linewidths=0,
            zorder=3,
        )
    if boxes:
        ax.boxplot(
            boxes,
            positions=positions,
            widths=0.55,
            showfliers=False,
            medianprops={"color": "#111111", "linewidth": 1.2},
            boxprops={"color": "#555555"},
            whiskerprops={"color": "#555555"},
            capprops={"color": "#555555"},
            zorder=2,
        )
    else:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", color="#777777")
    ax.set_xticks(range(len(modes)), list(modes))
    ax.set_xlim(-0.6, len(modes) - 0.4)
    ax.grid(axis="y", color="#e4e4e4", linewidth=0.6)
    ax.set_axisbelow(True)


def success_plot(items: Sequence[ItemView], modes: Sequence[str]) -> Plot:
    name, title = "success", "Success per scenario and mode"
    caption = (
        "Share of a scenario's items in a mode that passed (success with a valid output); "
        "cells read passed/items, grey cells have no items."
    )
    scenarios = sorted({item.scenario for item in items})
    if not scenarios or not modes:
        return Plot(name, title, caption, None, "No data for this plot: there are no items.")
    return _draw(name, title, caption, "success", lambda: _success_figure(items, scenarios, modes))


def _success_figure(
    items: Sequence[ItemView], scenarios: Sequence[str], modes: Sequence[str]
) -> Figure:
    row = {scenario: index for index, scenario in enumerate(scenarios)}
    column = {mode: index for index, mode in enumerate(modes)}
    passed = np.zeros((len(scenarios), len(modes)))
    total = np.zeros((len(scenarios), len(modes)))
    for item in items:
        if item.mode in column:
            total[row[item.scenario], column[item.mode]] += 1
            passed[row[item.scenario], column[item.mode]] += item.outcome == "pass"
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(total > 0, 100 * passed / total, np.nan)
    height = 1.0 + 0.22 * len(scenarios)
    figure = Figure(figsize=(2.2 + 1.1 * len(modes), height), layout="constrained")
    ax = figure.subplots()
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")
    # vector cells (no embedded bitmap), first scenario at the top
    image = ax.pcolormesh(
        np.ma.masked_invalid(rate),
        cmap=cmap,
        vmin=0,
        vmax=100,
        edgecolors="#ffffff",
        linewidth=0.8,
    )
    for (r, c), count in np.ndenumerate(total):
        text = "—" if count == 0 else f"{int(passed[r, c])}/{int(count)}"
        # dark text on the light middle of the colour map, white on its dark ends
        light = count == 0 or 25 <= rate[r, c] <= 80
        color = "#111111" if light else "#ffffff"
        ax.text(c + 0.5, r + 0.5, text, ha="center", va="center", fontsize=7, color=color)
    ax.set_xticks([c + 0.5 for c in range(len(modes))], list(modes))
    ax.xaxis.tick_top()
    ax.set_yticks([r + 0.5 for r in range(len(scenarios))], list(scenarios))
    ax.set_ylim(len(scenarios), 0)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    figure.colorbar(
        image, ax=ax, label="passed, %", shrink=min(1.0, 6 / max(1, len(scenarios)) + 0.3)
    )
    return figure
