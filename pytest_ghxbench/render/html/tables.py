"""The page's header and tables from ``summary.json`` (and a run-over-run comparison).

Each function returns plain, already formatted values for the template; a key the summary does
not have is shown as "—" (``pass_hat_k`` columns appear only when some mode or scenario has it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.render.html.formats import (
    DASH,
    as_int,
    as_number,
    as_text,
    fmt_metric,
    fmt_pct,
    fmt_value,
)
from pytest_ghxbench.render.html.items import ItemView
from pytest_ghxbench.render.terminal import CHECK_VALUE_PREFIXES

__all__ = [
    "check_rows",
    "comparison_table",
    "efficiency_lines",
    "mode_table",
    "run_fields",
    "scenario_table",
    "verdict",
]

RUN_FIELDS: tuple[tuple[str, str], ...] = (
    ("run_id", "run id"),
    ("adapter", "adapter"),
    ("backend", "backend"),
    ("model", "model"),
    ("profile", "profile"),
    ("modes", "modes"),
    ("reps", "repetitions"),
    ("scenario_set", "scenario set"),
    ("row_count", "rows"),
    ("commit", "commit"),
)
MODE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("runs", "runs"),
    ("success_rate", "success"),
    ("pass_hat_k", "pass^k"),
    ("output_validity_rate", "valid output"),
    ("runner_failure_rate", "runner failures"),
    ("timeout_stall_rate", "timeouts/stalls"),
    ("retry_rate", "retried"),
    ("median_latency_ms", "median latency"),
    ("p90_latency_ms", "p90 latency"),
    ("median_tokens_active", "median active tokens"),
    ("median_tool_calls", "median tool calls"),
    ("median_cost_usd", "median cost"),
    ("total_cost_usd", "total cost"),
)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


_RUN_BLOCKS = ("completeness", "budget")


def run_fields(summary: RunSummary) -> list[tuple[str, str]]:
    """Label/value pairs of the run's identity (run id, adapter, backend, model, profile...)."""
    run, gate = summary.run, summary.gate
    fields = [(label, fmt_value(run.get(key))) for key, label in RUN_FIELDS]
    baseline = gate.baseline or as_text(run.get("baseline"))
    candidate = gate.candidate or as_text(run.get("candidate"))
    if baseline or candidate:
        fields.append(("candidate vs baseline", f"{candidate or DASH} vs {baseline or DASH}"))
    fields.append(("generated at", fmt_value(summary.generated_at)))
    for key in _RUN_BLOCKS:  # budget, completeness: small blocks of scalars, shown inline
        block = run.get(key)
        if isinstance(block, Mapping) and block:
            shown = ", ".join(
                f"{name}={fmt_value(part)}"
                for name, part in block.items()
                if not isinstance(part, (Mapping, list))
            )
            fields.append((key, shown))
    return fields


def verdict(summary: RunSummary) -> dict[str, str]:
    """The gate's verdict: ``status`` (passed, failed or not_evaluated), a label and why."""
    gate, run = summary.gate, summary.run
    if not gate.evaluated:
        status, label = "not_evaluated", "GATE NOT EVALUATED"
    elif gate.passed:
        status, label = "passed", "GATE PASSED"
    else:
        status, label = "failed", "GATE FAILED"
    reason = gate.reason or DASH
    required = run.get("gate_required")
    detail = ", ".join(
        part
        for part in (
            f"profile {gate.profile or run.get('profile') or DASH}",
            f"{gate.candidate or DASH} vs {gate.baseline or DASH}",
            {True: "required", False: "advisory"}.get(required, "") if required is not None else "",
        )
        if part
    )
    return {
        "status": status,
        "label": label,
        "reason": reason,
        "detail": detail,
        "line": as_text(run.get("verdict")) or "",
    }


