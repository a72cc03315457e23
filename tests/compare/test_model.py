"""The Comparison model: its exact JSON form, round trips, and no NaN ever."""

from __future__ import annotations

import json
import math

import pytest
from pydantic import ValidationError

from pytest_ghxbench.compare import Comparison, ComparisonEntry, compare_runs, parse_fail_rule
from pytest_ghxbench.metrics.table import RowTable
from tests.compare.rows import noisy, records, rows, table

ENTRY_KEYS = [
    "scenario_id",
    "mode",
    "metric",
    "base_median",
    "median",
    "change_pct",
    "ci_low_pct",
    "ci_high_pct",
    "beyond_noise",
    "regression",
    "base_n",
    "n",
    "note",
]


def mixed_comparison() -> Comparison:
    """Every kind of entry: intervals, single rows, no stable rows, a zero base median."""
    base = table(
        rows(6, tokens=noisy(6, 1000, 0.1, seed=1)),
        rows(1, scenario="s-002", tool_calls=0),
        rows(3, scenario="s-003", failures=3),
        rows(2, scenario="s-old", mode="mcp"),
    )
    current = table(
        rows(6, tokens=noisy(6, 1500, 0.1, seed=2)),
        rows(4, scenario="s-002", tool_calls=3),
        rows(3, scenario="s-003"),
        rows(2, scenario="s-new", mode="mcp"),
    )
    return compare_runs(
        base,
        current,
        base_run="2026-03-01T10-00-00",
        run="2026-03-02T10-00-00",
        resamples=500,
        rules=[parse_fail_rule("tokens:5")],
    )


def test_the_json_form_has_exactly_the_documented_keys() -> None:
    dumped = mixed_comparison().model_dump(mode="json")
    assert list(dumped) == [
        "schema_version",
        "base_run",
        "run",
        "entries",
        "only_in_base",
        "only_in_run",
        "failed",
    ]
    assert dumped["schema_version"] == 1
    assert dumped["only_in_base"] == [["s-old", "mcp"]]
    assert dumped["only_in_run"] == [["s-new", "mcp"]]
    assert dumped["failed"] and all(isinstance(line, str) for line in dumped["failed"])
    for entry in dumped["entries"]:
        assert list(entry) == ENTRY_KEYS
        assert isinstance(entry["beyond_noise"], bool) and isinstance(entry["regression"], bool)
        assert isinstance(entry["base_n"], int) and isinstance(entry["n"], int)


def test_no_nan_or_infinity_in_the_dump() -> None:
    comparison = mixed_comparison()
    dumped = comparison.model_dump(mode="json")
    numbers = [
        value for entry in dumped["entries"] for value in entry.values() if isinstance(value, float)
    ]
    assert numbers and all(math.isfinite(value) for value in numbers)
    assert any(entry["change_pct"] is None for entry in dumped["entries"])
    text = comparison.model_dump_json()
    assert "NaN" not in text and "Infinity" not in text
    json.loads(text, parse_constant=lambda name: pytest.fail(f"non-finite {name} in the JSON"))


def test_json_round_trip() -> None:
    comparison = mixed_comparison()
    assert Comparison.model_validate_json(comparison.model_dump_json()) == comparison
    assert Comparison.model_validate(comparison.model_dump(mode="json")) == comparison


def test_entries_reject_non_finite_numbers_and_inconsistent_flags() -> None:
    fields = dict(scenario_id="s", mode="ghx", metric="tokens_active", base_n=2, n=2)
    with pytest.raises(ValidationError):
        ComparisonEntry(**fields, change_pct=math.nan)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ComparisonEntry(**fields, base_median=math.inf)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="beyond_noise"):
        ComparisonEntry(**fields, change_pct=5, ci_low_pct=1, ci_high_pct=9)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="regression"):
        ComparisonEntry(
            **fields,  # type: ignore[arg-type]
            change_pct=5,
            ci_low_pct=1,
            ci_high_pct=9,
            beyond_noise=True,
        )
    with pytest.raises(ValidationError, match="both null"):
        ComparisonEntry(**fields, change_pct=5, ci_low_pct=1)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ComparisonEntry(**{**fields, "metric": "tokens_total"})  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Comparison.model_validate({"base_run": "a", "run": "b", "extra": 1})


def test_regression_and_improvement_by_metric_direction() -> None:
    def build(metric: str, change: float, low: float, high: float) -> ComparisonEntry:
        return ComparisonEntry.build(
            scenario_id="s",
            mode="ghx",
            metric=metric,  # type: ignore[arg-type]
            base_median=1,
            median=1,
            change_pct=change,
            interval=(low, high),
            base_n=5,
            n=5,
        )

    more_tokens = build("tokens_active", 20, 10, 30)
    assert more_tokens.regression and not more_tokens.improvement
    fewer_tokens = build("tokens_active", -20, -30, -10)
    assert fewer_tokens.improvement and not fewer_tokens.regression
    more_success = build("success_rate", 20, 10, 30)
    assert more_success.improvement and not more_success.regression
    less_success = build("success_rate", -20, -30, -10)
    assert less_success.regression
    within = build("latency_ms", 5, -1, 9)
    assert not (within.beyond_noise or within.regression or within.improvement)
    # a (pathological) interval on the other side of its point estimate: beyond noise, neither
    odd = build("cost", 1, -5, -2)
    assert odd.beyond_noise and not (odd.regression or odd.improvement)


def test_non_finite_measurements_never_reach_the_json() -> None:
    base = RowTable.from_records(
        records("s-1", [1.0, 2.0, math.nan, 3.0]) + records("s-2", [1.0, math.inf, math.inf])
    )
    current = RowTable.from_records(
        records("s-1", [1.0, 2.0, 5.0]) + records("s-2", [math.inf, math.inf, 3.0])
    )
    comparison = compare_runs(base, current, base_run="a", run="b", resamples=200)
    text = comparison.model_dump_json()
    json.loads(text, parse_constant=lambda name: pytest.fail(f"non-finite {name} in the JSON"))
    [latency] = [
        e for e in comparison.entries if e.scenario_id == "s-2" and e.metric == "latency_ms"
    ]
    assert (latency.base_median, latency.median, latency.change_pct) == (None, None, None)
    assert latency.note == "the base median is not a finite number: change undefined"
