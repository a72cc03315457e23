"""The verdict says how often a truly better interface would pass at this run's noise."""

from __future__ import annotations

import pytest

from tests.plugin.support import atomic, setup_project, summary

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]
CHEAPER = {
    "*": {
        "agent_direct": {"tokens": {"input": 5000, "output": 200}, "tool_calls": 4, "cost": 0.02},
        "ghx": {"tokens": {"input": 2000, "output": 100}, "tool_calls": 1, "cost": 0.008},
    }
}


def test_the_power_note_is_in_the_summary_and_before_the_verdict(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=CHEAPER)
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=3")
    power = summary(pytester)["run"]["power"]
    assert power["profile"] == "verify_pr" and power["effect_pct"] == 30.0
    assert 0.0 <= power["pass_probability"] <= 1.0
    assert power["design_reps"] == 3 and power["target_power"] == 0.8
    assert power["line"].startswith("power: with this noise a true 30% reduction would pass ")
    lines = result.outlines
    verdict = next(i for i, line in enumerate(lines) if line.startswith("ghxbench verdict:"))
    assert lines[verdict - 1] == power["line"]


def test_the_effect_is_an_option_and_zero_leaves_the_note_out(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=CHEAPER)
    pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=3", "--ghx-power-effect=50")
    assert summary(pytester)["run"]["power"]["effect_pct"] == 50.0
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--ghx-power-effect=0")
    assert "power" not in summary(pytester)["run"]
    assert not any(line.startswith("power:") for line in result.outlines)
    bad = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--ghx-power-effect=120")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--ghx-power-effect must be a percentage from 0 to below 100*"])


def test_no_note_when_the_gate_is_not_evaluated(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=CHEAPER)
    pytester.runpytest("--ghx-mode=ghx")
    assert "power" not in summary(pytester)["run"]
