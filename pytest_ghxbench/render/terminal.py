"""Plain-text rendering of a summary for the terminal: per-mode table, checks table, verdict.

Every function takes the :class:`~pytest_ghxbench.records.models.RunSummary`; a metric a mode
lacks (a summary written by an older version) or that is ``None`` is shown as "—".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pytest_ghxbench.records.models import GateCheck, RunSummary

__all__ = [
    "CHECK_VALUE_PREFIXES",
    "MISSING",
    "MODE_COLUMNS",
    "check_unit",
    "check_value",
    "checks_table",
    "format_number",
    "mode_columns",
    "mode_table",
    "scenario_reliability",
    "verdict_line",
]

MISSING = "—"

_KINDS = ("percent", "pp", "ms", "tokens", "count", "cost", "int", "number")

# (metric key, column header, number kind), in display order.
MODE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("runs", "runs", "int"),
    ("success_rate", "success", "percent"),
    ("output_validity_rate", "valid", "percent"),
    ("runner_failure_rate", "runner fail", "percent"),
    ("timeout_stall_rate", "timeout", "percent"),
    ("retry_rate", "retry", "percent"),
    ("median_latency_ms", "med latency ms", "ms"),
    ("median_tokens_active", "med active tok", "tokens"),
    ("median_tool_calls", "med tools", "count"),
    ("median_cost_usd", "med cost", "cost"),
    ("p90_latency_ms", "p90 latency ms", "ms"),
)
_TOOL_SURFACE_COLUMN = ("tool_surface_tokens", "tool surface tok", "tokens")
# pass^k (every one of k repetitions of a scenario succeeded) goes after the success rate.
_PASS_K_COLUMNS = (("pass_hat_k", "pass^k", "percent"), ("pass_k", "k", "int"))

# The success-rate check compares two rates, so its value is a difference in percentage points.
_PERCENTAGE_POINT_CHECKS = frozenset({"reliability_success_rate_non_inferior"})


def _as_float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _round_half_up(number: float) -> int:
    # round() rounds halves to even (32378.5 -> 32378); people expect 32379 for a median.
    magnitude = math.floor(abs(number) + 0.5)
    return int(magnitude if number >= 0 else -magnitude)


def format_number(value: Any, kind: str) -> str:
    """Format one value for display; ``None`` (or NaN) is "—".

    Kinds: ``percent`` ("12.3%"), ``pp`` (signed percentage points, "-1.5 pp"), ``ms`` and
    ``tokens`` (integers, halves away from zero, thousands separators), ``count`` (integer, or
    one decimal for a median between two integers), ``cost`` ("$0.0123"), ``int``, ``number``
    (2 decimals).
    """
    if kind not in _KINDS:
        raise ValueError(f"unknown number kind {kind!r}; expected one of {', '.join(_KINDS)}")
    number = _as_float(value)
    if number is None:
        return str(value) if isinstance(value, str) and value else MISSING
    if kind == "percent":
        return f"{number:.1f}%"
    if kind == "pp":
        return f"{number:+.1f} pp"
    if kind in ("ms", "tokens", "int"):
        return f"{_round_half_up(number):,}"
    if kind == "count":
        return f"{int(number):,}" if number.is_integer() else f"{number:,.1f}"
    if kind == "cost":
        return f"${number:,.4f}"
    return f"{number:,.2f}"


def check_unit(check_name: str) -> str:
    """The number kind of a check's value and threshold (``pp`` or ``percent``)."""
    return "pp" if check_name in _PERCENTAGE_POINT_CHECKS else "percent"


# The cost check's value is the smallest per-scenario reduction, not a median like the others:
# it is shown as such wherever the check is (terminal, summary.md, report.html).
CHECK_VALUE_PREFIXES = {"efficiency_cost_reduction": "min"}
"""Check name -> the word before its value: ``min 0.7%`` (the minimum over scenarios)."""


def check_value(check: GateCheck) -> str:
    """A check's value as shown: ``15.7%``, ``+0.0 pp``, or ``min 0.7%`` for the cost check."""
    text = format_number(check.value, check_unit(check.name))
    prefix = CHECK_VALUE_PREFIXES.get(check.name)
    return f"{prefix} {text}" if prefix and text != MISSING else text


