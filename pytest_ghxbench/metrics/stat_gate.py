"""The checks of the interval profiles (``verify_pr_stat``, ``verify_release_stat``; SPEC §14).

A point-estimate gate cannot tell a bad interface from an underpowered run: with four
repetitions a real 30% reduction misses a 10% threshold on the median of noisy per-scenario
medians often enough. An interval profile decides every noisy check on a one-sided bound with
a stated error rate (:data:`ERROR_RATE`, 5% per check):

* efficiency (tokens, latency, tool calls, cost): the lower bound of the median-across-scenarios
  reduction, from the scenario-stratified bootstrap of :mod:`~pytest_ghxbench.metrics.bootstrap`
  (the 5th percentile of its replicates), must clear the threshold. A candidate no better than
  the baseline passes one such check at most 5% of the time at a true reduction equal to the
  threshold, and far less often at none;
* cost also fails when any scenario is more expensive beyond the noise: the upper bound of its
  own bootstrap reduction is below 0, at a family-wise 5% across scenarios (Bonferroni:
  ``1 - 0.05 / scenarios`` per scenario), so one noisy scenario of twenty does not fail a
  suite that really is cheaper;
* reliability: a rate fails only when it is beyond its limit with 95% confidence, i.e. when the
  one-sided Wilson bound on the good side (Newcombe's interval for the success-rate difference)
  is past the threshold. At the sizes a benchmark can afford (80 rows per mode) a strict
  non-inferiority proof is out of reach (even 80 of 80 successes cannot show a drop below 3 pp),
  so the burden of proof is on harm here, as it is on benefit for efficiency.

Coverage is a count of scenarios, not an estimate, and is compared as the seed compares it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_ghxbench.metrics.bootstrap import (
    bootstrap_reduction_replicates,
    row_medians_ignoring_nan,
)
from pytest_ghxbench.metrics.stats import (
    FloatArray,
    median,
    newcombe_interval,
    rate_percent,
    sorted_percentile,
    wilson_interval,
)

if TYPE_CHECKING:
    from pytest_ghxbench.metrics.table import GroupColumns, RowTable

__all__ = ["ERROR_RATE", "IntervalOutcome", "interval_outcome", "wilson_bound"]

ERROR_RATE = 0.05

EFFICIENCY_CHECK_METRICS: Mapping[str, str] = {
    "efficiency_tokens_active_reduction": "tokens_active",
    "efficiency_latency_reduction": "latency_ms",
    "efficiency_tool_call_reduction": "tool_calls",
    "efficiency_cost_reduction": "cost_usd",
}

# Rate checks: (GroupColumns attribute, the side of the interval that must be past the limit).
_RATE_CHECKS: Mapping[str, tuple[str, str]] = {
    "reliability_output_validity": ("output_valid", "upper"),
    "reliability_runner_failure_rate": ("runner_error", "lower"),
    "reliability_timeout_stall_rate": ("timeout_stall", "lower"),
    "reliability_retry_rate": ("retried", "lower"),
}

_REPORTED_INTERVALS: Mapping[str, str] = {
    "tokens_active": "tokens_active_reduction_ci95",
    "latency_ms": "latency_reduction_ci95",
}

_BOUND_LABEL = f"{100 * (1 - ERROR_RATE):g}%"


@dataclass
class IntervalOutcome:
    """The values an interval profile compares with its thresholds, and what else decides.

    ``values`` maps check names to the bound compared (``None`` fails the check), ``details``
    holds extra keys for each check entry (the point estimate, which bound), and ``vetoes``
    names checks that fail although their value meets the threshold, with the reason;
    ``intervals`` the efficiency's two-sided 95% intervals read off the same replicates.
    """

    values: dict[str, float | None] = field(default_factory=dict)
    details: dict[str, dict[str, Any]] = field(default_factory=dict)
    vetoes: dict[str, str] = field(default_factory=dict)
    intervals: dict[str, list[float] | None] = field(default_factory=dict)


def wilson_bound(hits: int, runs: int, side: str) -> float | None:
    """One-sided ``1 - ERROR_RATE`` Wilson score bound of a rate, in percent (None: no rows)."""

    if runs < 1:
        return None
    low, high = wilson_interval(hits, runs, NormalDist().inv_cdf(1 - ERROR_RATE))
    return 100 * (high if side == "upper" else low)


def interval_outcome(
    table: RowTable,
    baseline: str,
    candidate: str,
    efficiency: Mapping[str, Any],
    *,
    seed: int,
    resamples: int,
) -> IntervalOutcome:
    """The bounds the interval profile's checks compare (see the module docstring)."""
    outcome = IntervalOutcome()
    _reliability(outcome, table.mode(baseline), table.mode(candidate))
    base_groups, cand_groups = table.scenarios(baseline), table.scenarios(candidate)
    eligible = sorted(sid for sid, entry in efficiency["scenarios"].items() if entry["eligible"])
    for check, metric in EFFICIENCY_CHECK_METRICS.items():
        per_scenario = {
            sid: (base_groups[sid].stable_values(metric), cand_groups[sid].stable_values(metric))
            for sid in eligible
        }
        ids, matrix = bootstrap_reduction_replicates(per_scenario, resamples=resamples, seed=seed)
        suite = row_medians_ignoring_nan(matrix) if ids else np.empty(0)
        replicates = np.sort(suite[np.isfinite(suite)])
        lower = sorted_percentile(replicates, 100 * ERROR_RATE)
        if metric in _REPORTED_INTERVALS:
            low, high = sorted_percentile(replicates, 2.5), sorted_percentile(replicates, 97.5)
            outcome.intervals[_REPORTED_INTERVALS[metric]] = (
                None if low is None or high is None else [low, high]
            )
        outcome.values[check] = lower
        reductions = [efficiency["scenarios"][sid][f"{metric}_reduction_pct"] for sid in eligible]
        outcome.details[check] = {
            "estimate": median([value for value in reductions if value is not None]),
            "bound": f"lower {_BOUND_LABEL}",
        }
        if metric == "cost_usd":
            worse = _more_expensive(ids, matrix)
            outcome.details[check]["scenarios_more_expensive"] = worse
            if worse:
                outcome.vetoes[check] = f"more expensive beyond the noise in {', '.join(worse)}"
    return outcome


