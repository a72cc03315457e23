"""Descriptive statistics used by the summary and the gate (SPEC section 7).

Every function takes a sequence (or numpy array) of numbers and returns a plain ``float``, or
``None`` when the input is empty, so results can go straight into ``summary.json``.
Percentiles use linear interpolation between order statistics (numpy's ``"linear"`` method).
Success rates have score intervals: Wilson's of one rate, Newcombe's of a difference of two
(the stat gate's reliability check and the run-over-run comparison).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

__all__ = [
    "cv_percent",
    "iqr",
    "median",
    "newcombe_interval",
    "percentile",
    "rate_percent",
    "sorted_array",
    "sorted_median",
    "sorted_percentile",
    "wilson_interval",
]

FloatArray = npt.NDArray[np.float64]


def sorted_array(values: Iterable[float] | FloatArray) -> FloatArray:
    """The values as a sorted float64 array (a copy; the input is never modified)."""
    return np.sort(np.asarray(values if isinstance(values, np.ndarray) else list(values), float))


def sorted_median(ordered: FloatArray) -> float | None:
    """Median of an already sorted array: the middle value, or the mean of the two middle ones."""
    n = len(ordered)
    if n == 0:
        return None
    middle = n // 2
    if n % 2:
        return float(ordered[middle])
    return float((ordered[middle - 1] + ordered[middle]) / 2)


def sorted_percentile(ordered: FloatArray, q: float) -> float | None:
    """The ``q``-th percentile (0..100) of an already sorted array, linearly interpolated.

    The position is ``q/100 * (n-1)``; the result lies between the two neighbouring order
    statistics. It is clamped to them so rounding can never make it non-monotone in ``q``.
    """
    if not 0 <= q <= 100 or math.isnan(q):
        raise ValueError(f"percentile q must be within [0, 100], got {q!r}")
    n = len(ordered)
    if n == 0:
        return None
    position = q / 100 * (n - 1)
    lower_index = min(math.floor(position), n - 1)
    upper_index = min(lower_index + 1, n - 1)
    lower = float(ordered[lower_index])
    upper = float(ordered[upper_index])
    fraction = position - lower_index
    value = lower + (upper - lower) * fraction
    return min(max(value, lower), upper)


def median(values: Sequence[float] | FloatArray) -> float | None:
    """Median (mean of the two middle values for an even count); ``None`` for no values."""
    return sorted_median(sorted_array(values))


def percentile(values: Sequence[float] | FloatArray, q: float) -> float | None:
    """The ``q``-th percentile (0..100), linear interpolation; e.g. p90 of 1..10 is 9.1."""
    return sorted_percentile(sorted_array(values), q)


def iqr(values: Sequence[float] | FloatArray) -> float | None:
    """Interquartile range: p75 - p25 (linear interpolation); ``None`` for no values."""
    ordered = sorted_array(values)
    p75 = sorted_percentile(ordered, 75)
    p25 = sorted_percentile(ordered, 25)
    if p75 is None or p25 is None:
        return None
    return max(p75 - p25, 0.0)


def cv_percent(values: Sequence[float] | FloatArray) -> float | None:
    """Coefficient of variation in percent: population stdev / mean * 100.

    ``None`` for no values or a mean of zero (the ratio is undefined there).
    """
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return None
    mean = float(array.mean())
    if mean == 0:
        return None
    return float(array.std() / mean * 100)


def rate_percent(flags: Sequence[bool] | npt.NDArray[np.bool_]) -> float | None:
    """Share of true flags in percent (0..100); ``None`` for no flags."""
    total = len(flags)
    if total == 0:
        return None
    hits = int(np.count_nonzero(np.asarray(flags, dtype=bool)))
    return 100 * hits / total


def wilson_interval(successes: int, runs: int, z: float) -> tuple[float, float]:
    """Wilson's score interval of a proportion (as shares, not percent) at normal quantile
    ``z``; ``runs`` must be at least 1."""
    p = successes / runs
    denominator = 1 + z * z / runs
    centre = (p + z * z / (2 * runs)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / runs + z * z / (4 * runs * runs))
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(
    base_successes: int, base_runs: int, successes: int, runs: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval of the success-rate difference (after - before), in
    percentage points (Newcombe 1998, method 10: the two Wilson score intervals combined)."""
    if base_runs < 1 or runs < 1:
        raise ValueError("a success-rate interval needs at least one row on each side")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p1, p2 = base_successes / base_runs, successes / runs
    low1, high1 = wilson_interval(base_successes, base_runs, z)
    low2, high2 = wilson_interval(successes, runs, z)
    difference = p2 - p1
    low = difference - math.sqrt((p2 - low2) ** 2 + (high1 - p1) ** 2)
    high = difference + math.sqrt((high2 - p2) ** 2 + (p1 - low1) ** 2)
    return 100 * max(-1.0, low) + 0.0, 100 * min(1.0, high) + 0.0
