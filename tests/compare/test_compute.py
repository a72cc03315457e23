"""compare_runs: changes, intervals, noise, notes, suite entries and determinism."""

from __future__ import annotations

import pytest

from pytest_ghxbench.compare import (
    ALL_METRICS,
    OVERALL,
    Comparison,
    ComparisonEntry,
    compare_runs,
    parse_fail_rule,
)
from pytest_ghxbench.metrics.stats import newcombe_interval
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.row import Row
from tests.compare.rows import noisy, rows, table


def entry(comparison: Comparison, scenario: str, mode: str, metric: str) -> ComparisonEntry:
    found = [
        e
        for e in comparison.entries
        if (e.scenario_id, e.mode, e.metric) == (scenario, mode, metric)
    ]
    assert len(found) == 1, (scenario, mode, metric)
    return found[0]


def compare(base: RowTable, current: RowTable, **options: object) -> Comparison:
    return compare_runs(base, current, base_run="base", run="run", **options)  # type: ignore[arg-type]


def two_scenarios(token_factor: float, seed: int) -> RowTable:
    return table(two_scenario_rows(token_factor, seed))


def two_scenario_rows(token_factor: float, seed: int) -> list[Row]:
    return [
        row
        for group in (
            rows(
                12,
                mode,
                scenario,
                tokens=noisy(12, 1000 * token_factor, 0.03, seed + index),
                latency=noisy(12, 2000, 0.2, seed + 50 + index),  # type: ignore[arg-type]
            )
            for index, (mode, scenario) in enumerate(
                [("ghx", "s-001"), ("ghx", "s-002"), ("mcp", "s-001"), ("mcp", "s-002")]
            )
        )
        for row in group
    ]


def test_identical_runs_have_no_change_beyond_noise() -> None:
    base = two_scenarios(1.0, seed=1)
    comparison = compare(base, two_scenarios(1.0, seed=1))
    assert comparison.entries
    assert not [e for e in comparison.entries if e.beyond_noise]
    for e in comparison.entries:
        assert e.change_pct == 0.0
        assert e.ci_low_pct is not None and e.ci_high_pct is not None
        assert e.ci_low_pct <= 0.0 <= e.ci_high_pct
    assert comparison.only_in_base == comparison.only_in_run == []
    assert comparison.failed == []


def test_entries_cover_every_metric_per_scenario_and_mode_then_the_suite() -> None:
    comparison = compare(two_scenarios(1.0, seed=1), two_scenarios(1.0, seed=2))
    keys = [(e.scenario_id, e.mode, e.metric) for e in comparison.entries]
    expected = [
        (scenario, mode, metric)
        for scenario in ("s-001", "s-002")
        for mode in ("ghx", "mcp")
        for metric in ALL_METRICS
    ] + [(OVERALL, mode, metric) for mode in ("ghx", "mcp") for metric in ALL_METRICS]
    assert keys == expected


def test_a_30_percent_token_increase_with_low_noise_is_a_regression() -> None:
    comparison = compare(two_scenarios(1.0, seed=1), two_scenarios(1.3, seed=7))
    tokens = entry(comparison, "s-001", "ghx", "tokens_active")
    assert tokens.change_pct == pytest.approx(30, abs=4)
    assert tokens.ci_low_pct is not None and tokens.ci_low_pct > 15
    assert tokens.beyond_noise and tokens.regression and not tokens.improvement
    suite = entry(comparison, OVERALL, "ghx", "tokens_active")
    assert suite.change_pct == pytest.approx(30, abs=4) and suite.regression
    assert suite.note == "median over 2 scenarios"
    # latency did not change: within the noise
    assert not entry(comparison, "s-001", "ghx", "latency_ms").beyond_noise

    failing = compare(
        two_scenarios(1.0, seed=1),
        two_scenarios(1.3, seed=7),
        rules=[parse_fail_rule("tokens_active:5%")],
    )
    assert len(failing.failed) == 6  # 2 scenarios x 2 modes, plus each mode's suite entry
    assert failing.failed[0].startswith("s-001 [ghx] tokens_active +")
    assert failing.failed[0].endswith("exceeds tokens_active:5%")
    lenient = compare(
        two_scenarios(1.0, seed=1),
        two_scenarios(1.3, seed=7),
        rules=[parse_fail_rule("tokens_active:40%")],
    )
    assert lenient.failed == []


