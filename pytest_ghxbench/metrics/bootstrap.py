"""Bootstrap confidence intervals for the median per-scenario reduction (SPEC section 7).

Resampling rows within a scenario and taking the median only ever looks at one or two order
statistics of the resample, so instead of drawing ``n`` rows per replicate we draw those order
statistics directly from their exact joint law. For a sorted sample ``x_1 <= ... <= x_n`` and a
resample of ``n`` indices drawn uniformly with replacement:

* the k-th smallest resampled index ``L`` satisfies ``P(L <= j) = P(Binomial(n, j/n) >= k)``:
  ``L <= j`` exactly when at least ``k`` of the ``n`` draws land in ``1..j``;
* for odd ``n`` the resample median is ``x_L`` with ``k = (n + 1) / 2``;
* for even ``n = 2m`` it is ``(x_L + x_U) / 2`` with ``L`` the m-th and ``U`` the (m+1)-th index.
  ``P(L <= a, U > b) = C(n, m) (a/n)^m ((n-b)/n)^m`` (exactly ``m`` draws in ``1..a``, none in
  ``a+1..b``, ``m`` above ``b``), so ``P(U > L | L = j) = [B(j, j) - B(j-1, j)] / P(L = j)``; and
  given ``U > L = j`` the ``m`` upper draws are i.i.d. uniform on ``j+1..n``, so
  ``P(U > k | ...) = ((n-k)/(n-j))^m``.

Because the index law depends on ``n`` only, it is computed once per ``n`` and cached; each
replicate then costs a few vectorised numpy operations whatever ``n`` is. The module docs
(docs/metrics.md) and the tests show this matches brute-force resampling.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from pytest_ghxbench.metrics.stats import FloatArray, sorted_percentile

__all__ = [
    "bootstrap_median_reduction_ci",
    "bootstrap_reduction_replicates",
    "median_index_law",
    "row_medians_ignoring_nan",
    "sample_bootstrap_medians",
]

IntArray = npt.NDArray[np.int64]

# Hoeffding: P(|Binomial(n, p) - np| >= t) <= 2 exp(-2 t^2 / n); with t = 20 sqrt(n) that is
# 2e-348, below the smallest double, so terms further than this from the mean are exactly 0.
_NEGLIGIBLE_SPREAD = 20.0
_MAX_MATRIX_CELLS = 4_000_000


@lru_cache(maxsize=256)
def median_index_law(n: int) -> tuple[FloatArray, FloatArray]:
    """The law of the resample-median's order-statistic indices for sample size ``n``.

    Returns ``(cdf_lower, p_upper_equal)``, both of length ``n`` and 0-based:
    ``cdf_lower[j] = P(L <= j)`` where ``L`` is the (0-based) index of the lower median order
    statistic (the only one for odd ``n``), and ``p_upper_equal[j] = P(U = L | L = j)`` for even
    ``n`` (all ones for odd ``n``, where the median is a single order statistic).
    """
    if n < 1:
        raise ValueError(f"sample size must be >= 1, got {n}")
    order = (n + 1) // 2  # 1-based rank of the lower median
    cdf = _binomial_tail_cdf(n, order)
    p_upper_equal: FloatArray = np.ones(n)
    if n % 2 == 0 and n > 1:
        p_upper_equal = _upper_equal_probability(n, cdf)
    cdf.setflags(write=False)
    p_upper_equal.setflags(write=False)
    return cdf, p_upper_equal


def _binomial_tail_cdf(n: int, order: int) -> FloatArray:
    """``cdf[j-1] = P(Binomial(n, j/n) >= order)`` for ``j = 1..n`` (log-space, windowed)."""
    spread = math.ceil(_NEGLIGIBLE_SPREAD * math.sqrt(n)) + 1
    cdf: FloatArray = np.zeros(n)
    # For j below order - spread the tail is exactly 0 in double precision, above it is 1.
    j_low = max(1, order - spread)
    j_high = min(n - 1, order + spread)
    cdf[j_high:] = 1.0  # j = j_high + 1 .. n  (index j - 1)
    if j_low <= j_high:
        successes = np.arange(order, min(n, j_high + spread) + 1, dtype=float)
        log_choose = math.lgamma(n + 1) - np.array(
            [math.lgamma(i + 1) + math.lgamma(n - i + 1) for i in successes]
        )
        chunk = max(1, _MAX_MATRIX_CELLS // max(1, len(successes)))
        for start in range(j_low, j_high + 1, chunk):
            js = np.arange(start, min(j_high, start + chunk - 1) + 1, dtype=float)
            p = js / n
            log_pmf = (
                log_choose[None, :]
                + successes[None, :] * np.log(p)[:, None]
                + (n - successes)[None, :] * np.log1p(-p)[:, None]
            )
            cdf[js.astype(np.int64) - 1] = np.exp(log_pmf).sum(axis=1)
    cdf = np.asarray(np.minimum(np.maximum.accumulate(np.clip(cdf, 0.0, 1.0)), 1.0), dtype=float)
    cdf[-1] = 1.0
    return cdf


def _upper_equal_probability(n: int, cdf: FloatArray) -> FloatArray:
    """``P(U = L | L = j)`` for even ``n`` from ``B(a, b) = C(n,m)(a/n)^m((n-b)/n)^m``."""
    m = n // 2
    j = np.arange(1, n + 1, dtype=float)
    log_choose = math.lgamma(n + 1) - 2 * math.lgamma(m + 1)
    with np.errstate(divide="ignore"):
        log_upper_part = m * np.log((n - j) / n)
        b_same = np.exp(log_choose + m * np.log(j / n) + log_upper_part)
        b_below = np.exp(log_choose + m * np.log((j - 1) / n) + log_upper_part)
    p_lower = np.diff(cdf, prepend=0.0)
    p_upper_above = b_same - b_below
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(p_lower > 0, p_upper_above / p_lower, 0.0)
    return np.asarray(1.0 - np.clip(ratio, 0.0, 1.0), dtype=float)


def _sample_median_indices(
    n: int, resamples: int, rng: np.random.Generator
) -> tuple[IntArray, IntArray]:
    """0-based indices ``(L, U)`` of the two order statistics averaged into each resample median.

    For odd ``n`` ``U == L``. Draws are consumed from ``rng`` in a fixed order.
    """
    cdf, p_upper_equal = median_index_law(n)
    lower = np.searchsorted(cdf, rng.random(resamples), side="right").astype(np.int64)
    np.minimum(lower, n - 1, out=lower)
    if n % 2:
        return lower, lower
    m = n // 2
    stay = rng.random(resamples) < p_upper_equal[lower]
    # Minimum of m uniform draws on the (n - 1 - L) indices above L, by inverse CDF:
    # P(U - L > t) = ((n - 1 - L - t) / (n - 1 - L))^m in 0-based terms.
    room = (n - 1 - lower).astype(float)
    shrink = 1.0 - (1.0 - rng.random(resamples)) ** (1.0 / m)
    step = np.ceil(room * shrink).astype(np.int64)
    upper = lower + np.clip(step, 1, None)
    np.minimum(upper, n - 1, out=upper)
    return lower, np.where(stay, lower, upper)


def sample_bootstrap_medians(
    ordered: FloatArray, resamples: int, rng: np.random.Generator
) -> FloatArray:
    """Medians of ``resamples`` bootstrap resamples (rows drawn with replacement) of ``ordered``.

    ``ordered`` must be sorted ascending and non-empty. Equivalent in distribution to resampling
    rows and taking the median, at a cost independent of the sample size.
    """
    n = len(ordered)
    if n == 0:
        raise ValueError("cannot bootstrap the median of an empty sample")
    lower, upper = _sample_median_indices(n, resamples, rng)
    return np.asarray((ordered[lower] + ordered[upper]) / 2, dtype=float)


def bootstrap_median_reduction_ci(
    per_scenario: Mapping[str, tuple[Sequence[float] | FloatArray, Sequence[float] | FloatArray]],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float] | None:
    """Bootstrap CI of the median across scenarios of ``100 * (mb - mc) / mb``.

    ``per_scenario`` maps a scenario id to ``(baseline values, candidate values)`` (the stable
    rows of eligible scenarios). Each replicate resamples every scenario's baseline and candidate
    rows with replacement, takes their medians ``mb`` and ``mc``, drops scenarios whose ``mb`` is
    not > 0 from that replicate, and takes the median of the remaining reductions. The interval
    is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of the replicates.
    Scenarios are processed in sorted order with a generator seeded by ``seed``, so the same
    input always gives the same interval. ``None`` when no replicate has a comparable scenario.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    _, matrix = bootstrap_reduction_replicates(per_scenario, resamples=resamples, seed=seed)
    if matrix.shape[1] == 0:
        return None
    replicates = row_medians_ignoring_nan(matrix)
    replicates = np.sort(replicates[np.isfinite(replicates)])
    if replicates.size == 0:
        return None
    tail = (1 - confidence) / 2 * 100
    low = sorted_percentile(replicates, tail)
    high = sorted_percentile(replicates, 100 - tail)
    if low is None or high is None:
        return None
    return low, high


