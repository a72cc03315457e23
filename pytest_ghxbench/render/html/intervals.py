"""The forest plot's numbers: per-scenario reductions (candidate vs baseline) with intervals.

``summary.json`` stores each scenario's point reduction (``gate.efficiency.scenarios.<id>``) and
only the across-scenario bootstrap intervals, so each scenario's 95 % interval is computed here
from the items with the project's bootstrap
(:func:`~pytest_ghxbench.metrics.bootstrap.bootstrap_median_reduction_ci` given that one
scenario), over the stable rows (success, valid output, no runner error) and with the summary's
seed and resample count, so the same run always draws the same intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_ghxbench.metrics.bootstrap import bootstrap_median_reduction_ci
from pytest_ghxbench.metrics.stats import median
from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.render.html.formats import as_int, as_number, as_text
from pytest_ghxbench.render.html.items import ItemView

__all__ = ["FOREST_METRICS", "ForestData", "ForestPanel", "ForestRow", "forest_data"]

# metric -> (ItemView attribute, key of the per-scenario reduction, keys of the overall ones)
FOREST_METRICS: dict[str, tuple[str, str, str, str]] = {
    "tokens_active": (
        "tokens_active",
        "tokens_active_reduction_pct",
        "tokens_active_reduction_pct",
        "tokens_active_reduction_ci95",
    ),
    "latency_ms": (
        "latency_ms",
        "latency_ms_reduction_pct",
        "latency_reduction_pct",
        "latency_reduction_ci95",
    ),
}
TITLES = {"tokens_active": "active tokens", "latency_ms": "latency"}
DEFAULT_RESAMPLES = 10_000
OVERALL_LABEL = "median over scenarios"


@dataclass(frozen=True)
class ForestRow:
    label: str
    estimate: float
    low: float | None
    high: float | None
    overall: bool = False


@dataclass(frozen=True)
class ForestPanel:
    metric: str
    title: str
    rows: list[ForestRow]


@dataclass(frozen=True)
class ForestData:
    baseline: str | None
    candidate: str | None
    panels: list[ForestPanel]
    note: str

    @property
    def empty(self) -> bool:
        return not any(panel.rows for panel in self.panels)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def forest_data(summary: RunSummary, items: Sequence[ItemView]) -> ForestData:
    """Per-scenario reductions in percent (positive: the candidate needs less) of active tokens
    and latency, for the scenarios the gate compared (eligible ones), plus the gate's median over
    scenarios with its interval as the last row of each panel."""
    gate, run = summary.gate, summary.run
    baseline = gate.baseline or as_text(run.get("baseline"))
    candidate = gate.candidate or as_text(run.get("candidate"))
    if baseline is None or candidate is None or baseline == candidate:
        return ForestData(baseline, candidate, [], "no baseline and candidate mode to compare")
    efficiency = gate.efficiency
    per_scenario = _mapping(efficiency.get("scenarios"))
    minimum = max(1, as_int(efficiency.get("min_samples_per_scenario_per_mode")) or 1)
    resamples = max(1, as_int(efficiency.get("bootstrap_resamples")) or DEFAULT_RESAMPLES)
    seed = as_int(efficiency.get("bootstrap_seed")) or 0

    stable: dict[str, dict[str, list[ItemView]]] = {}
    for item in items:
        if item.stable and item.mode in (baseline, candidate):
            stable.setdefault(item.scenario, {}).setdefault(item.mode, []).append(item)
    scenario_ids = sorted(set(stable) | set(per_scenario))
    eligible: list[str] = []
    for scenario_id in scenario_ids:
        entry = _mapping(per_scenario.get(scenario_id))
        if "eligible" in entry:
            ok = entry.get("eligible") is True
        else:
            groups = stable.get(scenario_id, {})
            ok = min(len(groups.get(baseline, ())), len(groups.get(candidate, ()))) >= minimum
        if ok:
            eligible.append(scenario_id)

    panels: list[ForestPanel] = []
    for metric, (attribute, scenario_key, overall_key, ci_key) in FOREST_METRICS.items():
        rows: list[ForestRow] = []
        for scenario_id in eligible:
            groups = stable.get(scenario_id, {})
            base = _values(groups.get(baseline, ()), attribute)
            cand = _values(groups.get(candidate, ()), attribute)
            estimate = as_number(_mapping(per_scenario.get(scenario_id)).get(scenario_key))
            if estimate is None:
                estimate = _reduction(base, cand)
            if estimate is None:
                continue
            low = high = None
            if base and cand:
                interval = bootstrap_median_reduction_ci(
                    {scenario_id: (base, cand)}, resamples=resamples, seed=seed
                )
                if interval is not None:
                    low, high = interval
            rows.append(ForestRow(scenario_id, estimate, low, high))
        overall = as_number(efficiency.get(overall_key))
        if rows and overall is not None:
            ci = efficiency.get(ci_key)
            low, high = _pair(ci)
            rows.append(ForestRow(OVERALL_LABEL, overall, low, high, overall=True))
        panels.append(ForestPanel(metric, TITLES[metric], rows))
    shown = max((sum(1 for row in panel.rows if not row.overall) for panel in panels), default=0)
    note = (
        f"{shown} of {len(scenario_ids)} scenarios comparable ({candidate} vs {baseline}, "
        f"at least {minimum} stable rows in both); 95 % bootstrap intervals, "
        f"{resamples:,} resamples, seed {seed}"
    )
    return ForestData(baseline, candidate, panels, note)


def _values(items: Sequence[ItemView], attribute: str) -> list[float]:
    values: list[float] = []
    for item in items:
        value = getattr(item, attribute)
        if isinstance(value, float):
            values.append(value)
    return values


def _reduction(base: Sequence[float], cand: Sequence[float]) -> float | None:
    base_median, cand_median = median(base), median(cand)
    if base_median is None or cand_median is None or base_median <= 0:
        return None
    return 100 * (base_median - cand_median) / base_median


def _pair(value: Any) -> tuple[float | None, float | None]:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return as_number(value[0]), as_number(value[1])
    return None, None