def efficiency_lines(summary: RunSummary) -> list[str]:
    """The gate's efficiency figures in words (median reductions with their intervals)."""
    efficiency = summary.gate.efficiency
    if not efficiency:
        return []
    lines = [
        f"coverage {fmt_pct(efficiency.get('coverage_pct'))} "
        f"({fmt_value(efficiency.get('eligible_scenario_count'))} of "
        f"{fmt_value(efficiency.get('total_scenario_count'))} scenarios comparable)"
    ]
    for label, value_key, ci_key, count_key in (
        (
            "active tokens",
            "tokens_active_reduction_pct",
            "tokens_active_reduction_ci95",
            "token_comparable_scenario_count",
        ),
        (
            "latency",
            "latency_reduction_pct",
            "latency_reduction_ci95",
            "latency_comparable_scenario_count",
        ),
    ):
        line = f"{label}: median reduction {fmt_pct(efficiency.get(value_key))}"
        ci = efficiency.get(ci_key)
        if isinstance(ci, list) and len(ci) == 2:
            line += f" (95 % CI {fmt_pct(ci[0])} to {fmt_pct(ci[1])})"
        line += f" over {fmt_value(efficiency.get(count_key))} scenarios"
        lines.append(line)
    note = as_text(efficiency.get("coverage_note"))
    if note:
        lines.append(f"coverage note: {note}")
    return lines


def check_rows(summary: RunSummary) -> list[dict[str, Any]]:
    """The gate's checks: name, value, operator, threshold (formatted) and whether it passed."""
    rows: list[dict[str, Any]] = []
    for check in summary.gate.checks:
        name = check.name
        unit = " pp" if name.endswith("non_inferior") else " %"
        value = _with_unit(check.value, unit)
        if check.value is not None and name in CHECK_VALUE_PREFIXES:
            value = f"{CHECK_VALUE_PREFIXES[name]} {value}"
        rows.append(
            {
                "name": name,
                "value": value,
                "operator": check.operator or DASH,
                "threshold": _with_unit(check.threshold, unit),
                "passed": check.passed,
            }
        )
    return rows


def _with_unit(value: Any, unit: str) -> str:
    number = as_number(value)
    return DASH if number is None else f"{number:,.1f}{unit}"


def _pass_k_label(groups: Sequence[Mapping[str, Any]]) -> str:
    ks = {as_int(group.get("pass_k")) for group in groups if "pass_hat_k" in group}
    ks.discard(None)
    return f"pass^{ks.pop()}" if len(ks) == 1 else "pass^k"


def mode_table(summary: RunSummary, modes: Sequence[str]) -> dict[str, Any]:
    """Per-mode metrics: ``columns`` (labels) and ``rows`` (mode, role, cells)."""
    gate = summary.gate
    groups = [summary.modes.get(mode, {}) for mode in modes]
    has_pass_k = any("pass_hat_k" in group for group in groups)
    columns = [(key, label) for key, label in MODE_COLUMNS if has_pass_k or key != "pass_hat_k"]
    labels = [_pass_k_label(groups) if key == "pass_hat_k" else label for key, label in columns]
    rows = []
    for mode, group in zip(modes, groups, strict=True):
        role = {gate.baseline: "baseline", gate.candidate: "candidate"}.get(mode, "")
        cells = [fmt_metric(key, group.get(key)) for key, _ in columns]
        rows.append({"mode": mode, "role": role, "cells": cells, "present": bool(group)})
    return {"columns": labels, "rows": rows}


