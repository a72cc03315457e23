"""The gate decides the exit status: pass, fail, not evaluated, strict, GITHUB_STEP_SUMMARY."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.plugin.support import atomic, read_rows, setup_project, summary

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]


def cheaper_candidate(**extra: Any) -> dict[str, Any]:
    """ghx uses fewer tokens, fewer tool calls, less time and money than agent_direct."""
    return {
        "*": {
            "agent_direct": {
                "tokens": {"input": 10000, "output": 500},
                "tool_calls": 6,
                "latency_ms": 20000,
                "cost": 0.05,
            },
            "ghx": {
                "tokens": {"input": 4000, "output": 300},
                "tool_calls": 2,
                "latency_ms": 8000,
                "cost": 0.02,
                **extra,
            },
        }
    }


def test_gate_passes_and_exit_is_zero(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=cheaper_candidate())
    result = pytester.runpytest(
        "--ghx-mode=agent_direct,ghx", "--reps=3", "--gate-profile=verify_pr"
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*ghxbench*", "*agent_direct*", "*efficiency_coverage*", "*verdict*PASSED*exit 0*"]
    )
    gate = summary(pytester)["gate"]
    assert gate["evaluated"] and gate["passed"]
    assert gate["efficiency"]["tokens_active_reduction_pct"] == pytest.approx(100 * 6200 / 10500)


def test_gate_fails_while_every_item_passes(pytester: pytest.Pytester) -> None:
    # ghx is no cheaper: every item passes, the efficiency checks fail, the session fails.
    same = {
        "*": {
            "*": {
                "tokens": {"input": 5000, "output": 100},
                "tool_calls": 3,
                "latency_ms": 9000,
                "cost": 0.02,
            }
        }
    }
    setup_project(pytester, SCENARIOS, behaviour=same)
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=3")
    result.assert_outcomes(passed=24)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*FAIL*efficiency_tokens_active_reduction*", "*verdict*FAILED*exit 1*"]
    )


def test_gate_passes_with_an_item_failed_and_exit_is_zero(pytester: pytest.Pytester) -> None:
    behaviour = cheaper_candidate()
    base = behaviour["*"]
    # one baseline item (of 40) hits a runner error: within the profile's tolerance
    behaviour["repo-view-004"] = {
        "ghx": base["ghx"],
        "agent_direct": {**base["agent_direct"], "raise": "network down", "only_iteration": 1},
    }
    setup_project(pytester, SCENARIOS, behaviour=behaviour)
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=5")
    result.assert_outcomes(passed=39, failed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*failed items (1)*",
            # the reason, not a bare "failed" (the list once read it from the wrong place)
            "  repo-view-004[[]agent_direct-r1[]]: adapter *raised RuntimeError: network down",
            "*verdict*PASSED*exit 0*within tolerance*",
        ]
    )

    strict = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=5", "--ghx-strict")
    assert strict.ret == 1
    strict.stdout.fnmatch_lines(["*--ghx-strict*"])


def test_gate_not_evaluated_uses_pytest_status_unless_required(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS[:1])
    advisory = pytester.runpytest("--ghx-mode=ghx")
    assert advisory.ret == 0
    advisory.stdout.fnmatch_lines(["*NOT EVALUATED*"])
    assert "agent_direct" in summary(pytester)["gate"]["reason"]

    required = pytester.runpytest("--ghx-mode=ghx", "--gate-profile=verify_pr")
    assert required.ret == 1
    required.stdout.fnmatch_lines(["*required*"])


def test_gate_required_from_pyproject(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS[:1])
    (pytester.path / "tox.ini").unlink(missing_ok=True)
    (pytester.path / "pytest.ini").unlink(missing_ok=True)
    pytester.makepyprojecttoml(
        '[tool.ghxbench]\nmode = "ghx"\nadapter = "scripted"\nbackend = "demo"\n'
        'gate_profile = "verify_release"\n'
    )
    result = pytester.runpytest()
    assert result.ret == 1
    assert summary(pytester)["gate"]["profile"] == "verify_release"


def test_baseline_rows_from_an_earlier_run_complete_the_gate(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=cheaper_candidate())
    first = pytester.runpytest(
        "--ghx-mode=agent_direct", "--reps=3", "--ghx-results=baseline-results"
    )
    assert first.ret == 0
    second = pytester.runpytest(
        "--ghx-mode=ghx",
        "--reps=3",
        "--gate-profile=verify_pr",
        "--ghx-baseline-rows=baseline-results/runs/latest/rows.jsonl",
    )
    assert second.ret == 0
    gate = summary(pytester)["gate"]
    assert gate["evaluated"] and gate["efficiency"]["eligible_scenario_count"] == 4


def test_summary_goes_to_github_step_summary(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = tmp_path / "step-summary.md"
    target.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    setup_project(pytester, SCENARIOS, behaviour=cheaper_candidate())
    pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=3")
    text = target.read_text()
    assert text.startswith("earlier step\n")
    assert "efficiency_coverage" in text and "agent_direct" in text


def test_row_and_summary_hooks_are_called(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS[:2], behaviour=cheaper_candidate())
    conftest = pytester.path / "conftest.py"
    conftest.write_text(
        conftest.read_text()
        + (
            "\nSEEN = []\n"
            "def pytest_ghxbench_row(row, item):\n"
            "    SEEN.append((row.scenario_id, row.mode, item is not None))\n"
            "def pytest_ghxbench_summary(summary, config):\n"
            "    import pytest_ghxbench as gb\n"
            "    print('HOOK rows', sorted(SEEN), 'runs', summary.modes['ghx']['runs'],\n"
            "          'typed', isinstance(summary, gb.RunSummary), summary.gate.evaluated)\n"
        )
    )
    result = pytester.runpytest("--ghx-mode=ghx", "-s")
    result.stdout.fnmatch_lines(
        [
            "*HOOK rows [[]('repo-view-001', 'ghx', True), ('repo-view-002', 'ghx', True)[]] "
            "runs 2 typed True False"
        ]
    )
    assert len(read_rows(pytester)) == 2


@pytest.mark.parametrize(
    ("modes", "reps", "warned"),
    [("agent_direct,ghx", 2, True), ("agent_direct,ghx", 3, False), ("ghx", 1, False)],
)
def test_too_few_reps_for_the_gate_is_said_up_front(
    pytester: pytest.Pytester, modes: str, reps: int, warned: bool
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    result = pytester.runpytest(f"--ghx-mode={modes}", f"--reps={reps}", "--collect-only")
    warning = [line for line in result.outlines if line.startswith("ghxbench: WARNING: --reps=")]
    assert bool(warning) is warned, result.outlines[:6]
    if warned:
        assert "fewer than the 3 stable rows per mode" in warning[0]
        assert "(ghx vs agent_direct)" in warning[0] and "use --reps=3" in warning[0]
