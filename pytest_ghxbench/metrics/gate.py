"""The dual gate (SPEC section 7): reliability over all rows, efficiency over the stable sample.

The rows arrive as a :class:`~pytest_ghxbench.metrics.table.RowTable`, which the summary shares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pytest_ghxbench.metrics.bootstrap import bootstrap_median_reduction_ci
from pytest_ghxbench.metrics.profiles import CHECK_NAMES, CHECK_OPERATORS, INTERVAL, Profile
from pytest_ghxbench.metrics.stats import FloatArray, median
from pytest_ghxbench.metrics.table import GroupColumns, RowTable, reliability_rates
from pytest_ghxbench.records.row import Row

__all__ = ["COMPARISON_TOLERANCE", "evaluate_gate", "evaluate_gate_table"]

# Values within this many percentage points of a threshold count as meeting it, so float rounding
# (e.g. 9.999999999999998 for an exact 10 % reduction) never flips a verdict.
COMPARISON_TOLERANCE = 1e-9

# Compared per scenario; each is a GroupColumns attribute and names the per-scenario keys
# baseline_median_<metric>, candidate_median_<metric> and <metric>_reduction_pct.
_EFFICIENCY_METRICS: tuple[str, ...] = ("tokens_active", "latency_ms", "tool_calls", "cost_usd")


def evaluate_gate(
    rows: Sequence[Row],
    *,
    profile: Profile,
    baseline: str,
    candidate: str,
    seed: int = 0,
    resamples: int = 10_000,
) -> dict[str, Any]:
    """Evaluate the dual gate of ``candidate`` against ``baseline`` with ``profile``'s thresholds.

    Returns the ``gate`` object of ``summary.json``: ``profile``, ``baseline``, ``candidate``,
    ``evaluated``, ``passed``, ``reason``, ``reliability``, ``efficiency`` and ``checks`` (one
    entry per name in :data:`CHECK_NAMES`, in that order). Without rows of both modes the gate is
    not evaluated (``passed`` False, ``checks`` empty, the reason names the missing mode).
    """
    return evaluate_gate_table(
        RowTable(rows),
        profile=profile,
        baseline=baseline,
        candidate=candidate,
        seed=seed,
        resamples=resamples,
    )


def evaluate_gate_table(
    table: RowTable,
    *,
    profile: Profile,
    baseline: str,
    candidate: str,
    seed: int = 0,
    resamples: int = 10_000,
) -> dict[str, Any]:
    """:func:`evaluate_gate` on rows already turned into a :class:`RowTable`."""
    result: dict[str, Any] = {
        "profile": profile.name,
        "baseline": baseline,
        "candidate": candidate,
        "evaluated": False,
        "passed": False,
        "reason": "",
        "reliability": {},
        "efficiency": {},
        "checks": [],
    }
    if baseline == candidate:
        result["reason"] = f"baseline and candidate are the same mode {baseline!r}"
        return result
    missing = [
        f"{role} mode {mode!r}"
        for role, mode in (("baseline", baseline), ("candidate", candidate))
        if table.mode(mode).runs == 0
    ]
    if missing:
        result["reason"] = f"no rows for {' or '.join(missing)}"
        return result

    reliability = _reliability(table.mode(baseline), table.mode(candidate))
    interval = profile.method == INTERVAL
    # An interval profile bootstraps every metric itself and reports the token and latency
    # intervals from the same replicates (the same draws as _ci would make).
    efficiency = _efficiency(
        table, profile, baseline, candidate, seed, 0 if interval else resamples
    )
    values: dict[str, float | None] = {
        "reliability_success_rate_non_inferior": reliability["success_rate_delta_pp"],
        "reliability_output_validity": reliability["candidate_output_validity_rate"],
        "reliability_runner_failure_rate": reliability["candidate_runner_failure_rate"],
        "reliability_timeout_stall_rate": reliability["candidate_timeout_stall_rate"],
        "reliability_retry_rate": reliability["candidate_retry_rate"],
        "efficiency_coverage": efficiency["coverage_pct"],
        "efficiency_tokens_active_reduction": efficiency["tokens_active_reduction_pct"],
        "efficiency_latency_reduction": efficiency["latency_reduction_pct"],
        "efficiency_tool_call_reduction": efficiency["tool_call_reduction_pct"],
        "efficiency_cost_reduction": efficiency["min_scenario_cost_reduction_pct"],
    }
    vetoes: Mapping[str, str] = {}
    details: Mapping[str, Mapping[str, Any]] = {}
    if interval:
        from pytest_ghxbench.metrics.stat_gate import interval_outcome

        outcome = interval_outcome(
            table, baseline, candidate, efficiency, seed=seed, resamples=resamples
        )
        values.update(outcome.values)
        efficiency.update(outcome.intervals, bootstrap_resamples=resamples)
        vetoes, details = outcome.vetoes, outcome.details
    checks = [_check(name, values[name], profile) for name in CHECK_NAMES]
    for check in checks:
        check.update(details.get(check["name"], {}))
        veto = vetoes.get(check["name"])
        if veto is not None:
            check["passed"] = False
            check["note"] = veto
    failed = [check["name"] for check in checks if not check["passed"]]
    result.update(
        evaluated=True,
        passed=not failed,
        reason=(
            f"{len(failed)} of {len(checks)} checks failed: {', '.join(failed)}"
            + (f"; coverage: {efficiency['coverage_note']}" if efficiency["coverage_note"] else "")
            + "".join(f"; {name}: {note}" for name, note in vetoes.items())
            if failed
            else f"all {len(checks)} checks passed"
        ),
        reliability=reliability,
        efficiency=efficiency,
        checks=checks,
    )
    return result


def _check(name: str, value: float | None, profile: Profile) -> dict[str, Any]:
    operator = CHECK_OPERATORS[name]
    threshold = profile.thresholds[name]
    if name == "reliability_success_rate_non_inferior":
        threshold = -threshold
    if value is None:
        passed = False
    elif operator == ">=":
        passed = value >= threshold - COMPARISON_TOLERANCE
    else:
        passed = value <= threshold + COMPARISON_TOLERANCE
    return {
        "name": name,
        "passed": passed,
        "value": value,
        "threshold": threshold,
        "operator": operator,
    }


def _reliability(baseline: GroupColumns, candidate: GroupColumns) -> dict[str, Any]:
    base = reliability_rates(baseline)
    cand = reliability_rates(candidate)
    base_success, cand_success = base["success_rate"], cand["success_rate"]
    delta = None if base_success is None or cand_success is None else cand_success - base_success
    return {
        "baseline_runs": baseline.runs,
        "candidate_runs": candidate.runs,
        **{f"baseline_{key}": value for key, value in base.items()},
        **{f"candidate_{key}": value for key, value in cand.items()},
        "success_rate_delta_pp": delta,
    }


def _efficiency(
    table: RowTable,
    profile: Profile,
    baseline: str,
    candidate: str,
    seed: int,
    resamples: int,
) -> dict[str, Any]:
    minimum = profile.min_samples_per_scenario_per_mode
    baseline_groups = table.scenarios(baseline)
    candidate_groups = table.scenarios(candidate)
    universe = sorted(set(baseline_groups) | set(candidate_groups))
    reductions: dict[str, list[float]] = {name: [] for name in _EFFICIENCY_METRICS}
    ci_inputs: dict[str, dict[str, tuple[FloatArray, FloatArray]]] = {
        "tokens_active": {},
        "latency_ms": {},
    }
    per_scenario: dict[str, dict[str, Any]] = {}
    for scenario_id in universe:
        base_group = baseline_groups.get(scenario_id)
        cand_group = candidate_groups.get(scenario_id)
        base_stable = int(base_group.stable.sum()) if base_group is not None else 0
        cand_stable = int(cand_group.stable.sum()) if cand_group is not None else 0
        eligible = base_stable >= minimum and cand_stable >= minimum
        entry: dict[str, Any] = {
            "eligible": eligible,
            "baseline_stable_runs": base_stable,
            "candidate_stable_runs": cand_stable,
        }
        for name in _EFFICIENCY_METRICS:
            base_values = base_group.stable_values(name) if base_group is not None else np.empty(0)
            cand_values = cand_group.stable_values(name) if cand_group is not None else np.empty(0)
            base_median, cand_median = median(base_values), median(cand_values)
            reduction = None
            if eligible and base_median is not None and cand_median is not None and base_median > 0:
                reduction = 100 * (base_median - cand_median) / base_median
                reductions[name].append(reduction)
            entry[f"baseline_median_{name}"] = base_median
            entry[f"candidate_median_{name}"] = cand_median
            entry[f"{name}_reduction_pct"] = reduction
            if eligible and name in ci_inputs:
                ci_inputs[name][scenario_id] = (base_values, cand_values)
        per_scenario[scenario_id] = entry

    eligible_count = sum(1 for entry in per_scenario.values() if entry["eligible"])
    coverage_note = None
    if universe and eligible_count == 0:
        most = {
            role: max(int(entry[f"{role}_stable_runs"]) for entry in per_scenario.values())
            for role in ("baseline", "candidate")
        }
        coverage_note = (
            f"no scenario has {minimum} stable rows in both modes (the most any scenario has: "
            f"{most['baseline']} for {baseline}, {most['candidate']} for {candidate}); "
            f"run at least --reps={minimum}, and see why rows are not stable"
        )
    token_reductions = reductions["tokens_active"]
    cost_reductions = reductions["cost_usd"]
    wins = sum(1 for value in token_reductions if value > 0)
    return {
        "coverage_pct": 100 * eligible_count / len(universe) if universe else None,
        "coverage_note": coverage_note,
        "eligible_scenario_count": eligible_count,
        "total_scenario_count": len(universe),
        "tokens_active_reduction_pct": median(token_reductions),
        "latency_reduction_pct": median(reductions["latency_ms"]),
        "tool_call_reduction_pct": median(reductions["tool_calls"]),
        "min_scenario_cost_reduction_pct": min(cost_reductions) if cost_reductions else None,
        "scenario_win_rate_tokens_active_pct": (
            100 * wins / len(token_reductions) if token_reductions else None
        ),
        "token_comparable_scenario_count": len(token_reductions),
        "latency_comparable_scenario_count": len(reductions["latency_ms"]),
        "tool_call_comparable_scenario_count": len(reductions["tool_calls"]),
        "cost_comparable_scenario_count": len(cost_reductions),
        "tokens_active_reduction_ci95": _ci(ci_inputs["tokens_active"], seed, resamples),
        "latency_reduction_ci95": _ci(ci_inputs["latency_ms"], seed, resamples),
        "bootstrap_resamples": resamples,
        "bootstrap_seed": seed,
        "min_samples_per_scenario_per_mode": minimum,
        "scenarios": per_scenario,
    }


def _ci(
    per_scenario: Mapping[str, tuple[FloatArray, FloatArray]], seed: int, resamples: int
) -> list[float] | None:
    if not per_scenario or resamples == 0:
        return None
    interval = bootstrap_median_reduction_ci(per_scenario, resamples=resamples, seed=seed)
    return None if interval is None else [interval[0], interval[1]]
