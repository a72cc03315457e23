"""Sandbox gaps in the text reports: one terminal line per mode whose items met some, and the
``summary.md`` section, both from the summary's ``modes.<mode>.sandbox_gap_items``,
``sandbox_gaps`` and ``sandbox_gap_kinds`` (SPEC section 15). A summary without them (an older
run, rows of another harness) shows nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.records.models import RunSummary

__all__ = ["KIND_NAMES", "gap_count_text", "gap_lines", "gaps_markdown"]

KIND_NAMES: dict[str, tuple[str, str]] = {
    "unserved_route": ("unserved route", "unserved routes"),
    "unmodelled_field": ("unmodelled field", "unmodelled fields"),
    "unevaluated_parameter": ("unevaluated parameter", "unevaluated parameters"),
    "sandbox_fault": ("sandbox fault", "sandbox faults"),
    "unsupported": ("unsupported", "unsupported"),
}
"""Each kind's name in prose, singular and plural."""

_WHY = "its numbers may not transfer to GitHub"


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _with_gaps(summary: RunSummary) -> list[tuple[str, Mapping[str, Any]]]:
    return [
        (mode, metrics)
        for mode, metrics in summary.modes.items()
        if _count(metrics.get("sandbox_gap_items")) > 0
    ]


def _named(count: int, kind: str) -> str:
    singular, plural = KIND_NAMES.get(kind, (kind, kind))
    return f"{count:,} {singular if count == 1 else plural}"


def gap_count_text(metrics: Mapping[str, Any]) -> str:
    """``31 gaps: 2 unserved routes, 27 unmodelled fields, 2 unsupported``."""
    total = _count(metrics.get("sandbox_gaps"))
    kinds = metrics.get("sandbox_gap_kinds")
    counts = {str(k): _count(n) for k, n in kinds.items()} if isinstance(kinds, Mapping) else {}
    order = [*KIND_NAMES, *sorted(set(counts) - set(KIND_NAMES))]
    parts = [_named(counts[kind], kind) for kind in order if counts.get(kind)]
    head = f"{total:,} gap{'' if total == 1 else 's'}"
    return f"{head}: {', '.join(parts)}" if parts else head


def gap_lines(summary: RunSummary) -> list[str]:
    """``sandbox gaps: mcp 12 of 24 items (31 gaps: ...) — its numbers may not transfer to
    GitHub``, one line per mode whose items met a gap; none when no item did."""
    return [
        f"sandbox gaps: {mode} {_count(metrics.get('sandbox_gap_items')):,} of "
        f"{_count(metrics.get('runs')):,} items ({gap_count_text(metrics)}) — {_WHY}"
        for mode, metrics in _with_gaps(summary)
    ]


def gaps_markdown(summary: RunSummary) -> list[str]:
    """The ``summary.md`` section: a table of the modes whose items met gaps (none when no
    item did)."""
    found = _with_gaps(summary)
    if not found:
        return []
    rows = [
        f"| `{mode}` | {_count(metrics.get('sandbox_gap_items')):,} of "
        f"{_count(metrics.get('runs')):,} | {gap_count_text(metrics)} |"
        for mode, metrics in found
    ]
    return [
        "### Where the sandbox diverged from GitHub",
        "",
        "These modes' items met requests the sandbox did not answer as GitHub would; "
        f"{_WHY.replace('its', 'their')}. report.html lists the routes, fields and items.",
        "",
        "| mode | items with gaps | gaps |",
        "| :--- | ---: | :--- |",
        *rows,
    ]
