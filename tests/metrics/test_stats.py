"""Descriptive statistics: hand-computed values and properties over generated data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ghxbench.metrics.stats import cv_percent, iqr, median, percentile, rate_percent

ONE_TO_TEN = [float(v) for v in range(1, 11)]
# Metric values live far from float overflow; bounding them keeps (a + b) / 2 exact enough.
finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False)
samples = st.lists(finite, min_size=1, max_size=40)
quantiles = st.floats(min_value=0, max_value=100, allow_nan=False)


def test_median_of_odd_count_is_the_middle_value() -> None:
    assert median([7.0, 1.0, 3.0]) == 3.0


def test_median_of_even_count_is_the_mean_of_the_two_middle_values() -> None:
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5


def test_median_of_one_value_and_of_none() -> None:
    assert median([5.0]) == 5.0
    assert median([]) is None


def test_percentile_interpolates_linearly_between_order_statistics() -> None:
    assert percentile(ONE_TO_TEN, 90) == 9.1  # position 0.9 * 9 = 8.1 -> 9 + 0.1 * (10 - 9)
    assert percentile(ONE_TO_TEN, 95) == pytest.approx(9.55)
    assert percentile(ONE_TO_TEN, 50) == 5.5
    assert percentile([10.0, 20.0, 30.0, 40.0], 25) == 17.5  # position 0.75
    assert percentile(ONE_TO_TEN, 0) == 1.0
    assert percentile(ONE_TO_TEN, 100) == 10.0


def test_percentile_of_nothing_is_none_and_bad_q_is_rejected() -> None:
    assert percentile([], 90) is None
    with pytest.raises(ValueError, match="within \\[0, 100\\]"):
        percentile([1.0], 101)
    with pytest.raises(ValueError, match="within \\[0, 100\\]"):
        percentile([1.0], -0.5)


def test_iqr_is_p75_minus_p25() -> None:
    # p75 at position 6.75 -> 7.75, p25 at position 2.25 -> 3.25
    assert iqr(ONE_TO_TEN) == 4.5
    assert iqr([42.0]) == 0.0
    assert iqr([]) is None


def test_cv_is_population_stdev_over_mean_in_percent() -> None:
    # mean 5, population variance (9+1+1+1+0+0+4+16)/8 = 4 -> stdev 2 -> 40 %
    assert cv_percent([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) == 40.0
    assert cv_percent([3.0, 3.0]) == 0.0


def test_cv_is_undefined_for_zero_mean_or_no_values() -> None:
    assert cv_percent([0.0, 0.0]) is None
    assert cv_percent([-1.0, 1.0]) is None
    assert cv_percent([]) is None


def test_rate_is_percentage_of_true_flags() -> None:
    assert rate_percent([True, False, True, True]) == 75.0
    assert rate_percent([False, False]) == 0.0
    assert rate_percent([True] * 3) == 100.0
    assert rate_percent([]) is None


def test_inputs_are_not_modified() -> None:
    values = [3.0, 1.0, 2.0]
    median(values)
    percentile(values, 50)
    assert values == [3.0, 1.0, 2.0]


@given(samples)
def test_median_lies_within_the_range(values: list[float]) -> None:
    result = median(values)
    assert result is not None
    assert min(values) <= result <= max(values)


@given(samples, quantiles, quantiles)
def test_percentile_is_monotone_in_q(values: list[float], q1: float, q2: float) -> None:
    low, high = sorted((q1, q2))
    p_low, p_high = percentile(values, low), percentile(values, high)
    assert p_low is not None and p_high is not None
    assert p_low <= p_high


@given(samples, quantiles)
def test_percentile_agrees_with_numpy_linear_method(values: list[float], q: float) -> None:
    expected = float(np.percentile(values, q, method="linear"))
    assert percentile(values, q) == pytest.approx(expected, rel=1e-9, abs=1e-6)


@given(samples)
def test_iqr_is_never_negative(values: list[float]) -> None:
    result = iqr(values)
    assert result is not None and result >= 0


@given(st.lists(st.floats(min_value=1e-3, max_value=1e9), min_size=1, max_size=40))
def test_cv_of_positive_values_is_finite_and_non_negative(values: list[float]) -> None:
    result = cv_percent(values)
    assert result is not None and math.isfinite(result) and result >= 0


@settings(max_examples=50)
@given(st.lists(st.booleans(), min_size=1, max_size=60))
def test_rate_is_a_percentage(flags: list[bool]) -> None:
    result = rate_percent(flags)
    assert result is not None and 0 <= result <= 100
    assert result == pytest.approx(100 * sum(flags) / len(flags))
