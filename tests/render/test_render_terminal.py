from __future__ import annotations

import pytest
from pydantic import ValidationError

from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.render.terminal import (
    checks_table,
    format_number,
    mode_table,
    scenario_reliability,
    verdict_line,
)
from tests.summaries import bare_summary


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        (None, "percent", "—"),
        (float("nan"), "ms", "—"),
        (90, "percent", "90.0%"),
        (33.333, "percent", "33.3%"),
        (-1.5, "pp", "-1.5 pp"),
        (2, "pp", "+2.0 pp"),
        (69821.0, "ms", "69,821"),
        (32378.5, "ms", "32,379"),
        (26705.5, "tokens", "26,706"),
        (999.4, "tokens", "999"),
        (7.5, "count", "7.5"),
        (2.0, "count", "2"),
        (0.0123456, "cost", "$0.0123"),
        (0, "cost", "$0.0000"),
        (1234, "int", "1,234"),
    ],
)
def test_format_number(value, kind, expected):
    assert format_number(value, kind) == expected


def test_format_number_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown number kind 'percentage'"):
        format_number(1, "percentage")


def test_mode_table_has_one_aligned_line_per_mode_with_dashes_for_missing(summary):
    lines = mode_table(summary)

    assert len(lines) == 3
    header, agent_direct, ghx = lines
    assert header.split()[:3] == ["mode", "runs", "success"]
    assert agent_direct.split() == [
        "agent_direct", "10", "90.0%", "90.0%", "10.0%", "0.0%", "20.0%",
        "69,821", "26,706", "7.5", "$0.0123", "81,692",
    ]  # fmt: skip
    assert ghx.split() == [
        "ghx", "10", "100.0%", "—", "0.0%", "0.0%", "0.0%", "32,379", "21,757", "2", "—", "41,000",
    ]  # fmt: skip
    # right-aligned numeric columns: every line ends at the same column
    assert len({len(line) for line in lines}) == 1
    assert "tool surface" not in header


def test_mode_table_shows_tool_surface_tokens_when_any_mode_has_them(summary):
    summary.modes["ghx"]["tool_surface_tokens"] = 1234
    header, agent_direct, ghx = mode_table(summary)
    assert header.endswith("tool surface tok")
    assert agent_direct.endswith("—")
    assert ghx.endswith("1,234")


def test_mode_table_of_a_summary_without_modes_is_empty():
    assert mode_table(bare_summary()) == []


def test_checks_table_lists_each_check_with_its_units(summary):
    lines = checks_table(summary)
    assert [line.split() for line in lines] == [
        ["result", "check", "value", "op", "threshold"],
        ["PASS", "reliability_success_rate_non_inferior", "+10.0", "pp", ">=", "-3.0", "pp"],
        ["PASS", "reliability_runner_failure_rate", "0.0%", "<=", "7.0%"],
        ["FAIL", "efficiency_coverage", "50.0%", ">=", "70.0%"],
        ["FAIL", "efficiency_cost_reduction", "—", ">=", "10.0%"],
    ]


def test_checks_table_is_empty_when_the_gate_was_not_evaluated(summary):
    summary.gate.evaluated, summary.gate.passed, summary.gate.checks = False, False, []
    assert checks_table(summary) == []


def test_verdict_line_of_a_failed_gate_names_the_failing_checks(summary):
    assert verdict_line(summary, 1, "gate required") == (
        "ghxbench verdict: gate verify_pr (ghx vs agent_direct) FAILED (2/4: efficiency_coverage, "
        "efficiency_cost_reduction) -> exit 1 (gate required)"
    )


def test_verdict_line_of_a_passed_gate_counts_the_checks(summary):
    for check in summary.gate.checks:
        check.passed = True
    summary.gate.passed = True
    assert (
        verdict_line(summary, 0)
        == "ghxbench verdict: gate verify_pr (ghx vs agent_direct) PASSED (4/4 checks) -> exit 0"
    )


def test_verdict_line_of_a_gate_not_evaluated_gives_the_reason(summary):
    summary.gate = summary.gate.model_copy(
        update={
            "evaluated": False,
            "passed": False,
            "reason": "no rows for mode 'ghx'",
            "checks": [],
        }
    )
    assert verdict_line(summary, 1, "gate required") == (
        "ghxbench verdict: gate verify_pr (ghx vs agent_direct) NOT EVALUATED: "
        "no rows for mode 'ghx' -> exit 1 "
        "(gate required)"
    )


