"""Fail rules: parsing METRIC:PCT and which entries break them."""

from __future__ import annotations

import math

import pytest

from pytest_ghxbench.compare import (
    OVERALL,
    Comparison,
    ComparisonEntry,
    FailRule,
    breaks_rule,
    failures,
    parse_fail_rule,
)


@pytest.mark.parametrize(
    ("text", "metric", "threshold"),
    [
        ("tokens_active:5%", "tokens_active", 5.0),
        ("tokens_active:5", "tokens_active", 5.0),
        ("tokens_active:5.0%", "tokens_active", 5.0),
        (" Latency_MS : 12.5 % ", "latency_ms", 12.5),
        ("tokens:0", "tokens_active", 0.0),
        ("latency:10", "latency_ms", 10.0),
        ("tools:1", "tool_calls", 1.0),
        ("cost:2.5%", "cost", 2.5),
        ("cost_usd:3", "cost", 3.0),
        ("success_rate:5", "success_rate", 5.0),
        ("success:5", "success_rate", 5.0),
        ("tool_calls:.5", "tool_calls", 0.5),
    ],
)
def test_parse_fail_rule(text: str, metric: str, threshold: float) -> None:
    assert parse_fail_rule(text) == FailRule(metric, threshold)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("tokens_total:5", "unknown metric 'tokens_total'"),
        ("5%", "no ':'"),
        ("tokens_active", "no ':'"),
        ("tokens_active:-5", "finite number >= 0"),
        ("tokens_active:nan", "is not a number"),
        ("tokens_active:inf", "is not a number"),
        ("tokens_active:1e400", "finite number >= 0"),
        ("tokens_active:", "is not a number"),
        ("tokens_active:5%%", "is not a number"),
        ("tokens_active:five", "is not a number"),
        (":5", "unknown metric"),
    ],
)
def test_parse_fail_rule_errors_name_the_form_and_the_metrics(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_fail_rule(text)
    message = str(raised.value)
    assert reason in message
    assert "METRIC:PCT" in message
    for metric in ("tokens_active", "latency_ms", "tool_calls", "cost", "success_rate"):
        assert metric in message


def test_fail_rules_validate_themselves() -> None:
    with pytest.raises(ValueError, match="METRIC:PCT"):
        FailRule("tokens_active", math.nan)
    with pytest.raises(ValueError, match="unknown metric"):
        FailRule("tokens", 5)  # type: ignore[arg-type]
    assert str(FailRule("cost", 5)) == "cost:5%"
    assert str(FailRule("success_rate", 2.5)) == "success_rate:2.5 pp"


def entry(
    metric: str, change: float, low: float, high: float, scenario: str = "s-001"
) -> ComparisonEntry:
    return ComparisonEntry.build(
        scenario_id=scenario,
        mode="ghx",
        metric=metric,  # type: ignore[arg-type]
        base_median=100,
        median=100 + change,
        change_pct=change,
        interval=(low, high),
        base_n=5,
        n=5,
    )


def test_a_rule_needs_a_regression_beyond_noise_and_beyond_its_threshold() -> None:
    rule = parse_fail_rule("tokens_active:5%")
    assert breaks_rule(entry("tokens_active", 8, 2, 12), rule)
    assert not breaks_rule(entry("tokens_active", 5, 2, 8), rule)  # not beyond the threshold
    assert not breaks_rule(entry("tokens_active", 8, -1, 12), rule)  # within the noise
    assert not breaks_rule(entry("tokens_active", -8, -12, -2), rule)  # an improvement
    assert not breaks_rule(entry("latency_ms", 50, 40, 60), rule)  # another metric
    drop = parse_fail_rule("success_rate:10")
    assert breaks_rule(entry("success_rate", -20, -30, -12), drop)
    assert not breaks_rule(entry("success_rate", -8, -12, -2), drop)
    assert not breaks_rule(entry("success_rate", 20, 12, 30), drop)


def test_failures_give_one_line_per_entry_with_the_strictest_rule() -> None:
    comparison = Comparison(
        base_run="a",
        run="b",
        entries=[
            entry("tokens_active", 30, 20, 40),
            entry("latency_ms", 30, 20, 40),
            entry("tokens_active", 30, 20, 40, scenario=OVERALL),
        ],
    )
    rules = [parse_fail_rule("tokens:20"), parse_fail_rule("tokens_active:5"), FailRule("cost", 0)]
    lines = failures(comparison, rules)
    assert lines == [
        "s-001 [ghx] tokens_active +30.0% (100 -> 130; interval [+20.0%, +40.0%]) "
        "exceeds tokens_active:5%",
        "all scenarios [ghx] tokens_active median change +30.0% (100 -> 130; "
        "interval [+20.0%, +40.0%]) exceeds tokens_active:5%",
    ]
    assert failures(comparison, []) == []
