"""The dual gate on hand-built rows: every check passing, and each one failing on its own."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.metrics.gate import evaluate_gate
from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES, CHECK_NAMES, Profile
from pytest_ghxbench.records.row import Row

from .factory import make_row, repeat

PR = BUILTIN_PROFILES["verify_pr"]
BASE, CAND = "agent_direct", "ghx"

# scenario -> metric -> (baseline value, candidate value); every row of a scenario-mode is equal.
# Reductions: tokens 20/25/10 (median 20), latency 20/25/10 (20), tool calls 50/50/66.7 (50),
# cost 20/25/20 (smallest 20).
PASSING: dict[str, dict[str, tuple[float, float]]] = {
    "s-001": {"tokens": (1000, 800), "latency": (10000, 8000), "tool_calls": (10, 5),
              "cost": (0.10, 0.08)},
    "s-002": {"tokens": (2000, 1500), "latency": (20000, 15000), "tool_calls": (8, 4),
              "cost": (0.20, 0.15)},
    "s-003": {"tokens": (500, 450), "latency": (4000, 3600), "tool_calls": (6, 2),
              "cost": (0.05, 0.04)},
}  # fmt: skip


def scenario_rows(
    scenarios: dict[str, dict[str, tuple[float, float]]] = PASSING, reps: int = 4
) -> list[Row]:
    rows: list[Row] = []
    for scenario, metrics in scenarios.items():
        for side, mode in enumerate((BASE, CAND)):
            rows += repeat(
                reps,
                mode,
                scenario,
                tokens=int(metrics["tokens"][side]),
                latency=metrics["latency"][side],
                tool_calls=int(metrics["tool_calls"][side]),
                cost=metrics["cost"][side],
            )
    return rows


def with_changes(scenario: str, **changes: tuple[float, float]) -> dict[str, Any]:
    table = {name: dict(metrics) for name, metrics in PASSING.items()}
    table[scenario].update(changes)
    return table


def gate(rows: list[Row], profile: Profile = PR, **kwargs: Any) -> dict[str, Any]:
    return evaluate_gate(
        rows, profile=profile, baseline=BASE, candidate=CAND, resamples=500, **kwargs
    )


def check(result: dict[str, Any], name: str) -> dict[str, Any]:
    return next(entry for entry in result["checks"] if entry["name"] == name)


def failed(result: dict[str, Any]) -> list[str]:
    return [entry["name"] for entry in result["checks"] if not entry["passed"]]


def test_gate_passes_when_every_check_passes() -> None:
    result = gate(scenario_rows())
    assert result["evaluated"] and result["passed"]
    assert result["reason"] == "all 10 checks passed"
    assert [entry["name"] for entry in result["checks"]] == list(CHECK_NAMES)
    values = {entry["name"]: entry["value"] for entry in result["checks"]}
    assert values == {
        "reliability_success_rate_non_inferior": 0.0,
        "reliability_output_validity": 100.0,
        "reliability_runner_failure_rate": 0.0,
        "reliability_timeout_stall_rate": 0.0,
        "reliability_retry_rate": 0.0,
        "efficiency_coverage": 100.0,
        "efficiency_tokens_active_reduction": 20.0,
        "efficiency_latency_reduction": 20.0,
        "efficiency_tool_call_reduction": 50.0,
        "efficiency_cost_reduction": pytest.approx(20.0),
    }
    efficiency = result["efficiency"]
    assert efficiency["eligible_scenario_count"] == efficiency["total_scenario_count"] == 3
    assert efficiency["scenario_win_rate_tokens_active_pct"] == 100.0
    assert efficiency["cost_comparable_scenario_count"] == 3
    # Constant rows: every bootstrap replicate has the same median reduction.
    assert efficiency["tokens_active_reduction_ci95"] == [20.0, 20.0]
    assert efficiency["latency_reduction_ci95"] == [20.0, 20.0]
    assert efficiency["min_samples_per_scenario_per_mode"] == 3
    s002 = efficiency["scenarios"]["s-002"]
    assert s002["eligible"] and s002["baseline_stable_runs"] == s002["candidate_stable_runs"] == 4
    assert s002["baseline_median_tokens_active"] == 2000.0
    assert s002["candidate_median_tokens_active"] == 1500.0
    assert s002["tokens_active_reduction_pct"] == 25.0
    assert s002["tool_calls_reduction_pct"] == 50.0
    assert s002["latency_ms_reduction_pct"] == 25.0
    assert result["reliability"]["candidate_success_rate"] == 100.0
    assert result["reliability"]["success_rate_delta_pp"] == 0.0


def test_checks_report_thresholds_and_operators() -> None:
    result = gate(scenario_rows())
    rules = {entry["name"]: (entry["operator"], entry["threshold"]) for entry in result["checks"]}
    assert rules["reliability_success_rate_non_inferior"] == (">=", -3.0)
    assert rules["reliability_output_validity"] == (">=", 95.0)
    assert rules["reliability_runner_failure_rate"] == ("<=", 7.0)
    assert rules["reliability_timeout_stall_rate"] == ("<=", 4.0)
    assert rules["reliability_retry_rate"] == ("<=", 20.0)
    assert rules["efficiency_coverage"] == (">=", 70.0)
    assert rules["efficiency_cost_reduction"] == (">=", 10.0)


def test_success_rate_drop_beyond_the_allowed_fails_alone() -> None:
    rows = [*scenario_rows(), make_row(CAND, "s-001", success=False)]
    result = gate(rows)
    assert failed(result) == ["reliability_success_rate_non_inferior"]
    assert check(result, "reliability_success_rate_non_inferior")["value"] == pytest.approx(
        100 * 12 / 13 - 100  # -7.69 pp against a baseline at 100 %
    )
    assert result["reason"] == "1 of 10 checks failed: reliability_success_rate_non_inferior"


def test_output_validity_below_threshold_fails_alone() -> None:
    rows = [*scenario_rows(), make_row(CAND, "s-002", output_valid=False)]
    result = gate(rows)
    assert failed(result) == ["reliability_output_validity"]
    assert check(result, "reliability_output_validity")["value"] == pytest.approx(100 * 12 / 13)


def test_runner_failure_rate_above_threshold_fails() -> None:
    message = "agent exited with code 137"
    rows = [
        *scenario_rows(),
        make_row(CAND, "s-001", success=False, output_valid=False, runner_error=message),
        make_row(CAND, "s-002", success=False, output_valid=False, runner_error=message),
    ]
    # A crashed run is also unsuccessful and invalid; relax those two checks to isolate this one.
    relaxed = PR.with_values(
        {"reliability_output_validity": 80, "reliability_success_rate_non_inferior": 20}
    )
    result = gate(rows, relaxed)
    assert failed(result) == ["reliability_runner_failure_rate"]
    assert check(result, "reliability_runner_failure_rate")["value"] == pytest.approx(100 * 2 / 14)
    assert check(result, "reliability_timeout_stall_rate")["value"] == 0.0


def test_timeout_stall_rate_above_threshold_fails_alone() -> None:
    # 7 reps -> 21 rows per mode; one timeout among 22 candidate rows is 4.55 % (> 4, <= 7),
    # and one ordinary failure in the baseline keeps the success rates equal.
    rows = [
        *scenario_rows(reps=7),
        make_row(
            CAND, "s-003", success=False, output_valid=False, runner_error="Timed out after 60 s"
        ),
        make_row(BASE, "s-003", success=False),
    ]
    result = gate(rows)
    assert failed(result) == ["reliability_timeout_stall_rate"]
    assert check(result, "reliability_timeout_stall_rate")["value"] == pytest.approx(100 / 22)
    assert check(result, "reliability_runner_failure_rate")["value"] == pytest.approx(100 / 22)


def test_retry_rate_above_threshold_fails_alone() -> None:
    rows = scenario_rows()
    candidate_rows = [row for row in rows if row.mode == CAND]
    for row in candidate_rows[:3]:
        row.external_retry_count = 1
    result = gate(rows)
    assert failed(result) == ["reliability_retry_rate"]
    assert check(result, "reliability_retry_rate")["value"] == 25.0  # 3 of 12


def test_coverage_counts_ineligible_scenarios() -> None:
    extra = {
        "s-004": {"tokens": (100, 10), "latency": (100, 10), "tool_calls": (5, 1),
                  "cost": (0.01, 0.001)},
        "s-005": {"tokens": (100, 10), "latency": (100, 10), "tool_calls": (5, 1),
                  "cost": (0.01, 0.001)},
    }  # fmt: skip
    # Two extra scenarios with only 2 candidate rows: ineligible, so 3 of 5 are covered.
    short = [row for row in scenario_rows(extra) if not (row.mode == CAND and row.iteration >= 2)]
    result = gate(scenario_rows() + short)
    assert failed(result) == ["efficiency_coverage"]
    efficiency = result["efficiency"]
    assert efficiency["coverage_pct"] == 60.0
    assert (efficiency["eligible_scenario_count"], efficiency["total_scenario_count"]) == (3, 5)
    s004 = efficiency["scenarios"]["s-004"]
    assert not s004["eligible"] and s004["candidate_stable_runs"] == 2
    assert s004["candidate_median_tokens_active"] == 10.0  # reported, but not compared
    assert s004["tokens_active_reduction_pct"] is None
    assert efficiency["tokens_active_reduction_pct"] == 20.0  # the 90 % cuts do not count


def test_zero_coverage_says_why() -> None:
    result = gate(scenario_rows(reps=2))  # the profile needs 3 stable rows per scenario and mode
    assert result["efficiency"]["coverage_pct"] == 0.0
    note = result["efficiency"]["coverage_note"]
    assert "no scenario has 3 stable rows in both modes" in note
    assert "2 for agent_direct, 2 for ghx" in note and "--reps=3" in note
    assert "coverage: no scenario has 3 stable rows" in result["reason"]
    assert gate(scenario_rows())["efficiency"]["coverage_note"] is None


def test_scenario_seen_in_one_mode_only_is_in_the_universe() -> None:
    rows = scenario_rows() + repeat(4, BASE, "s-baseline-only")
    efficiency = gate(rows)["efficiency"]
    assert efficiency["total_scenario_count"] == 4
    assert efficiency["coverage_pct"] == 75.0
    assert efficiency["scenarios"]["s-baseline-only"]["candidate_stable_runs"] == 0


def test_only_stable_rows_count_toward_efficiency() -> None:
    # Failed candidate runs with huge token counts; relax the reliability checks they trip.
    noisy = [make_row(CAND, "s-001", success=False, tokens=10**6, iteration=9)] * 2
    relaxed = PR.with_values({"reliability_success_rate_non_inferior": 50})
    result = gate(scenario_rows() + noisy, relaxed)
    assert result["passed"]
    assert result["efficiency"]["scenarios"]["s-001"]["candidate_median_tokens_active"] == 800.0


def test_too_few_stable_rows_make_a_scenario_ineligible() -> None:
    result = gate(scenario_rows(reps=4), BUILTIN_PROFILES["verify_release"])  # needs 5
    efficiency = result["efficiency"]
    assert efficiency["coverage_pct"] == 0.0
    assert efficiency["tokens_active_reduction_pct"] is None
    assert efficiency["tokens_active_reduction_ci95"] is None
    assert failed(result) == [name for name in CHECK_NAMES if name.startswith("efficiency_")]
    assert all(check(result, name)["value"] is None for name in CHECK_NAMES[6:])


def test_token_reduction_below_threshold_fails_alone() -> None:
    table = with_changes("s-001", tokens=(1000, 950))
    table["s-002"]["tokens"] = (2000, 1900)
    result = gate(scenario_rows(table))  # reductions 5, 5, 10 -> median 5
    assert failed(result) == ["efficiency_tokens_active_reduction"]
    assert check(result, "efficiency_tokens_active_reduction")["value"] == 5.0


def test_latency_reduction_below_threshold_fails_alone() -> None:
    table = with_changes("s-001", latency=(10000, 9500))
    table["s-002"]["latency"] = (20000, 19000)
    result = gate(scenario_rows(table))
    assert failed(result) == ["efficiency_latency_reduction"]
    assert check(result, "efficiency_latency_reduction")["value"] == 5.0


def test_tool_call_reduction_below_threshold_fails_alone() -> None:
    table = with_changes("s-001", tool_calls=(10, 9))
    table["s-002"]["tool_calls"] = (8, 7)
    result = gate(scenario_rows(table))  # reductions 10, 12.5, 66.7 -> median 12.5
    assert failed(result) == ["efficiency_tool_call_reduction"]
    assert check(result, "efficiency_tool_call_reduction")["value"] == 12.5


def test_every_cost_comparable_scenario_must_meet_the_minimum() -> None:
    result = gate(scenario_rows(with_changes("s-003", cost=(0.05, 0.0475))))  # 5 % in s-003
    assert failed(result) == ["efficiency_cost_reduction"]
    assert check(result, "efficiency_cost_reduction")["value"] == pytest.approx(5.0)
    assert result["efficiency"]["scenarios"]["s-001"]["cost_usd_reduction_pct"] == pytest.approx(
        20.0
    )


def test_cost_check_fails_without_any_cost_comparable_scenario() -> None:
    free = {name: {**metrics, "cost": (0.0, 0.0)} for name, metrics in PASSING.items()}
    result = gate(scenario_rows(free))
    assert failed(result) == ["efficiency_cost_reduction"]
    assert check(result, "efficiency_cost_reduction")["value"] is None
    assert result["efficiency"]["cost_comparable_scenario_count"] == 0
    assert result["efficiency"]["min_scenario_cost_reduction_pct"] is None


def test_exact_threshold_survives_float_rounding() -> None:
    # 100 * (0.3 - 0.27) / 0.3 evaluates to 9.999999999999991: still a 10 % cut.
    table = {name: {**metrics, "cost": (0.3, 0.27)} for name, metrics in PASSING.items()}
    result = gate(scenario_rows(table))
    assert check(result, "efficiency_cost_reduction")["passed"]


def test_baseline_median_of_zero_is_excluded_from_the_reduction() -> None:
    table = with_changes("s-003", tool_calls=(0, 0))
    result = gate(scenario_rows(table))
    efficiency = result["efficiency"]
    assert efficiency["scenarios"]["s-003"]["eligible"]
    assert efficiency["scenarios"]["s-003"]["tool_calls_reduction_pct"] is None
    assert efficiency["tool_call_comparable_scenario_count"] == 2
    assert efficiency["tool_call_reduction_pct"] == 50.0
    assert efficiency["coverage_pct"] == 100.0


def test_win_rate_is_the_share_of_scenarios_with_fewer_tokens() -> None:
    table = with_changes("s-003", tokens=(500, 600))  # s-003 now uses 20 % more
    efficiency = gate(scenario_rows(table))["efficiency"]
    assert efficiency["scenario_win_rate_tokens_active_pct"] == pytest.approx(200 / 3)
    assert efficiency["tokens_active_reduction_pct"] == 20.0  # median of 20, 25, -20


@pytest.mark.parametrize(
    ("modes", "missing"),
    [
        ((BASE,), "no rows for candidate mode 'ghx'"),
        ((CAND,), "no rows for baseline mode 'agent_direct'"),
        (("mcp",), "no rows for baseline mode 'agent_direct' or candidate mode 'ghx'"),
    ],
)
def test_gate_is_not_evaluated_without_rows_of_both_modes(
    modes: tuple[str, ...], missing: str
) -> None:
    rows = [row for row in scenario_rows() if row.mode in modes] or repeat(3, "mcp", "s-001")
    result = gate(rows)
    assert result["evaluated"] is False and result["passed"] is False
    assert missing in result["reason"]
    assert result["checks"] == []
    assert (result["profile"], result["baseline"], result["candidate"]) == ("verify_pr", BASE, CAND)


def test_gate_comparing_a_mode_with_itself_is_not_evaluated() -> None:
    result = evaluate_gate(scenario_rows(), profile=PR, baseline=CAND, candidate=CAND)
    assert not result["evaluated"]
    assert "same mode 'ghx'" in result["reason"]


def test_gate_is_deterministic_for_a_seed() -> None:
    rows = [*scenario_rows(), make_row(CAND, "s-001", tokens=700, iteration=7)]
    first = gate(rows, seed=3)
    assert gate(list(reversed(rows)), seed=3) == first
