"""Per-mode and per-scenario metrics and the ``summary.json`` document (SPEC sections 7 and 8)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import PurePath
from typing import Any

import numpy as np

from pytest_ghxbench.metrics.gate import evaluate_gate_table
from pytest_ghxbench.metrics.profiles import Profile
from pytest_ghxbench.metrics.stats import (
    cv_percent,
    sorted_array,
    sorted_median,
    sorted_percentile,
)
from pytest_ghxbench.metrics.table import GroupColumns, RowTable, reliability_rates
from pytest_ghxbench.records.models import SCHEMA_VERSION, RunSummary
from pytest_ghxbench.records.row import Row

__all__ = [
    "KNOWN_MODE_ORDER",
    "MODE_METRICS",
    "NUMERIC_MODE_METRICS",
    "build_summary",
    "group_metrics",
    "json_safe",
    "mode_metrics",
    "pass_hat_k",
]

MODE_METRICS: tuple[str, ...] = (
    "runs",
    "success_rate",
    "output_validity_rate",
    "runner_failure_rate",
    "timeout_stall_rate",
    "retry_rate",
    "median_latency_ms",
    "median_tokens_total",
    "median_tokens_active",
    "median_tool_calls",
    "median_cost_usd",
    "p90_latency_ms",
    "p95_latency_ms",
    "iqr_latency_ms",
    "cv_latency",
    "p90_tokens_active",
    "p95_tokens_active",
    "model_signature",
    # beyond the SPEC's required names
    "stable_runs",
    "scenario_count",
    "total_cost_usd",
    # SPEC section 15: where the sandbox diverged from GitHub
    "sandbox_gap_items",
    "sandbox_gaps",
    "sandbox_gap_kinds",
)

NUMERIC_MODE_METRICS: tuple[str, ...] = tuple(
    m for m in MODE_METRICS if m not in ("model_signature", "sandbox_gap_kinds")
)

KNOWN_MODE_ORDER: tuple[str, ...] = ("agent_direct", "mcp", "ghx")


def mode_metrics(rows: Sequence[Row]) -> dict[str, Any]:
    """The metrics of :data:`MODE_METRICS` over ``rows`` (normally all rows of one mode).

    Rates are percentages over all given rows; medians and percentiles are over all rows too
    (failed runs included). ``sandbox_gap_items`` (rows with at least one sandbox gap),
    ``sandbox_gaps`` (their total count) and ``sandbox_gap_kinds`` (that total per kind) cover
    all rows too. ``runs``, ``stable_runs``, ``scenario_count`` and the gap counts are 0 (the
    kinds ``{}``) and every other metric is ``None`` when there are no rows.
    """
    return group_metrics(RowTable(rows).all_rows())


def group_metrics(group: GroupColumns) -> dict[str, Any]:
    """:func:`mode_metrics` of an already grouped set of rows."""
    latency = sorted_array(group.latency_ms)
    tokens_active = sorted_array(group.tokens_active)
    p75_latency = sorted_percentile(latency, 75)
    p25_latency = sorted_percentile(latency, 25)
    return {
        "runs": group.runs,
        **reliability_rates(group),
        "median_latency_ms": sorted_median(latency),
        "median_tokens_total": sorted_median(sorted_array(group.tokens_total)),
        "median_tokens_active": sorted_median(tokens_active),
        "median_tool_calls": sorted_median(sorted_array(group.tool_calls)),
        "median_cost_usd": sorted_median(sorted_array(group.cost_usd)),
        "p90_latency_ms": sorted_percentile(latency, 90),
        "p95_latency_ms": sorted_percentile(latency, 95),
        "iqr_latency_ms": (
            None if p75_latency is None or p25_latency is None else p75_latency - p25_latency
        ),
        "cv_latency": cv_percent(latency),
        "p90_tokens_active": sorted_percentile(tokens_active, 90),
        "p95_tokens_active": sorted_percentile(tokens_active, 95),
        "model_signature": ", ".join(group.model_signatures) or None,
        "stable_runs": int(group.stable.sum()),
        "scenario_count": group.scenario_count,
        "total_cost_usd": float(group.cost_usd.sum()) if group.runs else None,
        "sandbox_gap_items": int(np.count_nonzero(group.sandbox_gaps)),
        "sandbox_gaps": int(group.sandbox_gaps.sum()),
        "sandbox_gap_kinds": dict(group.sandbox_gap_kinds),
    }


def build_summary(
    rows: Sequence[Row] | RowTable,
    *,
    profile: Profile,
    baseline: str,
    candidate: str,
    run_info: Mapping[str, Any] | None = None,
    seed: int = 0,
    resamples: int = 10_000,
    generated_at: str | None = None,
) -> RunSummary:
    """The ``summary.json`` document for ``rows`` (or the :class:`RowTable` already made of them).

    Keys: ``generated_at`` (ISO 8601 UTC; now unless given), ``run`` (a copy of ``run_info``
    plus ``profile``, ``baseline``, ``candidate`` and ``row_count`` when absent),
    ``modes.<mode>.<metric>``, ``scenarios.<id>.<mode>.<metric>``, ``delta`` (candidate minus
    baseline for every numeric mode metric; ``{}`` when either mode has no rows) and ``gate``
    (see :func:`~pytest_ghxbench.metrics.gate.evaluate_gate`). The result holds only JSON types
    and never NaN or infinity (such values become ``None``).
    """
    table = rows if isinstance(rows, RowTable) else RowTable(rows)
    modes = sorted(table.modes, key=_mode_sort_key)
    per_mode = {mode: group_metrics(table.mode(mode)) for mode in modes}
    per_scenario: dict[str, dict[str, Any]] = {}
    for mode in modes:
        groups = table.scenarios(mode)
        for scenario_id, group in groups.items():
            per_scenario.setdefault(scenario_id, {})[mode] = {
                **group_metrics(group),
                **pass_hat_k([group], k=group.runs),
            }
        per_mode[mode].update(pass_hat_k(list(groups.values())))
    run: dict[str, Any] = dict(run_info or {})
    run.setdefault("profile", profile.name)
    run.setdefault("baseline", baseline)
    run.setdefault("candidate", candidate)
    run.setdefault("row_count", len(table))
    summary = {
        "schema_version": SCHEMA_VERSION,
        "generated_at": generated_at or _utc_now(),
        "run": run,
        "modes": per_mode,
        "scenarios": dict(sorted(per_scenario.items())),
        "delta": _delta(per_mode, baseline, candidate),
        "gate": evaluate_gate_table(
            table,
            profile=profile,
            baseline=baseline,
            candidate=candidate,
            seed=seed,
            resamples=resamples,
        ),
    }
    return RunSummary.model_validate(json_safe(summary))


def pass_hat_k(scenarios: Sequence[GroupColumns], k: int | None = None) -> dict[str, Any]:
    """pass^k: the chance that ``k`` repetitions of a scenario all succeed, in percent, as the
    mean over ``scenarios`` of the unbiased estimate C(successes, k) / C(runs, k).

    ``k`` defaults to the fewest runs of any scenario (so every scenario can be estimated);
    for one scenario with ``k`` equal to its runs this is 100 when every repetition succeeded
    and 0 otherwise. Returns ``pass_hat_k`` and ``pass_k`` (``None`` without rows)."""
    counts = [(group.runs, int(group.success.sum())) for group in scenarios if group.runs]
    if not counts:
        return {"pass_hat_k": None, "pass_k": None}
    chosen = min(runs for runs, _ in counts) if k is None else k
    estimates = [math.comb(ok, chosen) / math.comb(runs, chosen) for runs, ok in counts]
    return {"pass_hat_k": 100.0 * sum(estimates) / len(estimates), "pass_k": chosen}


def _mode_sort_key(mode: str) -> tuple[int, str]:
    if mode in KNOWN_MODE_ORDER:
        return KNOWN_MODE_ORDER.index(mode), mode
    return len(KNOWN_MODE_ORDER), mode


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _delta(
    per_mode: Mapping[str, Mapping[str, Any]], baseline: str, candidate: str
) -> dict[str, Any]:
    """Candidate minus baseline for every numeric metric (``None`` where either is missing)."""
    if baseline not in per_mode or candidate not in per_mode:
        return {}
    base, cand = per_mode[baseline], per_mode[candidate]
    delta: dict[str, Any] = {"baseline": baseline, "candidate": candidate}
    for metric in NUMERIC_MODE_METRICS:
        base_value, cand_value = base.get(metric), cand.get(metric)
        if isinstance(base_value, (int, float)) and isinstance(cand_value, (int, float)):
            delta[metric] = cand_value - base_value
        else:
            delta[metric] = None
    return delta


def json_safe(value: Any) -> Any:
    """``value`` with only JSON types: non-finite floats become ``None``, tuples become lists,
    numpy scalars become Python numbers, paths and other objects become strings."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return [json_safe(item) for item in items]
    if isinstance(value, PurePath):
        return str(value)
    if hasattr(value, "item"):  # numpy scalar
        return json_safe(value.item())
    return str(value)
