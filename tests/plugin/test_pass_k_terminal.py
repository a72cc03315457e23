"""The terminal names the scenarios whose repetitions did not all succeed (pass^k per scenario)."""

from __future__ import annotations

import pytest

from tests.plugin.support import atomic, setup_project, summary

SCENARIOS = [atomic("repo-view-001"), atomic("repo-view-002")]
FIXED = {"*": {"*": {"cost": 0.01, "tokens": {"input": 1000, "output": 100}}}}


def test_a_scenario_whose_repetitions_failed_is_listed(pytester: pytest.Pytester) -> None:
    failing = {**FIXED, "repo-view-002": {"ghx": {"report_error": "bad answer"}}}
    setup_project(pytester, SCENARIOS, behaviour=failing)
    result = pytester.runpytest("--ghx-mode=ghx", "--reps=3")
    scenarios = summary(pytester)["scenarios"]
    assert scenarios["repo-view-002"]["ghx"]["pass_hat_k"] == 0.0
    assert scenarios["repo-view-001"]["ghx"]["pass_hat_k"] == 100.0
    result.stdout.re_match_lines(
        [
            r"pass\^k: 1 of 2 scenario x mode groups failed a repetition:",
            r"  scenario +mode +success +pass\^k +k",
            r"  repo-view-002 +ghx +0\.0% +0\.0% +3",
        ]
    )


def test_when_every_repetition_passed_it_is_one_line(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=FIXED)
    result = pytester.runpytest("--ghx-mode=ghx", "--reps=2")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["pass^k: all 2 scenario x mode groups passed every repetition"])