def test_a_token_decrease_is_an_improvement_not_a_regression() -> None:
    comparison = compare(
        two_scenarios(1.0, seed=1),
        two_scenarios(0.7, seed=7),
        rules=[parse_fail_rule("tokens:0")],
    )
    tokens = entry(comparison, "s-002", "mcp", "tokens_active")
    assert tokens.beyond_noise and tokens.improvement and not tokens.regression
    assert comparison.failed == []


def test_a_small_change_within_the_noise_is_not_flagged() -> None:
    base = table(rows(10, tokens=noisy(10, 1000, 0.3, seed=3)))
    current = table(rows(10, tokens=noisy(10, 1030, 0.3, seed=4)))
    tokens = entry(compare(base, current), "s-001", "ghx", "tokens_active")
    assert tokens.change_pct is not None and tokens.change_pct != 0
    assert tokens.ci_low_pct is not None and tokens.ci_high_pct is not None
    assert tokens.ci_low_pct < 0 < tokens.ci_high_pct
    assert not tokens.beyond_noise and not tokens.regression


def test_medians_and_change_are_over_stable_rows_only() -> None:
    base = table(rows(4, tokens=100), rows(2, tokens=10_000, runner_error="boom", failures=2))
    current = table(rows(4, tokens=150, failures=1))
    tokens = entry(compare(base, current), "s-001", "ghx", "tokens_active")
    assert (tokens.base_median, tokens.median, tokens.change_pct) == (100, 150, 50)
    assert (tokens.base_n, tokens.n) == (4, 3)
    success = entry(compare(base, current), "s-001", "ghx", "success_rate")
    # all rows count toward the success rate: 4 of 6 (the runner errors failed), 3 of 4
    assert (success.base_n, success.n) == (6, 4)
    assert success.base_median == pytest.approx(400 / 6)
    assert success.change_pct == pytest.approx(75 - 400 / 6)


def test_fewer_than_two_stable_rows_give_no_interval_and_say_so() -> None:
    base = table(rows(1, tokens=100), rows(3, scenario="s-002", failures=3))
    current = table(rows(5, tokens=500), rows(3, scenario="s-002"))
    comparison = compare(base, current)
    single = entry(comparison, "s-001", "ghx", "tokens_active")
    assert single.change_pct == 400
    assert single.ci_low_pct is None and not single.beyond_noise and not single.regression
    assert single.note == "fewer than 2 stable rows (1 stable rows in the base run): no interval"
    none = entry(comparison, "s-002", "ghx", "tokens_active")
    assert none.base_median is None and none.change_pct is None and none.base_n == 0
    assert none.note is not None and "0 stable rows in the base run" in none.note
    suite = entry(comparison, OVERALL, "ghx", "tokens_active")
    assert suite.change_pct == 400 and suite.ci_low_pct is None and not suite.beyond_noise
    assert suite.note is not None and "no interval" in suite.note


def test_a_zero_base_median_leaves_the_change_undefined() -> None:
    base = table(rows(3, tool_calls=0))
    current = table(rows(3, tool_calls=2))
    calls = entry(compare(base, current), "s-001", "ghx", "tool_calls")
    assert (calls.base_median, calls.median, calls.change_pct) == (0, 2, None)
    assert calls.ci_low_pct is None and not calls.beyond_noise
    assert calls.note == "the base median is not > 0: change undefined"


