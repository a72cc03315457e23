"""Seeded simulations: the intervals contain the true change about as often as they claim."""

from __future__ import annotations

import numpy as np

from pytest_ghxbench.compare import OVERALL, compare_runs
from pytest_ghxbench.metrics.stats import newcombe_interval
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.row import RowRecord
from tests.compare.rows import records

TRUE_CHANGE = 10.0  # percent: the run's latency distribution is the base's scaled by 1.1


def simulated_run(
    rng: np.random.Generator, scale: float, scenarios: int, count: int
) -> list[RowRecord]:
    """Lognormal latencies (median ``1000 * scale``, or 2000 for odd scenarios): the true
    median of each scenario is known, so is the true change."""
    run: list[RowRecord] = []
    for index in range(scenarios):
        centre = (1000.0 if index % 2 == 0 else 2000.0) * scale
        run += records(f"s-{index}", centre * rng.lognormal(0.0, 0.3, count))
    return run


def covered(low: float | None, high: float | None, truth: float) -> bool:
    assert low is not None and high is not None
    return low <= truth <= high


def test_scenario_intervals_cover_the_true_change() -> None:
    trials, hits, flagged = 200, 0, 0
    for trial in range(trials):
        rng = np.random.default_rng(1000 + trial)
        base = RowTable.from_records(simulated_run(rng, 1.0, scenarios=1, count=25))
        current = RowTable.from_records(simulated_run(rng, 1.1, scenarios=1, count=25))
        comparison = compare_runs(base, current, base_run="a", run="b", resamples=2000, seed=trial)
        [latency] = [
            e for e in comparison.entries if e.scenario_id == "s-0" and e.metric == "latency_ms"
        ]
        hits += covered(latency.ci_low_pct, latency.ci_high_pct, TRUE_CHANGE)
        flagged += latency.regression
    assert hits >= 0.85 * trials
    assert flagged < trials  # a 10 % change in 30 % noise at n=25 is not always detected


def test_suite_intervals_cover_the_true_median_change() -> None:
    trials, hits = 100, 0
    for trial in range(trials):
        rng = np.random.default_rng(5000 + trial)
        base = RowTable.from_records(simulated_run(rng, 1.0, scenarios=5, count=8))
        current = RowTable.from_records(simulated_run(rng, 1.1, scenarios=5, count=8))
        comparison = compare_runs(base, current, base_run="a", run="b", resamples=2000, seed=trial)
        [suite] = [
            e for e in comparison.entries if e.scenario_id == OVERALL and e.metric == "latency_ms"
        ]
        hits += covered(suite.ci_low_pct, suite.ci_high_pct, TRUE_CHANGE)
    assert hits >= 0.85 * trials


def test_success_rate_intervals_cover_the_true_difference() -> None:
    rng = np.random.default_rng(7)
    trials, hits = 2000, 0
    for _ in range(trials):
        before, after = int(rng.binomial(30, 0.9)), int(rng.binomial(30, 0.7))
        low, high = newcombe_interval(before, 30, after, 30)
        hits += low <= -20.0 <= high
    assert hits >= 0.92 * trials


def test_the_interval_matches_brute_force_row_resampling() -> None:
    rng = np.random.default_rng(11)
    before = 1000 * rng.lognormal(0.0, 0.3, 9)
    after = 1200 * rng.lognormal(0.0, 0.3, 12)
    comparison = compare_runs(
        RowTable.from_records(records("s-0", before)),
        RowTable.from_records(records("s-0", after)),
        base_run="a",
        run="b",
        resamples=20_000,
    )
    [latency] = [
        e for e in comparison.entries if e.scenario_id == "s-0" and e.metric == "latency_ms"
    ]
    draws = np.random.default_rng(12)
    base_medians = np.median(draws.choice(before, (20_000, len(before))), axis=1)
    run_medians = np.median(draws.choice(after, (20_000, len(after))), axis=1)
    brute = 100 * (run_medians - base_medians) / base_medians
    # the resampled change is discrete: compare ranks, not values (an end may sit on an atom)
    for end, tail in ((latency.ci_low_pct, 0.025), (latency.ci_high_pct, 0.975)):
        assert np.mean(brute < end) <= tail + 0.01
        assert np.mean(brute <= end) >= tail - 0.01