def test_a_summary_without_a_gate_is_refused_and_one_of_no_rows_is_not_evaluated():
    # Every summary has a gate (build_summary always computes one): a document without it is
    # not a summary, so no renderer ever has to say "no gate computed".
    with pytest.raises(ValidationError, match=r"(?m)^gate\n +Field required"):
        RunSummary.model_validate({"generated_at": "2026-03-04T12:00:00Z", "modes": {}})
    assert verdict_line(bare_summary(), 0) == (
        "ghxbench verdict: gate verify_pr (ghx vs agent_direct) NOT EVALUATED: "
        "no rows for baseline mode 'agent_direct' or candidate mode 'ghx' -> exit 0"
    )


def test_a_mode_shown_but_not_gated_is_marked() -> None:
    from pytest_ghxbench.render.terminal import mode_table

    summary = bare_summary(
        modes={"agent_direct": {"runs": 4}, "mcp": {"runs": 4}, "ghx": {"runs": 4}},
        gate={"baseline": "agent_direct", "candidate": "ghx", "profile": "verify_pr"},
    )
    names = [line.split("  ")[0] for line in mode_table(summary)[1:]]
    assert names == ["agent_direct", "mcp (not gated)", "ghx"]


def test_verdict_line_says_why_coverage_is_zero() -> None:
    from pytest_ghxbench.render.terminal import verdict_line

    note = "no scenario has 3 stable rows in both modes (...); run at least --reps=3"
    summary = bare_summary(
        gate={
            "profile": "verify_pr", "baseline": "agent_direct", "candidate": "ghx",
            "evaluated": True, "passed": False,
            "checks": [
                {"name": "efficiency_coverage", "passed": False, "value": 0.0, "threshold": 70.0,
                 "operator": ">="},
            ],
            "efficiency": {"coverage_note": note},
        }
    )  # fmt: skip
    line = verdict_line(summary, 1)
    assert line.startswith("ghxbench verdict: gate verify_pr (ghx vs agent_direct) FAILED")
    assert f"coverage 0%: {note}" in line


def test_mode_table_shows_pass_hat_k_after_the_success_rate_when_the_summary_has_it(summary):
    summary.modes["agent_direct"].update(pass_hat_k=62.5, pass_k=4)
    summary.modes["ghx"].update(pass_hat_k=100.0, pass_k=4)
    header, agent_direct, ghx = mode_table(summary)
    assert header.split()[:6] == ["mode", "runs", "success", "pass^k", "k", "valid"]
    assert agent_direct.split()[:5] == ["agent_direct", "10", "90.0%", "62.5%", "4"]
    assert ghx.split()[:5] == ["ghx", "10", "100.0%", "100.0%", "4"]


def _scenario(success_rate: float, pass_hat_k: float, k: int = 4) -> dict[str, object]:
    return {"runs": k, "success_rate": success_rate, "pass_hat_k": pass_hat_k, "pass_k": k}


def test_scenario_reliability_lists_the_groups_that_failed_a_repetition_worst_first():
    summary = bare_summary(
        scenarios={
            "issue-view": {"ghx": _scenario(100.0, 100.0), "mcp": _scenario(75.0, 0.0)},
            "pr-diff": {"ghx": _scenario(25.0, 0.0), "mcp": _scenario(100.0, 100.0)},
        }
    )
    lines = scenario_reliability(summary)
    assert lines[0] == "pass^k: 2 of 4 scenario x mode groups failed a repetition:"
    assert lines[1].split() == ["scenario", "mode", "success", "pass^k", "k"]
    assert lines[2].split() == ["pr-diff", "ghx", "25.0%", "0.0%", "4"]
    assert lines[3].split() == ["issue-view", "mcp", "75.0%", "0.0%", "4"]
    assert len(lines) == 4


def test_scenario_reliability_is_one_line_when_every_repetition_passed_and_caps_long_lists():
    reliable = bare_summary(scenarios={f"s{i}": {"ghx": _scenario(100.0, 100.0)} for i in range(3)})
    assert scenario_reliability(reliable) == [
        "pass^k: all 3 scenario x mode groups passed every repetition"
    ]
    flaky = bare_summary(scenarios={f"s{i:02}": {"ghx": _scenario(50.0, 0.0)} for i in range(30)})
    lines = scenario_reliability(flaky, limit=5)
    assert lines[0].startswith("pass^k: 30 of 30 scenario x mode groups failed a repetition (5 ")
    assert len(lines) == 2 + 5
    assert scenario_reliability(bare_summary(scenarios={"s": {"ghx": {"runs": 2}}})) == []