def scenario_table(
    summary: RunSummary, items: Sequence[ItemView], modes: Sequence[str]
) -> dict[str, Any]:
    """Per scenario and mode: items passed, pass^k (when present), median active tokens and
    latency; then the gate's eligibility and reductions for the scenario."""
    per_scenario = summary.scenarios
    efficiency = _mapping(summary.gate.efficiency.get("scenarios"))
    counts: dict[tuple[str, str], list[int]] = {}
    for item in items:
        cell = counts.setdefault((item.scenario, item.mode), [0, 0])
        cell[0] += item.outcome == "pass"
        cell[1] += 1
    scenario_ids = sorted({*per_scenario, *(item.scenario for item in items)})
    groups = [
        per_scenario.get(scenario_id, {}).get(mode, {})
        for scenario_id in scenario_ids
        for mode in modes
    ]
    has_pass_k = any("pass_hat_k" in group for group in groups)
    per_mode_columns = ["passed", *([_pass_k_label(groups)] if has_pass_k else [])]
    per_mode_columns += ["median active tokens", "median latency"]
    rows = []
    for scenario_id in scenario_ids:
        metrics = per_scenario.get(scenario_id, {})
        cells: list[str] = []
        for mode in modes:
            group = metrics.get(mode, {})
            passed, total = counts.get((scenario_id, mode), (0, 0))
            cells.append(f"{passed}/{total}" if total else DASH)
            if has_pass_k:
                cells.append(fmt_metric("pass_hat_k", group.get("pass_hat_k")))
            cells.append(fmt_metric("median_tokens_active", group.get("median_tokens_active")))
            cells.append(fmt_metric("median_latency_ms", group.get("median_latency_ms")))
        entry = _mapping(efficiency.get(scenario_id))
        gate_cells = [
            fmt_value(entry.get("eligible")) if entry else DASH,
            fmt_pct(entry.get("tokens_active_reduction_pct")),
            fmt_pct(entry.get("latency_ms_reduction_pct")),
        ]
        rows.append({"scenario": scenario_id, "cells": cells, "gate": gate_cells})
    return {
        "modes": list(modes),
        "per_mode_columns": per_mode_columns,
        "gate_columns": ["comparable", "token reduction", "latency reduction"],
        "rows": rows,
    }


def _signed(value: Any, unit: str) -> str:
    number = as_number(value)
    return DASH if number is None else f"{number:+,.1f}{unit}"


def _compared_value(metric: str, value: Any) -> str:
    if metric == "success_rate":
        return fmt_pct(value)
    if metric == "cost":
        return fmt_metric("cost_usd", value)
    return fmt_metric(metric, value)


def comparison_table(comparison: Mapping[str, Any]) -> dict[str, Any]:
    """A run-over-run comparison (``pytest_ghxbench.compare``'s JSON form): one row per
    scenario x mode x metric with both medians, the change and its interval, regressions
    beyond noise first; ``kind`` is regression, improvement (beyond noise) or noise."""
    rows = []
    for entry in comparison.get("entries") or ():
        if not isinstance(entry, Mapping):
            continue
        metric = str(entry.get("metric") or DASH)
        unit = " pp" if metric == "success_rate" else " %"
        beyond = entry.get("beyond_noise") is True
        regression = entry.get("regression") is True
        kind = "regression" if regression else "improvement" if beyond else "noise"
        low, high = entry.get("ci_low_pct"), entry.get("ci_high_pct")
        scenario = str(entry.get("scenario_id") or DASH)
        rows.append(
            {
                "scenario": "(all scenarios)" if scenario == "*" else scenario,
                "mode": str(entry.get("mode") or DASH),
                "metric": metric,
                "base": _compared_value(metric, entry.get("base_median")),
                "median": _compared_value(metric, entry.get("median")),
                "counts": f"{fmt_value(entry.get('base_n'))} → {fmt_value(entry.get('n'))}",
                "change": _signed(entry.get("change_pct"), unit),
                "interval": (
                    f"{_signed(low, unit)} to {_signed(high, unit)}"
                    if as_number(low) is not None or as_number(high) is not None
                    else DASH
                ),
                "note": as_text(entry.get("note")) or "",
                "beyond_noise": beyond,
                "regression": regression,
                "kind": kind,
            }
        )
    rows.sort(key=lambda row: row["kind"] != "regression")  # stable: otherwise as given
    unmatched = [
        f"{label}: " + ", ".join(" / ".join(str(part) for part in pair) for pair in pairs)
        for label, pairs in (
            ("only in the base run", comparison.get("only_in_base") or ()),
            ("only in this run", comparison.get("only_in_run") or ()),
        )
        if isinstance(pairs, list) and pairs and all(isinstance(p, (list, tuple)) for p in pairs)
    ]
    return {
        "base_run": fmt_value(comparison.get("base_run")),
        "run": fmt_value(comparison.get("run")),
        "rows": rows,
        "regressions": sum(1 for row in rows if row["regression"]),
        "improvements": sum(1 for row in rows if row["kind"] == "improvement"),
        "failed": [str(line) for line in comparison.get("failed") or ()],
        "unmatched": unmatched,
    }
