"""The comparison of a run with a base run, per scenario x mode and per mode's suite.

Efficiency metrics (tokens_active, latency_ms, tool_calls, cost) compare medians over the stable
rows (success, valid output, no runner error): ``change_pct = 100 x (after - before) / before``,
undefined unless the base median is > 0 and both runs have stable rows.

Intervals are percentile bootstrap intervals. Each replicate resamples the two runs' stable
rows of a scenario x mode independently (with bootstrap.py's exact order-statistic sampler,
:func:`sample_bootstrap_medians`) and takes the change of the two resampled medians, left out
where the resampled base median is not > 0. A suite entry (``"*"``) reuses those replicates,
stratified: its replicate is the median across scenarios of the scenarios' replicates. Each
scenario x mode x metric has its own generator, seeded from ``seed`` and the key, so an entry's
interval depends on its own rows and the seed only, not on the rest of the runs.

Success rates (over all rows) are compared as a difference in percentage points with Newcombe's
hybrid score interval (from the two Wilson intervals), which needs no resampling.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pytest_ghxbench.compare.model import (
    EFFICIENCY_METRICS,
    OVERALL,
    SUCCESS_RATE,
    Comparison,
    ComparisonEntry,
    Metric,
)
from pytest_ghxbench.compare.rules import FailRule, failures
from pytest_ghxbench.metrics.bootstrap import row_medians_ignoring_nan, sample_bootstrap_medians
from pytest_ghxbench.metrics.stats import (
    FloatArray,
    median,
    newcombe_interval,
    rate_percent,
    sorted_median,
    sorted_percentile,
)
from pytest_ghxbench.metrics.table import BoolArray, RowTable

__all__ = ["MIN_ROWS_FOR_INTERVAL", "compare_runs"]

# Fewer rows than this on a side: no interval (a single row has no spread to resample).
MIN_ROWS_FOR_INTERVAL = 2

# The GroupColumns attribute of each efficiency metric.
_COLUMNS: dict[Metric, str] = {
    "tokens_active": "tokens_active",
    "latency_ms": "latency_ms",
    "tool_calls": "tool_calls",
    "cost": "cost_usd",
}


@dataclass(frozen=True)
class _Settings:
    confidence: float
    resamples: int
    seed: int

    def entry_seed(self, scenario_id: str, mode: str, metric: str) -> int:
        key = f"{self.seed}\0{scenario_id}\0{mode}\0{metric}".encode()
        return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


@dataclass(frozen=True)
class _Samples:
    """One metric's sorted stable values of one scenario x mode in both runs, the change of
    their medians and its bootstrap replicates (``None`` without an interval)."""

    before: FloatArray
    after: FloatArray
    change: float | None
    replicates: FloatArray | None

    @classmethod
    def of(
        cls, before: FloatArray, after: FloatArray, settings: _Settings, key: tuple[str, str, str]
    ) -> _Samples:
        before, after = np.sort(before), np.sort(after)
        change = _change(sorted_median(before), sorted_median(after))
        replicates = None
        if change is not None and min(len(before), len(after)) >= MIN_ROWS_FOR_INTERVAL:
            replicates = _change_replicates(before, after, settings, key)
        return cls(before, after, change, replicates)


def compare_runs(
    base: RowTable,
    current: RowTable,
    *,
    base_run: str,
    run: str,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
    rules: Sequence[FailRule] = (),
) -> Comparison:
    """Compare ``current`` (run ``run``) with ``base`` (run ``base_run``).

    Every scenario x mode with rows in both runs gets one entry per metric; each mode with such
    scenarios gets suite entries (``scenario_id`` ``"*"``). Pairs in one run only are listed in
    ``only_in_base``/``only_in_run``. ``failed`` holds the lines of :func:`failures` for
    ``rules``. The same rows, ``confidence``, ``resamples`` and ``seed`` give the same result.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    settings = _Settings(confidence, resamples, seed)
    modes = list(dict.fromkeys([*base.modes, *current.modes]))
    per_scenario: list[tuple[str, int, list[ComparisonEntry]]] = []
    overall: list[ComparisonEntry] = []
    only_in_base: list[tuple[str, int]] = []
    only_in_run: list[tuple[str, int]] = []
    for mode_index, mode in enumerate(modes):
        base_groups = base.scenarios(mode) if mode in base.modes else {}
        run_groups = current.scenarios(mode) if mode in current.modes else {}
        only_in_base += [(sid, mode_index) for sid in base_groups if sid not in run_groups]
        only_in_run += [(sid, mode_index) for sid in run_groups if sid not in base_groups]
        common = [sid for sid in base_groups if sid in run_groups]
        if not common:
            continue
        samples: dict[Metric, dict[str, _Samples]] = {metric: {} for metric in EFFICIENCY_METRICS}
        for sid in common:
            before, after = base_groups[sid], run_groups[sid]
            entries = []
            for metric in EFFICIENCY_METRICS:
                pair = _Samples.of(
                    before.stable_values(_COLUMNS[metric]),
                    after.stable_values(_COLUMNS[metric]),
                    settings,
                    (sid, mode, metric),
                )
                samples[metric][sid] = pair
                entries.append(_scenario_entry(sid, mode, metric, pair, settings.confidence))
            entries.append(_success_entry(sid, mode, before.success, after.success, settings))
            per_scenario.append((sid, mode_index, entries))
        overall += [
            _overall_entry(mode, metric, samples[metric], settings.confidence)
            for metric in EFFICIENCY_METRICS
        ]
        overall.append(
            _success_entry(
                OVERALL,
                mode,
                np.concatenate([base_groups[sid].success for sid in common]),
                np.concatenate([run_groups[sid].success for sid in common]),
                settings,
            )
        )
    per_scenario.sort(key=lambda item: (item[0], item[1]))
    comparison = Comparison(
        base_run=base_run,
        run=run,
        entries=[entry for _, _, entries in per_scenario for entry in entries] + overall,
        only_in_base=[(sid, modes[index]) for sid, index in sorted(only_in_base)],
        only_in_run=[(sid, modes[index]) for sid, index in sorted(only_in_run)],
    )
    if not rules:
        return comparison
    return comparison.model_copy(update={"failed": failures(comparison, rules)})