def bootstrap_reduction_replicates(
    per_scenario: Mapping[str, tuple[Sequence[float] | FloatArray, Sequence[float] | FloatArray]],
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> tuple[list[str], FloatArray]:
    """The per-scenario replicates behind :func:`bootstrap_median_reduction_ci`.

    Returns the scenario ids that can have a comparable replicate (sorted; a scenario without
    rows on a side, or whose baseline values are all <= 0, is left out) and a
    ``resamples x len(ids)`` matrix of ``100 * (mb - mc) / mb``, NaN where the replicate's ``mb``
    is not > 0. The draws are the same as :func:`bootstrap_median_reduction_ci` makes with the
    same arguments, so an interval read off this matrix agrees with it.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    rng = np.random.default_rng(seed)
    ids: list[str] = []
    columns: list[FloatArray] = []
    for scenario_id in sorted(per_scenario):
        baseline_values, candidate_values = per_scenario[scenario_id]
        baseline = np.sort(np.asarray(baseline_values, dtype=float))
        candidate = np.sort(np.asarray(candidate_values, dtype=float))
        if len(baseline) == 0 or len(candidate) == 0 or baseline[-1] <= 0:
            continue  # no replicate can have a baseline median > 0 for this scenario
        baseline_medians = sample_bootstrap_medians(baseline, resamples, rng)
        candidate_medians = sample_bootstrap_medians(candidate, resamples, rng)
        with np.errstate(divide="ignore", invalid="ignore"):
            reduction = np.where(
                baseline_medians > 0,
                100 * (baseline_medians - candidate_medians) / baseline_medians,
                np.nan,
            )
        ids.append(scenario_id)
        columns.append(reduction)
    if not columns:
        return ids, np.empty((resamples, 0))
    return ids, np.column_stack(columns)


def row_medians_ignoring_nan(matrix: FloatArray) -> FloatArray:
    """Row-wise median skipping NaN; NaN where a row is all NaN (fast path without NaN)."""
    if not np.isnan(matrix).any():
        return np.asarray(np.median(matrix, axis=1), dtype=float)
    result = np.full(matrix.shape[0], np.nan)
    has_value = ~np.isnan(matrix).all(axis=1)
    if has_value.any():
        result[has_value] = np.nanmedian(matrix[has_value], axis=1)
    return result
