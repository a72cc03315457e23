"""An adapter that reports an impossible number (a negative latency or cost, NaN, infinity)
gets a runner-error row naming the field: the number never counts as a win in the gate, and the
rows file stays standard JSON."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from pytest_ghxbench.api import RunResult, Tokens, ToolCall
from pytest_ghxbench.attempt.rows import result_problem
from tests.plugin.support import atomic, read_rows, setup_project

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]


def cheaper_ghx(**ghx: Any) -> dict[str, Any]:
    """ghx is cheaper than agent_direct on every measure, and reports ``ghx`` besides."""
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
                **ghx,
            },
        }
    }


def _no_constants(name: str) -> Any:
    raise AssertionError(f"the rows file holds {name}, which is not standard JSON")


@pytest.mark.parametrize(
    ("ghx", "message"),
    [
        (
            {"latency_ms": -5},
            "adapter returned an impossible latency_ms=-5.0: must be finite and >= 0",
        ),
        ({"cost": -0.5}, "adapter returned an impossible cost_usd=-0.5: must be finite and >= 0"),
        (
            {"latency_ms": math.nan},
            "adapter returned an impossible latency_ms=nan: must be finite and >= 0",
        ),
        (
            {"cost": math.inf},
            "adapter returned an impossible cost_usd=inf: must be finite and >= 0",
        ),
    ],
)
def test_an_impossible_number_is_a_runner_error_and_the_gate_cannot_pass(
    pytester: pytest.Pytester, ghx: dict[str, Any], message: str
) -> None:
    # json.dumps writes NaN and Infinity, and the scripted adapter's json.loads reads them back.
    setup_project(pytester, SCENARIOS, behaviour=cheaper_ghx(**ghx))

    result = pytester.runpytest_subprocess(
        "--ghx-mode=agent_direct,ghx",
        "--reps=3",
        "--gate-profile=verify_pr",
        "-p",
        "no:cacheprovider",
    )

    assert result.ret != 0
    result.stdout.no_fnmatch_line("*verdict*PASSED*")
    result.stdout.fnmatch_lines(["*verdict*FAILED*"])
    rows_file = next((pytester.path / ".ghxbench" / "runs").glob("run_*/rows.jsonl"))
    for line in rows_file.read_text().splitlines():
        json.loads(line, parse_constant=_no_constants)
    rows = read_rows(pytester)
    ghx_rows = [row for row in rows if row["mode"] == "ghx"]
    assert len(ghx_rows) == 12
    for row in ghx_rows:
        assert row["error"] == {"type": "runner_error", "message": message}
        assert (row["success"], row["output_valid"]) == (False, False)
    assert all(row["error"] is None for row in rows if row["mode"] == "agent_direct")
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"latency_ms": -5}, "latency_ms=-5.0: must be finite and >= 0"),
        ({"startup_ms": -0.1}, "startup_ms=-0.1: must be finite and >= 0"),
        ({"sdk_latency_ms": math.inf}, "sdk_latency_ms=inf: must be finite and >= 0"),
        ({"cost_usd": -math.inf}, "cost_usd=-inf: must be finite and >= 0"),
        ({"latency_ms": 10**400}, "latency_ms=<an integer of 1329 bits>: must be finite"),
        ({"api_calls": -1}, "api_calls=-1.0: must be >= 0"),
        ({"internal_retry_count": -2}, "internal_retry_count=-2.0: must be >= 0"),
        ({"timing_breakdown": {"tool_ms": math.nan}}, "timing_breakdown['tool_ms']=nan: must be"),
        (
            {"tool_calls": [ToolCall("a"), ToolCall("b", duration_ms=-3)]},
            "tool_calls[1].duration_ms=-3.0: must be finite and >= 0",
        ),
        (
            {"tokens": Tokens.model_construct(input=-4, total=0)},
            "tokens.input=-4.0: must be a whole number >= 0",
        ),
    ],
)
def test_each_impossible_number_is_named(fields: dict[str, Any], expected: str) -> None:
    problem = result_problem(RunResult(final_text="ok", **fields))
    assert problem is not None
    assert problem.startswith("adapter returned an impossible " + expected), problem


def test_zero_is_possible() -> None:
    zero = RunResult(
        final_text="ok",
        cost_usd=0,
        latency_ms=0.0,
        startup_ms=0,
        sdk_latency_ms=0.0,
        api_calls=0,
        timing_breakdown={"tool_ms": 0},
        tool_calls=[ToolCall("a", duration_ms=0.0)],
    )
    assert result_problem(zero) is None


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"latency_ms": 11_000.5}, "latency_ms=11000.5: longer than the item's deadline"),
        ({"startup_ms": 1e300}, "startup_ms=1e+300: longer than the item's deadline"),
        ({"sdk_latency_ms": 12_000}, "sdk_latency_ms=12000.0: longer than the item's deadline"),
        (
            {"tool_calls": [ToolCall("a", duration_ms=20_000)]},
            "tool_calls[0].duration_ms=20000.0: longer than the item's deadline "
            "(timeout_ms=10000, + 1 s)",
        ),
        ({"cost_usd": 1000.01}, "cost_usd=1000.01: more than $1,000 for one item"),
        ({"tokens": Tokens(cache_read=10**8 + 1)}, "tokens.cache_read=100000001.0: more than"),
        ({"tokens": Tokens(input=10**8, output=1)}, "tokens.total=100000001.0: more than 100,000"),
    ],
)
def test_numbers_an_adapter_cannot_have_measured_are_named(
    fields: dict[str, Any], expected: str
) -> None:
    problem = result_problem(RunResult(final_text="ok", **fields), timeout_ms=10_000)
    assert problem is not None
    assert problem.startswith("adapter returned an impossible " + expected), problem


def test_an_adapters_own_error_keeps_the_durations_it_measured() -> None:
    """An agent stopped at the deadline is reported as such (its group got a grace to stop),
    not as an impossible latency; tokens and cost are bounded all the same."""
    late = RunResult(error="still running at the item deadline", latency_ms=13_500)
    assert result_problem(late, timeout_ms=10_000) is None
    costly = RunResult(error="stopped", cost_usd=5000.0)
    assert "more than $1,000" in str(result_problem(costly, timeout_ms=10_000))


def test_the_limits_themselves_are_possible() -> None:
    at_limit = RunResult(
        final_text="ok",
        latency_ms=11_000,
        cost_usd=1000,
        tokens=Tokens(input=10**8 - 5, output=5),
        tool_calls=[ToolCall("a", duration_ms=11_000)],
    )
    assert result_problem(at_limit, timeout_ms=10_000) is None


def test_a_baseline_claiming_1e300_ms_and_dollars_does_not_pass_the_gate(
    pytester: pytest.Pytester,
) -> None:
    """The probe: the baseline reported latency and cost no item can have; every such row is a
    runner error naming the field, and the required gate fails instead of passing."""
    behaviour = cheaper_ghx()
    behaviour["*"]["agent_direct"].update(latency_ms=1e300, cost=1e300)
    setup_project(pytester, SCENARIOS, behaviour=behaviour)
    result = pytester.runpytest(
        "--ghx-mode=agent_direct,ghx", "--reps=3", "--gate-profile=verify_pr"
    )
    assert result.ret == 1
    rows = read_rows(pytester)
    baseline = [row for row in rows if row["mode"] == "agent_direct"]
    assert len(baseline) == 12
    for row in baseline:
        assert row["error"]["type"] == "runner_error"
        assert (
            "impossible cost_usd=1e+300: more than $1,000 for one item" in row["error"]["message"]
        )
    result.stdout.fnmatch_lines(["*ghxbench verdict: gate verify_pr*FAILED*-> exit 1*"])