def _finite(value: float | None) -> float | None:
    """``value`` as a plain float, ``None`` unless finite; ``-0.0`` becomes ``0.0``."""
    return float(value) + 0.0 if value is not None and math.isfinite(value) else None


def _change(before: float | None, after: float | None) -> float | None:
    if before is None or after is None or not before > 0:
        return None
    return _finite(100 * (after - before) / before)


def _change_replicates(
    before: FloatArray, after: FloatArray, settings: _Settings, key: tuple[str, str, str]
) -> FloatArray:
    """The change of the medians of independent resamples of ``before`` and ``after`` (sorted),
    in percent; NaN where the resampled base median is not > 0. The generator is seeded from
    the settings' seed and ``key`` (scenario, mode, metric)."""
    rng = np.random.default_rng(settings.entry_seed(*key))
    base_medians = sample_bootstrap_medians(before, settings.resamples, rng)
    run_medians = sample_bootstrap_medians(after, settings.resamples, rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(
            np.where(base_medians > 0, 100 * (run_medians - base_medians) / base_medians, np.nan),
            dtype=float,
        )


def _percentile_interval(replicates: FloatArray, confidence: float) -> tuple[float, float] | None:
    """The central ``confidence`` percentile interval of the finite replicates."""
    finite = np.sort(replicates[np.isfinite(replicates)])
    tail = (1 - confidence) / 2 * 100
    low, high = sorted_percentile(finite, tail), sorted_percentile(finite, 100 - tail)
    low, high = _finite(low), _finite(high)
    return None if low is None or high is None else (low, high)


def _few_rows_note(before: int, after: int, what: str) -> str | None:
    sides = [
        f"{count} {what} in the {side}"
        for count, side in ((before, "base run"), (after, "run"))
        if count < MIN_ROWS_FOR_INTERVAL
    ]
    if not sides:
        return None
    return f"fewer than {MIN_ROWS_FOR_INTERVAL} {what} ({' and '.join(sides)}): no interval"


def _scenario_entry(
    scenario_id: str, mode: str, metric: Metric, pair: _Samples, confidence: float
) -> ComparisonEntry:
    base_median = _finite(sorted_median(pair.before))
    run_median = _finite(sorted_median(pair.after))
    interval = None
    note = _few_rows_note(len(pair.before), len(pair.after), "stable rows")
    if pair.change is None and pair.before.size and pair.after.size:
        if base_median is None:
            note = "the base median is not a finite number: change undefined"
        elif base_median <= 0:
            note = "the base median is not > 0: change undefined"
        else:
            note = "the median is not a finite number: change undefined"
    elif pair.replicates is not None:
        interval = _percentile_interval(pair.replicates, confidence)
    return ComparisonEntry.build(
        scenario_id=scenario_id,
        mode=mode,
        metric=metric,
        base_median=base_median,
        median=run_median,
        change_pct=pair.change,
        interval=interval,
        base_n=len(pair.before),
        n=len(pair.after),
        note=note,
    )


def _overall_entry(
    mode: str, metric: Metric, per_scenario: Mapping[str, _Samples], confidence: float
) -> ComparisonEntry:
    """The median across scenarios of the change, over the scenarios with an interval (at least
    2 stable rows on both sides, base median > 0), with a stratified bootstrap interval; when
    no scenario has one, over every scenario with a change, without an interval."""
    changed = {sid: pair for sid, pair in per_scenario.items() if pair.change is not None}
    replicates = [pair.replicates for pair in changed.values() if pair.replicates is not None]
    used = {sid: pair for sid, pair in changed.items() if pair.replicates is not None}
    interval = None
    if used:
        # Stratified: each replicate is the median across scenarios of their own replicates.
        interval = _percentile_interval(
            row_medians_ignoring_nan(np.column_stack(replicates)), confidence
        )
        left_out = len(changed) - len(used)
        note = f"median over {len(used)} scenario{'s' * (len(used) != 1)}" + (
            f"; {left_out} with fewer than {MIN_ROWS_FOR_INTERVAL} stable rows on a side left out"
            if left_out
            else ""
        )
    elif changed:
        used = changed
        note = (
            f"median over {len(used)} scenario{'s' * (len(used) != 1)}, none with "
            f"{MIN_ROWS_FOR_INTERVAL} stable rows on both sides: no interval"
        )
    else:
        note = "no scenario with a change (no stable rows, or a base median of 0)"
    changes = [pair.change for pair in used.values() if pair.change is not None]
    return ComparisonEntry.build(
        scenario_id=OVERALL,
        mode=mode,
        metric=metric,
        base_median=None,
        median=None,
        change_pct=_finite(median(changes)),
        interval=interval,
        base_n=sum(len(pair.before) for pair in used.values()),
        n=sum(len(pair.after) for pair in used.values()),
        note=note,
    )


def _success_entry(
    scenario_id: str,
    mode: str,
    before: BoolArray,
    after: BoolArray,
    settings: _Settings,
) -> ComparisonEntry:
    """Success rates over all rows (``before``/``after``: each row's ``success``)."""
    base_rate, run_rate = rate_percent(before), rate_percent(after)
    change = None if base_rate is None or run_rate is None else _finite(run_rate - base_rate)
    note = _few_rows_note(len(before), len(after), "rows")
    interval = None
    if note is None:
        interval = newcombe_interval(
            int(before.sum()), len(before), int(after.sum()), len(after), settings.confidence
        )
    return ComparisonEntry.build(
        scenario_id=scenario_id,
        mode=mode,
        metric=SUCCESS_RATE,
        base_median=base_rate,
        median=run_rate,
        change_pct=change,
        interval=interval,
        base_n=len(before),
        n=len(after),
        note=note,
    )