def mode_columns(summary: RunSummary) -> tuple[tuple[str, str, str], ...]:
    """The per-mode columns to show: :data:`MODE_COLUMNS`, with pass^k and tool-surface tokens
    when any mode has them (summaries written before pass^k existed have not)."""
    modes = summary.modes.values()
    columns = MODE_COLUMNS
    if any(metrics.get("pass_hat_k") is not None for metrics in modes):
        columns = (*columns[:2], *_PASS_K_COLUMNS, *columns[2:])
    if any(_TOOL_SURFACE_COLUMN[0] in metrics for metrics in modes):
        columns = (*columns, _TOOL_SURFACE_COLUMN)
    return columns


def _align(rows: Sequence[Sequence[str]], left_columns: int = 1) -> list[str]:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(width) if column < left_columns else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def mode_table(summary: RunSummary) -> list[str]:
    """An aligned table with one line per mode (plus a header); empty when there are no modes."""
    modes = summary.modes
    if not modes:
        return []
    columns = mode_columns(summary)
    header = ["mode", *(title for _, title, _ in columns)]
    gated = {summary.gate.baseline, summary.gate.candidate}
    body = [
        [
            mode if mode in gated else f"{mode} (not gated)",
            *(format_number(metrics.get(key), kind) for key, _, kind in columns),
        ]
        for mode, metrics in modes.items()
    ]
    return _align([header, *body])


def scenario_reliability(summary: RunSummary, limit: int = 10) -> list[str]:
    """pass^k per scenario x mode, where it is below 100% (some repetition failed), worst
    first and at most ``limit`` lines; one line saying so when every one passed all its
    repetitions. Empty for summaries without per-scenario pass^k."""
    groups = [
        (scenario_id, mode, metrics)
        for scenario_id, per_mode in summary.scenarios.items()
        for mode, metrics in per_mode.items()
        if _as_float(metrics.get("pass_hat_k")) is not None
    ]
    if not groups:
        return []
    below = [group for group in groups if (_as_float(group[2]["pass_hat_k"]) or 0.0) < 100.0]
    if not below:
        return [f"pass^k: all {len(groups)} scenario x mode groups passed every repetition"]
    below.sort(key=lambda group: (_as_float(group[2].get("success_rate")) or 0.0, group[:2]))
    lines = [
        f"pass^k: {len(below)} of {len(groups)} scenario x mode groups failed a repetition"
        + (f" ({limit} with the lowest success shown)" if len(below) > limit else "")
        + ":"
    ]
    body = [["scenario", "mode", "success", "pass^k", "k"]]
    for scenario_id, mode, metrics in below[:limit]:
        body.append(
            [
                scenario_id,
                mode,
                format_number(metrics.get("success_rate"), "percent"),
                format_number(metrics.get("pass_hat_k"), "percent"),
                format_number(metrics.get("pass_k"), "int"),
            ]
        )
    lines.extend(f"  {line}" for line in _align(body, left_columns=2))
    return lines


def checks_table(summary: RunSummary) -> list[str]:
    """An aligned table with one line per gate check: PASS/FAIL, name, value, operator,
    threshold. Empty when the gate has no checks (e.g. it was not evaluated)."""
    checks = summary.gate.checks
    if not checks:
        return []
    header = ["result", "check", "value", "op", "threshold"]
    body = [
        [
            "PASS" if check.passed else "FAIL",
            check.name,
            check_value(check),
            check.operator,
            format_number(check.threshold, check_unit(check.name)),
        ]
        for check in checks
    ]
    return _align([header, *body], left_columns=2)


def verdict_line(summary: RunSummary, exit_status: int, detail: str = "") -> str:
    """The one-line verdict, e.g. ``ghxbench verdict: gate verify_pr PASSED (10/10 checks) ->
    exit 0``. ``detail`` is appended in parentheses (e.g. "gate required")."""
    suffix = f" -> exit {exit_status}" + (f" ({detail})" if detail else "")
    gate = summary.gate
    label = f"gate {gate.profile or '?'}"
    if gate.candidate and gate.baseline:
        label += f" ({gate.candidate} vs {gate.baseline})"
    if not gate.evaluated:
        reason = gate.reason or "no reason given"
        return f"ghxbench verdict: {label} NOT EVALUATED: {reason}{suffix}"
    checks = gate.checks
    if gate.passed:
        passed = sum(1 for check in checks if check.passed)
        return f"ghxbench verdict: {label} PASSED ({passed}/{len(checks)} checks){suffix}"
    failed = [check.name for check in checks if not check.passed]
    if failed:
        counts = f"{len(failed)}/{len(checks)}: {', '.join(failed)}"
        note = gate.efficiency.get("coverage_note")
        if note:
            counts += f"; coverage 0%: {note}"
    else:
        counts = gate.reason or "no failing check reported"
    return f"ghxbench verdict: {label} FAILED ({counts}){suffix}"
