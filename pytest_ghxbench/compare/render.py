"""Text renderings of a :class:`Comparison`: an aligned table for the terminal and Markdown.

Both show, per entry, scenario, mode, metric, before, after, the change (percent of the base
median, percentage points for ``success_rate``), its interval, the row counts and ``worse`` or
``better`` when the change is beyond the noise. Suite entries (``"*"``) are always shown; with
``only_changes`` the per-scenario entries are limited to those beyond the noise.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_ghxbench.compare.model import OVERALL, SUCCESS_RATE, Comparison, ComparisonEntry
from pytest_ghxbench.render.terminal import MISSING, format_number

__all__ = [
    "describe_entry",
    "format_change",
    "format_comparison",
    "format_comparison_markdown",
    "format_interval",
    "format_value",
]

# The number kind (report.terminal.format_number) of each metric's before and after values.
_VALUE_KINDS = {
    "tokens_active": "tokens",
    "latency_ms": "ms",
    "tool_calls": "count",
    "cost": "cost",
    "success_rate": "percent",
}
_HEADER = ("scenario", "mode", "metric", "before", "after", "change", "interval", "n", "")
_LEFT_COLUMNS = 3
_PAIRS_LISTED = 10


def format_value(metric: str, value: float | None) -> str:
    """A before or after value: tokens and ms as integers, cost in $, success rate in %."""
    return format_number(value, _VALUE_KINDS.get(metric, "number"))


def format_change(metric: str, change: float | None) -> str:
    """A signed change: ``+30.0%`` (of the base median), ``-10.0 pp`` for ``success_rate``."""
    if change is None:
        return MISSING
    return f"{change:+,.1f} pp" if metric == SUCCESS_RATE else f"{change:+,.1f}%"


def format_interval(entry: ComparisonEntry) -> str:
    """``[+25.1%, +35.0%]``, or "—" without an interval."""
    if entry.ci_low_pct is None or entry.ci_high_pct is None:
        return MISSING
    unit = " pp" if entry.metric == SUCCESS_RATE else "%"
    return f"[{entry.ci_low_pct:+,.1f}{unit}, {entry.ci_high_pct:+,.1f}{unit}]"


def _marker(entry: ComparisonEntry) -> str:
    if entry.regression:
        return "worse"
    return "better" if entry.improvement else ""


def _where(entry: ComparisonEntry) -> str:
    scenario = "all scenarios" if entry.is_overall else entry.scenario_id
    return f"{scenario} [{entry.mode}]"


def describe_entry(entry: ComparisonEntry) -> str:
    """One line for an entry, e.g. ``s-001 [ghx] tokens_active +30.0% (1,000 -> 1,300;
    interval [+28.0%, +32.1%])``."""
    change = format_change(entry.metric, entry.change_pct)
    if entry.is_overall and entry.metric != SUCCESS_RATE:
        change = f"median change {change}"
    details = []
    if entry.base_median is not None or entry.median is not None:
        before = format_value(entry.metric, entry.base_median)
        details.append(f"{before} -> {format_value(entry.metric, entry.median)}")
    details.append(f"interval {format_interval(entry)}")
    return f"{_where(entry)} {entry.metric} {change} ({'; '.join(details)})"


def _cells(entry: ComparisonEntry) -> list[str]:
    return [
        "all (median)" if entry.is_overall else entry.scenario_id,
        entry.mode,
        entry.metric,
        format_value(entry.metric, entry.base_median),
        format_value(entry.metric, entry.median),
        format_change(entry.metric, entry.change_pct),
        format_interval(entry),
        f"{entry.base_n}->{entry.n}",
        _marker(entry),
    ]


def _shown(comparison: Comparison, only_changes: bool) -> list[ComparisonEntry]:
    return [
        entry
        for entry in comparison.entries
        if not only_changes or entry.scenario_id == OVERALL or entry.beyond_noise
    ]


def _align(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(width) if column < _LEFT_COLUMNS else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _pairs(pairs: Sequence[tuple[str, str]]) -> str:
    listed = ", ".join(f"{scenario} [{mode}]" for scenario, mode in pairs[:_PAIRS_LISTED])
    more = len(pairs) - _PAIRS_LISTED
    return listed + (f" and {more} more" if more > 0 else "")


def _counts(comparison: Comparison) -> str:
    entries = comparison.entries
    worse = sum(1 for entry in entries if entry.regression)
    better = sum(1 for entry in entries if entry.improvement)
    with_interval = sum(1 for entry in entries if entry.ci_low_pct is not None)
    within = sum(1 for entry in entries if entry.ci_low_pct is not None and not entry.beyond_noise)
    # Beyond the noise but on neither side: the change and its interval disagree in sign.
    unclear = with_interval - within - worse - better
    parts = [
        f"{worse} regression{'s' * (worse != 1)}",
        f"{better} improvement{'s' * (better != 1)} beyond the noise",
        f"{within} within the noise",
    ]
    if unclear:
        parts.append(f"{unclear} with an interval not on the side of the change")
    parts.append(f"{len(entries) - with_interval} without an interval")
    return ", ".join(parts) + f" (of {len(entries)} entries)"


def _title(comparison: Comparison) -> str:
    return f"run {comparison.run} compared with base run {comparison.base_run}"


def format_comparison(comparison: Comparison, *, only_changes: bool = False) -> list[str]:
    """The comparison as terminal lines: a header naming both runs, an aligned table (with
    ``only_changes``, the suite entries and the per-scenario entries beyond the noise), the
    scenario x mode pairs found in one run only, a count of the changes and the failed rules."""
    lines = [f"ghxbench compare: {_title(comparison)}"]
    shown = _shown(comparison, only_changes)
    if shown:
        lines.extend(_align([_HEADER, *(_cells(entry) for entry in shown)]))
    elif not comparison.entries:
        lines.append("no scenario x mode is in both runs")
    hidden = len(comparison.entries) - len(shown)
    if hidden:
        lines.append(f"({hidden} per-scenario entries not beyond the noise)")
    if comparison.only_in_base:
        lines.append(f"only in base run (not compared): {_pairs(comparison.only_in_base)}")
    if comparison.only_in_run:
        lines.append(f"only in this run (not compared): {_pairs(comparison.only_in_run)}")
    lines.append(_counts(comparison))
    lines.extend(f"FAILED: {line}" for line in comparison.failed)
    return lines


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|") or " "


def format_comparison_markdown(comparison: Comparison, *, only_changes: bool = True) -> str:
    """The comparison as a Markdown section for ``summary.md``: by default the suite entries
    and the per-scenario entries beyond the noise (``only_changes=False``: every entry)."""
    lines = [f"## Comparison: {_markdown_cell(_title(comparison))}", ""]
    shown = _shown(comparison, only_changes)
    if shown:
        header = [title or "beyond noise" for title in _HEADER]
        lines.append("| " + " | ".join(header) + " |")
        alignment = [":---" if index < _LEFT_COLUMNS else "---:" for index in range(len(header))]
        lines.append("| " + " | ".join(alignment) + " |")
        for entry in shown:
            cells = _cells(entry)
            cells[-1] = f"**{cells[-1]}**" if cells[-1] else " "
            lines.append("| " + " | ".join(_markdown_cell(cell) for cell in cells) + " |")
        lines.append("")
    elif not comparison.entries:
        lines.extend(["No scenario x mode is in both runs.", ""])
    hidden = len(comparison.entries) - len(shown)
    if hidden:
        lines.extend([f"{hidden} per-scenario entries not beyond the noise.", ""])
    for label, pairs in (
        ("Only in the base run", comparison.only_in_base),
        ("Only in this run", comparison.only_in_run),
    ):
        if pairs:
            lines.extend([f"{label} (not compared): {_markdown_cell(_pairs(pairs))}", ""])
    lines.extend([_counts(comparison) + ".", ""])
    if comparison.failed:
        lines.append("**Failed:**")
        lines.append("")
        lines.extend(f"- {_markdown_cell(line)}" for line in comparison.failed)
        lines.append("")
    return "\n".join(lines)
