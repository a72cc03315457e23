"""The bootstrap CI and the exact order-statistic sampler behind it.

The sampler draws the resample median's order statistics from their exact law instead of
resampling rows. These tests prove the two are the same: the law against a full enumeration of
every possible resample (small n), against exact integer arithmetic (larger n), and the sampler's
draws against brute-force row resampling.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pytest_ghxbench.metrics.bootstrap import (
    bootstrap_median_reduction_ci,
    median_index_law,
    sample_bootstrap_medians,
)
from pytest_ghxbench.metrics.stats import median


def _enumerated_medians(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every one of the n**n equally likely index resamples: (lower, upper) median indices."""
    resamples = np.sort(np.array(list(itertools.product(range(n), repeat=n))), axis=1)
    lower = resamples[:, (n - 1) // 2]
    upper = resamples[:, n // 2]
    return lower, upper


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_index_law_equals_full_enumeration(n: int) -> None:
    lower, upper = _enumerated_medians(n)
    cdf, p_upper_equal = median_index_law(n)
    for j in range(n):
        assert cdf[j] == pytest.approx(np.mean(lower <= j), abs=1e-12)
        at_j = lower == j
        if at_j.any():
            assert p_upper_equal[j] == pytest.approx(np.mean(upper[at_j] == j), abs=1e-12)


@pytest.mark.parametrize("n", [40, 41, 1701])
def test_lower_median_cdf_equals_exact_binomial_tail(n: int) -> None:
    """P(L <= j) = P(Binomial(n, j/n) >= k), checked with exact integers.

    For n = 1701 the law is only computed within 20 sqrt(n) of the median (826 indices); the
    checked indices include both sides of that window's edges.
    """
    cdf, _ = median_index_law(n)
    order = (n + 1) // 2
    spread = math.ceil(20 * math.sqrt(n)) + 1
    edges = {order - spread - 1, order - spread, order + spread, order + spread + 1}
    picks = {1, order - 1, order, order + 2, n - 1}
    for j in sorted(j for j in picks | edges if 1 <= j <= n - 1):
        exact = Fraction(
            sum(math.comb(n, i) * j**i * (n - j) ** (n - i) for i in range(order, n + 1)),
            n**n,
        )
        assert cdf[j - 1] == pytest.approx(float(exact), rel=1e-9, abs=1e-15)
    assert cdf[-1] == 1.0
    assert np.all(np.diff(cdf) >= 0)


@pytest.mark.parametrize("n", [6, 7, 333])
def test_index_law_is_a_probability_law(n: int) -> None:
    cdf, p_upper_equal = median_index_law(n)
    assert cdf[-1] == 1.0 and np.all(np.diff(cdf) >= 0) and cdf[0] >= 0
    assert np.all((p_upper_equal >= 0) & (p_upper_equal <= 1))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_sampled_medians_match_the_enumerated_distribution(n: int) -> None:
    # Values 1, 2, 4, 8, ...: every (lower, upper) pair gives a distinct median, so matching
    # the median distribution means matching the joint law of both order statistics.
    values = np.array([2.0**i for i in range(n)])
    lower, upper = _enumerated_medians(n)
    exact_medians = (values[lower] + values[upper]) / 2
    support, exact_counts = np.unique(exact_medians, return_counts=True)
    exact_p = exact_counts / exact_counts.sum()

    draws = 200_000
    sampled = sample_bootstrap_medians(values, draws, np.random.default_rng(7))
    assert set(np.unique(sampled)) <= set(support)
    sampled_p = np.array([np.mean(sampled == value) for value in support])
    # 6 standard errors per cell: a real discrepancy of this size never hides in the noise.
    tolerance = 6 * np.sqrt(exact_p * (1 - exact_p) / draws) + 1e-9
    assert np.all(np.abs(sampled_p - exact_p) <= tolerance)


@pytest.mark.parametrize(
    "values",
    [
        [3.0, 1.0, 4.0, 1.0, 5.0],  # odd, with ties
        [2.0, 7.0, 1.0, 8.0, 2.0, 8.0],  # even, with ties
        [5.0, 5.0, 5.0, 5.0],  # all tied
        [10.0, 20.0],  # smallest even sample
        [9.0, 2.0, 6.0, 5.0, 3.0, 5.0, 8.0, 1.0, 7.0, 4.0, 6.0, 2.0],  # n = 12
        [float(v % 7) for v in range(25)],  # odd, many ties
    ],
)
def test_sampler_matches_brute_force_row_resampling(values: list[float]) -> None:
    draws = 50_000
    n = len(values)
    brute_rows = np.random.default_rng(11).choice(np.array(values), size=(draws, n), replace=True)
    brute = np.median(brute_rows, axis=1)
    exact = sample_bootstrap_medians(np.sort(np.array(values)), draws, np.random.default_rng(12))
    support = np.union1d(brute, exact)
    brute_cdf = np.searchsorted(np.sort(brute), support, side="right") / draws
    exact_cdf = np.searchsorted(np.sort(exact), support, side="right") / draws
    # Two-sample KS distance; 0.015 is the 1e-4 critical value for 50k vs 50k draws.
    assert np.max(np.abs(brute_cdf - exact_cdf)) < 0.015
    assert np.mean(exact) == pytest.approx(np.mean(brute), abs=0.02 * (max(values) - min(values)))


def test_sampler_is_deterministic_for_a_seeded_generator() -> None:
    values = np.sort(np.array([4.0, 8.0, 15.0, 16.0, 23.0, 42.0]))
    first = sample_bootstrap_medians(values, 1000, np.random.default_rng(3))
    second = sample_bootstrap_medians(values, 1000, np.random.default_rng(3))
    assert np.array_equal(first, second)


def test_sampler_rejects_an_empty_sample() -> None:
    with pytest.raises(ValueError, match="empty"):
        sample_bootstrap_medians(np.array([]), 10, np.random.default_rng(0))


def _typical_scenarios(seed: int) -> dict[str, tuple[list[float], list[float]]]:
    rng = np.random.default_rng(seed)
    return {
        f"s-{index:03d}": (
            list(rng.normal(1000, 80, size=8)),
            list(rng.normal(800, 80, size=8)),
        )
        for index in range(12)
    }


def test_same_seed_gives_the_same_interval() -> None:
    data = _typical_scenarios(1)
    first = bootstrap_median_reduction_ci(data, resamples=2000, seed=5)
    again = bootstrap_median_reduction_ci(
        dict(reversed(list(data.items()))), resamples=2000, seed=5
    )
    other_seed = bootstrap_median_reduction_ci(data, resamples=2000, seed=6)
    assert first is not None and first == again
    assert other_seed != first


def test_interval_contains_the_point_estimate_on_typical_data() -> None:
    data = _typical_scenarios(2)
    reductions = []
    for baseline, candidate in data.values():
        mb, mc = median(baseline), median(candidate)
        assert mb is not None and mc is not None
        reductions.append(100 * (mb - mc) / mb)
    point = median(reductions)
    interval = bootstrap_median_reduction_ci(data, resamples=4000, seed=0)
    assert interval is not None and point is not None
    low, high = interval
    assert low < point < high
    assert low > 5 and high < 35  # roughly 20 % +- noise


def test_constant_rows_give_a_degenerate_interval() -> None:
    # Every resample of a constant sample has the same median: 1000 -> 750 is exactly 25 %.
    data = {"s-001": ([1000.0] * 4, [750.0] * 5), "s-002": ([200.0] * 3, [150.0] * 3)}
    assert bootstrap_median_reduction_ci(data, resamples=500, seed=0) == (25.0, 25.0)


def test_scenarios_without_a_positive_baseline_are_dropped() -> None:
    data = {"zero": ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]), "kept": ([10.0] * 3, [9.0] * 3)}
    low, high = bootstrap_median_reduction_ci(data, resamples=200) or (None, None)
    assert low == pytest.approx(10.0) and high == pytest.approx(10.0)
    assert bootstrap_median_reduction_ci({"zero": ([0.0], [1.0])}, resamples=200) is None
    assert bootstrap_median_reduction_ci({}, resamples=200) is None


def test_invalid_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_median_reduction_ci({"s": ([1.0], [1.0])}, resamples=0)
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_median_reduction_ci({"s": ([1.0], [1.0])}, confidence=1.5)
