"""Markdown rendering of a summary (``summary.md`` and the GitHub step summary)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ghxbench.records.models import GateResult, RunSummary
from pytest_ghxbench.render.gaps import gaps_markdown
from pytest_ghxbench.render.terminal import (
    MISSING,
    check_unit,
    check_value,
    format_number,
    mode_columns,
)

__all__ = ["render_markdown"]

# Above this many scenario-and-mode lines the per-scenario table is folded into <details>.
_SCENARIO_LINES_SHOWN_OPEN = 12

_RUN_LIST_ITEMS_SHOWN = 3
_RUN_FIELDS = ("commit", "model", "adapter", "backend", "profile")

_DISTRIBUTION_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("median_tokens_total", "median total tokens", "tokens"),
    ("p95_latency_ms", "p95 latency ms", "ms"),
    ("iqr_latency_ms", "IQR latency ms", "ms"),
    ("cv_latency", "CV latency", "percent"),
    ("p90_tokens_active", "p90 active tokens", "tokens"),
    ("p95_tokens_active", "p95 active tokens", "tokens"),
)

_SCENARIO_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("runs", "runs", "int"),
    ("success_rate", "success", "percent"),
    ("pass_hat_k", "pass^k", "percent"),
    ("output_validity_rate", "valid", "percent"),
    ("median_latency_ms", "median latency ms", "ms"),
    ("median_tokens_active", "median active tokens", "tokens"),
    ("median_tool_calls", "median tool calls", "count"),
    ("median_cost_usd", "median cost", "cost"),
)

# (efficiency key, label, kind, key of its 95% interval or None)
_EFFICIENCY_LINES: tuple[tuple[str, str, str, str | None], ...] = (
    (
        "tokens_active_reduction_pct",
        "Median active-token reduction",
        "percent",
        "tokens_active_reduction_ci95",
    ),
    ("latency_reduction_pct", "Median latency reduction", "percent", "latency_reduction_ci95"),
    ("tool_call_reduction_pct", "Median tool-call reduction", "percent", None),
    ("min_scenario_cost_reduction_pct", "Smallest per-scenario cost reduction", "percent", None),
    ("scenario_win_rate_tokens_active_pct", "Scenarios with fewer active tokens", "percent", None),
)

_OPERATOR_SYMBOLS = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "==": "="}


def _cell(value: Any) -> str:
    text = MISSING if value is None else str(value)
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align_left: int = 1) -> list[str]:
    rule = [":---" if index < align_left else "---:" for index in range(len(header))]
    lines = [
        "| " + " | ".join(_cell(title) for title in header) + " |",
        "| " + " | ".join(rule) + " |",
    ]
    lines.extend("| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows)
    return lines


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _headline(gate: GateResult) -> str:
    profile = gate.profile or "?"
    comparison = f"`{gate.baseline or '?'}` → `{gate.candidate or '?'}`"
    if not gate.evaluated:
        reason = gate.reason or "no reason given"
        return f"## ⚠️ ghxbench gate `{profile}` not evaluated ({comparison}): {reason}"
    checks = gate.checks
    if gate.passed:
        return f"## ✅ ghxbench gate `{profile}` passed ({comparison}, {len(checks)} checks)"
    failed = [f"`{check.name}`" for check in checks if not check.passed]
    what = (
        f"{len(failed)} of {len(checks)} checks failed: {', '.join(failed)}"
        if failed
        else (gate.reason or "failed")
    )
    return f"## ❌ ghxbench gate `{profile}` failed ({comparison}): {what}"


def _run_section(summary: RunSummary) -> list[str]:
    run = summary.run
    items = [(key, run.get(key)) for key in _RUN_FIELDS]
    items.extend((key, value) for key, value in run.items() if key not in _RUN_FIELDS)
    if summary.generated_at:
        items.append(("generated at", summary.generated_at))
    lines = ["### Run", ""]
    for key, value in items:
        if isinstance(value, (list, tuple)):
            shown_parts = [str(part) for part in value[:_RUN_LIST_ITEMS_SHOWN]]
            if len(value) > _RUN_LIST_ITEMS_SHOWN:
                shown_parts.append(f"and {len(value) - _RUN_LIST_ITEMS_SHOWN} more")
            value = ", ".join(shown_parts)
        elif isinstance(value, Mapping):
            # budget, completeness: small blocks of scalars, shown inline
            value = ", ".join(
                f"{name}={part}" for name, part in value.items() if not isinstance(part, Mapping)
            )
        shown = f"`{value}`" if value not in (None, "") else MISSING
        lines.append(f"- **{key}**: {shown}")
    return lines


def _modes_section(summary: RunSummary) -> list[str]:
    modes = summary.modes
    if not modes:
        return ["### Modes", "", "No rows."]
    columns = mode_columns(summary)
    header = ["mode", *(title for _, title, _ in columns)]
    rows = [
        [f"`{mode}`", *(format_number(m.get(key), kind) for key, _, kind in columns)]
        for mode, m in modes.items()
    ]
    dist_header = ["mode", *(title for _, title, _ in _DISTRIBUTION_COLUMNS), "model"]
    dist_rows = [
        [
            f"`{mode}`",
            *(format_number(m.get(key), kind) for key, _, kind in _DISTRIBUTION_COLUMNS),
            str(m.get("model_signature") or MISSING),
        ]
        for mode, m in modes.items()
    ]
    return ["### Modes", "", *_table(header, rows), "", *_table(dist_header, dist_rows)]


def _checks_section(gate: GateResult) -> list[str]:
    if not gate.checks:
        return []
    rows = []
    for check in gate.checks:
        threshold = format_number(check.threshold, check_unit(check.name))
        rule = f"{_OPERATOR_SYMBOLS.get(check.operator, check.operator)} {threshold}"
        rows.append(
            [f"`{check.name}`", check_value(check), rule, "✅ pass" if check.passed else "❌ fail"]
        )
    return ["### Checks", "", *_table(["check", "value", "rule", "result"], rows, align_left=1)]


def _interval(value: Any) -> str:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        low, high = (format_number(bound, "percent") for bound in value)
        if MISSING not in (low, high):
            return f" (95% CI {low} to {high})"
    return ""


def _efficiency_section(gate: GateResult) -> list[str]:
    efficiency = gate.efficiency
    if not efficiency:
        return []
    eligible = format_number(efficiency.get("eligible_scenario_count"), "int")
    total = format_number(efficiency.get("total_scenario_count"), "int")
    coverage = format_number(efficiency.get("coverage_pct"), "percent")
    lines = [
        "### Efficiency (stable rows)",
        "",
        f"- **Coverage**: {coverage} ({eligible} of {total} scenarios eligible)",
    ]
    for key, label, kind, interval_key in _EFFICIENCY_LINES:
        interval = _interval(efficiency.get(interval_key)) if interval_key else ""
        lines.append(f"- **{label}**: {format_number(efficiency.get(key), kind)}{interval}")
    scenario_table = _efficiency_scenarios(efficiency)
    if scenario_table:
        lines.extend(["", *scenario_table])
    return lines


def _kind_for_key(key: str) -> str:
    if key.endswith("_pp"):
        return "pp"
    if key.endswith(("_rate", "_pct")):
        return "percent"
    if key.endswith("_ms"):
        return "ms"
    if "tokens" in key:
        return "tokens"
    if "cost" in key:
        return "cost"
    if key.endswith(("runs", "_count")):
        return "int"
    return "number"


def _value_text(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    return format_number(value, _kind_for_key(key))


def _folded(title: str, table: list[str], rows: int) -> list[str]:
    if rows <= _SCENARIO_LINES_SHOWN_OPEN:
        return [f"#### {title}", "", *table]
    return ["<details>", f"<summary>{title}</summary>", "", *table, "", "</details>"]


def _reliability_section(gate: GateResult) -> list[str]:
    """Baseline and candidate side by side (``baseline_X`` / ``candidate_X`` keys), then the
    remaining scalar values."""
    reliability = gate.reliability
    paired = [
        key[len("baseline_") :]
        for key in reliability
        if key.startswith("baseline_") and f"candidate_{key[len('baseline_') :]}" in reliability
    ]
    pairs = {f"baseline_{name}" for name in paired} | {f"candidate_{name}" for name in paired}
    others = [
        (key, value)
        for key, value in reliability.items()
        if key not in pairs and not isinstance(value, (Mapping, list, tuple))
    ]
    if not paired and not others:
        return []
    lines = ["### Reliability (all rows)", ""]
    if paired:
        header = ["metric", f"`{gate.baseline or 'baseline'}`"]
        header.append(f"`{gate.candidate or 'candidate'}`")
        rows = [
            [
                name.replace("_", " "),
                _value_text(name, reliability[f"baseline_{name}"]),
                _value_text(name, reliability[f"candidate_{name}"]),
            ]
            for name in paired
        ]
        lines.extend([*_table(header, rows), ""])
    lines.extend(
        f"- **{key.replace('_', ' ')}**: {_value_text(key, value)}" for key, value in others
    )
    return lines


_EFFICIENCY_SCENARIO_COLUMNS: tuple[tuple[str, str], ...] = (
    ("tokens_active_reduction_pct", "active-token reduction"),
    ("latency_ms_reduction_pct", "latency reduction"),
    ("tool_calls_reduction_pct", "tool-call reduction"),
    ("cost_usd_reduction_pct", "cost reduction"),
)


def _efficiency_scenarios(efficiency: Mapping[str, Any]) -> list[str]:
    scenarios = _mapping(efficiency.get("scenarios"))
    rows = []
    for scenario_id, raw in sorted(scenarios.items()):
        detail = _mapping(raw)
        eligible = detail.get("eligible")
        stable = (
            f"{format_number(detail.get('baseline_stable_runs'), 'int')} / "
            f"{format_number(detail.get('candidate_stable_runs'), 'int')}"
        )
        rows.append(
            [
                f"`{scenario_id}`",
                MISSING if eligible is None else ("yes" if eligible else "no"),
                stable,
                *(
                    format_number(detail.get(key), "percent")
                    for key, _ in _EFFICIENCY_SCENARIO_COLUMNS
                ),
            ]
        )
    if not rows:
        return []
    header = ["scenario", "eligible", "stable runs (baseline / candidate)"]
    header.extend(title for _, title in _EFFICIENCY_SCENARIO_COLUMNS)
    title = f"Efficiency per scenario ({len(rows)} scenarios)"
    return _folded(title, _table(header, rows, align_left=3), len(rows))


def _scenarios_section(summary: RunSummary) -> list[str]:
    scenarios = summary.scenarios
    rows = []
    for scenario_id, per_mode in sorted(scenarios.items()):
        for mode, metrics in per_mode.items():
            rows.append(
                [
                    f"`{scenario_id}`",
                    f"`{mode}`",
                    *(format_number(metrics.get(key), kind) for key, _, kind in _SCENARIO_COLUMNS),
                ]
            )
    if not rows:
        return []
    table = _table(["scenario", "mode", *(title for _, title, _ in _SCENARIO_COLUMNS)], rows, 2)
    if len(rows) <= _SCENARIO_LINES_SHOWN_OPEN:
        return ["### Scenarios", "", *table]
    title = f"Per-scenario results ({len(scenarios)} scenarios)"
    return ["<details>", f"<summary>{title}</summary>", "", *table, "", "</details>"]


def render_markdown(summary: RunSummary) -> str:
    """The summary as Markdown: verdict headline, run info, per-mode tables, the modes whose
    items met sandbox gaps, gate checks, efficiency details with confidence intervals, and the
    per-scenario table (folded into a ``<details>`` block when long). Missing values show as
    "—"."""
    gate = summary.gate
    sections = [
        [_headline(gate)],
        _run_section(summary),
        _modes_section(summary),
        gaps_markdown(summary),
        _checks_section(gate),
        _efficiency_section(gate),
        _reliability_section(gate),
        _scenarios_section(summary),
    ]
    return "\n\n".join("\n".join(section) for section in sections if section) + "\n"
