"""The comparison of one run against a base run: the model that is both the API and the JSON.

``Comparison.model_dump(mode="json")`` is the JSON form (``schema_version`` 1). Every float in it
is finite or ``null``: the fields are :data:`pydantic.FiniteFloat`, so a NaN or an infinity is
rejected when an entry is built, never written.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, FiniteFloat, model_validator

__all__ = [
    "ALL_METRICS",
    "EFFICIENCY_METRICS",
    "OVERALL",
    "SUCCESS_RATE",
    "Comparison",
    "ComparisonEntry",
    "Metric",
    "is_worse",
]

Metric = Literal["tokens_active", "latency_ms", "tool_calls", "cost", "success_rate"]

# Compared as medians over the stable rows; for all four more is worse.
EFFICIENCY_METRICS: tuple[Metric, ...] = ("tokens_active", "latency_ms", "tool_calls", "cost")
# Compared as a rate over all rows, in percent; its change is in percentage points and less
# is worse.
SUCCESS_RATE: Metric = "success_rate"
ALL_METRICS: tuple[Metric, ...] = (*EFFICIENCY_METRICS, SUCCESS_RATE)

# The scenario id of a mode's suite-level entries (the median across scenarios).
OVERALL = "*"


def is_worse(metric: str, change: float) -> bool:
    """Whether a change of ``metric`` in this direction is worse (more cost, less success)."""
    return change < 0 if metric == SUCCESS_RATE else change > 0


class ComparisonEntry(BaseModel):
    """One metric of one scenario x mode (or of a mode's suite, ``scenario_id`` ``"*"``).

    For the efficiency metrics ``base_median`` and ``median`` are medians over the stable rows,
    ``change_pct`` is ``100 x (median - base_median) / base_median`` and ``base_n``/``n`` count
    stable rows. For ``success_rate`` they are success rates in percent over all rows,
    ``change_pct`` is their difference in percentage points and ``base_n``/``n`` count all rows.
    For a suite entry (``"*"``) ``change_pct`` is the median across scenarios of the change
    (the pooled rate difference for ``success_rate``) and the medians are ``null``.

    ``beyond_noise``: the interval ``[ci_low_pct, ci_high_pct]`` excludes 0. ``regression``:
    beyond the noise on the worse side (the change and the whole interval above 0, or below 0
    for ``success_rate``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenario_id: str
    mode: str
    metric: Metric
    base_median: FiniteFloat | None = None
    median: FiniteFloat | None = None
    change_pct: FiniteFloat | None = None
    ci_low_pct: FiniteFloat | None = None
    ci_high_pct: FiniteFloat | None = None
    beyond_noise: bool = False
    regression: bool = False
    base_n: int = 0
    n: int = 0
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ComparisonEntry:
        low, high = self.ci_low_pct, self.ci_high_pct
        if (low is None) != (high is None):
            raise ValueError("ci_low_pct and ci_high_pct are both null or both numbers")
        if low is not None and high is not None and low > high:
            raise ValueError(f"ci_low_pct {low} is above ci_high_pct {high}")
        if low is not None and self.change_pct is None:
            raise ValueError("an interval without a change_pct")
        if self.beyond_noise != self.interval_excludes_zero:
            raise ValueError("beyond_noise must say whether the interval excludes 0")
        if self.regression != self.worse_beyond_noise:
            raise ValueError("regression must be beyond_noise on the worse side")
        return self

    @classmethod
    def build(
        cls,
        *,
        scenario_id: str,
        mode: str,
        metric: Metric,
        base_median: float | None,
        median: float | None,
        change_pct: float | None,
        interval: tuple[float, float] | None,
        base_n: int,
        n: int,
        note: str | None = None,
    ) -> ComparisonEntry:
        """An entry with ``beyond_noise`` and ``regression`` derived from the change and the
        interval (``None`` when there is none)."""
        low, high = interval if interval is not None else (None, None)
        excludes_zero = low is not None and high is not None and (low > 0 or high < 0)
        return cls(
            scenario_id=scenario_id,
            mode=mode,
            metric=metric,
            base_median=base_median,
            median=median,
            change_pct=change_pct,
            ci_low_pct=low,
            ci_high_pct=high,
            beyond_noise=excludes_zero,
            regression=_worse_beyond_noise(metric, change_pct, low, high),
            base_n=base_n,
            n=n,
            note=note,
        )

    @property
    def is_overall(self) -> bool:
        return self.scenario_id == OVERALL

    @property
    def interval_excludes_zero(self) -> bool:
        low, high = self.ci_low_pct, self.ci_high_pct
        return low is not None and high is not None and (low > 0 or high < 0)

    @property
    def worse_beyond_noise(self) -> bool:
        return _worse_beyond_noise(self.metric, self.change_pct, self.ci_low_pct, self.ci_high_pct)

    @property
    def improvement(self) -> bool:
        """Beyond the noise on the better side (the counterpart of ``regression``)."""
        return _beyond_noise_on_side(
            self.metric, self.change_pct, self.ci_low_pct, self.ci_high_pct, worse=False
        )


def _worse_beyond_noise(
    metric: str, change: float | None, low: float | None, high: float | None
) -> bool:
    return _beyond_noise_on_side(metric, change, low, high, worse=True)


def _beyond_noise_on_side(
    metric: str, change: float | None, low: float | None, high: float | None, *, worse: bool
) -> bool:
    """Whether the change and its whole interval lie on the worse (or the better) side of 0."""
    if change is None or low is None or high is None:
        return False
    sign = 1.0 if worse else -1.0
    return all(is_worse(metric, sign * value) for value in (change, low, high))


class Comparison(BaseModel):
    """A run (``run``) compared with a base run (``base_run``): the API and the JSON form.

    ``entries``: per scenario x mode present in both runs (sorted by scenario id, then mode),
    one entry per metric of :data:`ALL_METRICS`; then per mode the suite entries (``"*"``).
    ``only_in_base``/``only_in_run``: ``[scenario_id, mode]`` pairs found in one run only, not
    compared. ``failed``: one line per entry that breaks a fail rule (empty without rules).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    base_run: str
    run: str
    entries: list[ComparisonEntry] = []
    only_in_base: list[tuple[str, str]] = []
    only_in_run: list[tuple[str, str]] = []
    failed: list[str] = []

    @property
    def regressions(self) -> list[ComparisonEntry]:
        return [entry for entry in self.entries if entry.regression]

    @property
    def improvements(self) -> list[ComparisonEntry]:
        return [entry for entry in self.entries if entry.improvement]