def test_suite_entries_leave_out_scenarios_without_an_interval() -> None:
    base = table(
        rows(3, tokens=100), rows(3, scenario="s-002", tokens=100), rows(1, scenario="s-3")
    )
    current = table(
        rows(3, tokens=110), rows(3, scenario="s-002", tokens=130), rows(1, scenario="s-3")
    )
    suite = entry(compare(base, current), OVERALL, "ghx", "tokens_active")
    assert suite.change_pct == pytest.approx(20)
    assert (
        suite.note == "median over 2 scenarios; 1 with fewer than 2 stable rows on a side left out"
    )
    assert (suite.base_n, suite.n) == (6, 6)
    assert suite.base_median is None and suite.median is None


def test_a_reliability_drop_shows_in_the_success_rate() -> None:
    base = table(*(rows(20, scenario=f"s-{index}") for index in range(3)))
    current = table(*(rows(20, scenario=f"s-{index}", failures=12) for index in range(3)))
    comparison = compare(base, current, rules=[parse_fail_rule("success:20")])
    success = entry(comparison, "s-0", "ghx", "success_rate")
    assert (success.base_median, success.median, success.change_pct) == (100, 40, -60)
    assert success.regression and not success.improvement
    suite = entry(comparison, OVERALL, "ghx", "success_rate")
    assert (suite.base_n, suite.n, suite.change_pct) == (60, 60, -60)
    assert len(comparison.failed) == 4
    assert comparison.failed[-1].startswith("all scenarios [ghx] success_rate -60.0 pp")


def test_newcombe_interval() -> None:
    low, high = newcombe_interval(50, 100, 50, 100)
    assert low == pytest.approx(-high) and 13 < high < 14.5  # ~ +-13.7 pp (Newcombe, table II)
    low, high = newcombe_interval(10, 10, 10, 10)  # either true rate may be below 100 %
    assert low == pytest.approx(-high) and 27 < high < 28
    # Newcombe (1998) example: 56/70 vs 48/80 -> difference 0.2 with interval 0.0524..0.3339
    low, high = newcombe_interval(48, 80, 56, 70)
    assert (low, high) == pytest.approx((5.24, 33.39), abs=0.01)


def test_scenarios_in_one_run_only_are_listed_not_compared() -> None:
    base = table(rows(3), rows(3, scenario="s-old"), rows(3, mode="mcp"))
    current = table(rows(3), rows(3, scenario="s-new"), rows(3, mode="agent_direct"))
    comparison = compare(base, current)
    assert comparison.only_in_base == [("s-001", "mcp"), ("s-old", "ghx")]
    assert comparison.only_in_run == [("s-001", "agent_direct"), ("s-new", "ghx")]
    assert {(e.scenario_id, e.mode) for e in comparison.entries} == {("s-001", "ghx"), ("*", "ghx")}


def test_runs_without_common_scenarios_give_no_entries() -> None:
    comparison = compare(table(rows(3)), table())
    assert comparison.entries == [] and comparison.only_in_base == [("s-001", "ghx")]


def test_the_same_rows_and_seed_give_the_same_comparison() -> None:
    first = compare(two_scenarios(1.0, seed=1), two_scenarios(1.1, seed=2), seed=5)
    again = compare(two_scenarios(1.0, seed=1), two_scenarios(1.1, seed=2), seed=5)
    assert first == again
    other = compare(two_scenarios(1.0, seed=1), two_scenarios(1.1, seed=2), seed=6)
    assert first != other
    assert [e.change_pct for e in first.entries] == [e.change_pct for e in other.entries]


def test_an_entry_interval_depends_on_its_own_rows_only() -> None:
    base, current = two_scenario_rows(1.0, seed=1), two_scenario_rows(1.1, seed=2)
    alone = entry(compare(table(base), table(current)), "s-002", "mcp", "tokens_active")
    extra = rows(5, "mcp", "s-000", tokens=noisy(5, 100, 0.5, seed=9))
    crowded = compare(table(extra, base), table(extra, current))
    assert entry(crowded, "s-002", "mcp", "tokens_active") == alone


def test_invalid_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="confidence"):
        compare(table(rows(2)), table(rows(2)), confidence=1.0)
    with pytest.raises(ValueError, match="resamples"):
        compare(table(rows(2)), table(rows(2)), resamples=0)