def _reliability(outcome: IntervalOutcome, base: GroupColumns, cand: GroupColumns) -> None:
    name = "reliability_success_rate_non_inferior"
    if base.runs and cand.runs:
        _, high = newcombe_interval(
            int(base.success.sum()),
            base.runs,
            int(cand.success.sum()),
            cand.runs,
            confidence=1 - 2 * ERROR_RATE,
        )
        outcome.values[name] = high
        estimate = 100 * (float(cand.success.mean()) - float(base.success.mean()))
    else:
        outcome.values[name] = estimate = None
    outcome.details[name] = {"estimate": estimate, "bound": f"upper {_BOUND_LABEL}"}
    for check, (attribute, side) in _RATE_CHECKS.items():
        flags = getattr(cand, attribute)
        outcome.values[check] = wilson_bound(int(flags.sum()), cand.runs, side)
        outcome.details[check] = {
            "estimate": rate_percent(flags),
            "bound": f"{side} {_BOUND_LABEL}",
        }


def _more_expensive(ids: list[str], matrix: FloatArray) -> list[str]:
    """Scenarios whose reduction's upper bound (Bonferroni over ``ids``) is below 0."""
    if not ids:
        return []
    quantile = 100 * (1 - ERROR_RATE / len(ids))
    worse = []
    for index, scenario_id in enumerate(ids):
        column = matrix[:, index]
        upper = sorted_percentile(np.sort(column[np.isfinite(column)]), quantile)
        if upper is not None and math.isfinite(upper) and upper < 0:
            worse.append(scenario_id)
    return worse
