"""A run that stopped before every selected item produced a row is never a passed gate."""

from __future__ import annotations

import json
import sys
import textwrap
from typing import Any

import pytest

from tests.plugin.support import CONFTEST, atomic, read_rows, setup_project, summary

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]
EFFICIENT = {
    "agent_direct": {
        "tokens": {"input": 9000, "output": 400},
        "tool_calls": 5,
        "latency_ms": 15000,
        "cost": 0.04,
    },
    "ghx": {"tokens": {"input": 3000, "output": 200}, "tool_calls": 2, "latency_ms": 6000},
}
ARGS = ("--ghx-mode=agent_direct,ghx", "--reps=3", "--gate-profile=verify_pr")
ITEMS = 24  # 4 scenarios x 2 modes x 3 reps


def _behaviour(failing: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every item passes and the gate passes; ``failing`` is repo-view-004's baseline."""
    table: dict[str, Any] = {"*": EFFICIENT}
    if failing is not None:
        table["repo-view-004"] = {
            **EFFICIENT,
            "agent_direct": {**EFFICIENT["agent_direct"], **failing},
        }
    return table


def _report(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run(sys.executable, "-m", "pytest_ghxbench", "report", *args)


def _verdict(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.outlines if line.startswith("ghxbench verdict:")]
    return line


def test_a_complete_run_passes_and_says_it_is_complete(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=_behaviour())
    result = pytester.runpytest_subprocess(*ARGS)
    assert result.ret == 0, result.stdout.str()
    assert "PASSED" in _verdict(result)
    assert summary(pytester)["run"]["completeness"] == {
        "expected_items": ITEMS,
        "ran_items": ITEMS,
        "skipped_items": 0,
        "missing_items": 0,
        "reason": "",
        "complete": True,
        "skipped_ids": [],
    }


def test_x_stopping_at_a_failure_is_incomplete_not_a_pass(pytester: pytest.Pytester) -> None:
    # repo-view-004[agent_direct-r1] is item 19: the rows before it pass the gate on their own
    setup_project(pytester, SCENARIOS, behaviour=_behaviour({"raise": "boom", "only_iteration": 1}))
    result = pytester.runpytest_subprocess(*ARGS, "-x")
    assert len(read_rows(pytester)) == 19
    assert result.ret == 1, result.stdout.str()
    verdict = _verdict(result)
    assert "PASSED" not in verdict
    assert "incomplete: 19 of 24 items ran (stopping after 1 failures)" in verdict
    result.stdout.fnmatch_lines(["*5 item(s) without a row: repo-view-004[[]agent_direct-r2[]]*"])
    run = summary(pytester)["run"]
    assert run["completeness"] == {
        "expected_items": ITEMS,
        "ran_items": 19,
        "skipped_items": 0,
        "missing_items": 5,
        "reason": "stopping after 1 failures",
        "complete": False,
        "skipped_ids": [],
    }
    gate = summary(pytester)["gate"]
    assert gate["evaluated"] and not gate["passed"]
    assert all(check["passed"] for check in gate["checks"])  # the checks are as computed
    assert gate["reason"].startswith("incomplete: 19 of 24 items ran")
    assert run["exit_status"] == 1

    # ghxbench report recomputes the gate from the rows: it must not read as a pass either
    report = _report(pytester, "--latest", "--gate")
    assert report.ret == 1
    report.stderr.fnmatch_lines(
        [
            "ghxbench report: WARNING: run run_* is incomplete: 19 of 24 items ran "
            "(stopping after 1 failures)"
        ]
    )
    (line,) = [line for line in report.outlines if line.startswith("ghxbench verdict:")]
    assert "PASSED" not in line and " FAILED (run run_" in line
    assert "is incomplete: 19 of 24 items ran" in line and line.endswith(
        "-> exit 1 (gate required)"
    )


def test_maxfail_stopping_the_run_is_incomplete(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=_behaviour({"raise": "boom"}))
    result = pytester.runpytest_subprocess(*ARGS, "--maxfail=2")
    assert result.ret == 1, result.stdout.str()
    assert "incomplete: 20 of 24 items ran (stopping after 2 failures)" in _verdict(result)


def test_an_interrupt_keeps_its_exit_status_and_says_incomplete(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=_behaviour())
    pytester.makeconftest(
        CONFTEST
        + textwrap.dedent(
            """
            import pytest

            @pytest.hookimpl(tryfirst=True)
            def pytest_runtest_call(item):
                if item.name == "repo-view-003[agent_direct-r1]":
                    raise KeyboardInterrupt
            """
        )
    )
    result = pytester.runpytest_subprocess(*ARGS)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "incomplete: 12 of 24 items ran (interrupted)" in _verdict(result)
    assert summary(pytester)["run"]["completeness"]["missing_items"] == 12


def test_deliberate_skips_and_deselection_leave_the_run_complete(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=_behaviour())
    pytester.makeconftest(
        CONFTEST
        + textwrap.dedent(
            """
            import pytest

            def pytest_runtest_setup(item):
                if "repo-view-004" in item.name:
                    pytest.skip("not this one")
            """
        )
    )
    result = pytester.runpytest_subprocess(*ARGS, "-k", "not repo-view-003")
    assert result.ret == 0, result.stdout.str()
    assert "PASSED" in _verdict(result)
    completeness = summary(pytester)["run"]["completeness"]
    skipped = completeness.pop("skipped_ids")
    assert completeness == {
        "expected_items": 18,  # repo-view-003 deselected: not part of the run
        "ran_items": 12,
        "skipped_items": 6,
        "missing_items": 0,
        "reason": "",
        "complete": True,
    }
    assert len(skipped) == 6 and all("repo-view-00" in item for item in skipped)


def test_xdist_giving_up_on_crashed_workers_is_incomplete(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    behaviour = {"*": EFFICIENT, "repo-view-001": {**EFFICIENT, "ghx": {"exit": 3}}}
    setup_project(pytester, SCENARIOS, behaviour=behaviour)
    result = pytester.runpytest_subprocess(
        *ARGS, "-p", "xdist", "-n", "2", "--max-worker-restart=0"
    )
    assert result.ret == 1, result.stdout.str()
    rows = read_rows(pytester)
    crashed = [r for r in rows if r["item_id"].endswith("repo-view-001[ghx-r1]")]
    assert len(crashed) == 1 and "crashed" in crashed[0]["error"]["message"]
    completeness = summary(pytester)["run"]["completeness"]
    assert completeness["ran_items"] == len(rows) < ITEMS
    assert completeness["missing_items"] == ITEMS - len(rows)
    assert "xdist worker(s) crashed" in completeness["reason"]
    assert f"incomplete: {len(rows)} of 24 items ran" in _verdict(result)
    assert completeness["complete"] is False


def test_ghxbench_report_tells_an_unfinished_run_from_a_complete_one(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=_behaviour())
    assert pytester.runpytest_subprocess(*ARGS).ret == 0
    complete = _report(pytester, "--latest", "--gate", "--summary-json", "again.json")
    assert complete.ret == 0 and "WARNING" not in complete.stderr.str()
    again = json.loads((pytester.path / "again.json").read_text())
    assert again["run"]["completeness"]["complete"] is True
    # a run killed before its end has rows but no summary
    (pytester.path / ".ghxbench" / "runs" / "latest" / "summary.json").unlink()
    unfinished = _report(pytester, "--latest", "--gate")
    assert unfinished.ret == 1
    unfinished.stderr.fnmatch_lines(
        ["*WARNING: run run_* did not finish (no summary.json): its rows may not be all*"]
    )
    assert "PASSED" not in unfinished.stdout.str()
