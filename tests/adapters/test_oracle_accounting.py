"""The oracle's transcript, token accounting, price, latency, determinism and tool surface."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pytest_ghxbench.adapters.oracle.adapter import (
    OracleAdapter,
    OracleStepError,
    resolve_placeholders,
    tool_surface_tokens,
)
from pytest_ghxbench.adapters.oracle.costs import cost_usd, model_time_ms
from pytest_ghxbench.adapters.oracle.transcript import Transcript, TurnTokens, account
from pytest_ghxbench.api import RunRequest, Tokens
from pytest_ghxbench.scenario.loader import load_scenario_file
from pytest_ghxbench.tokens import count_tokens
from tests.adapters.test_oracle_scenarios import run_oracle
from tests.paths import EXTERNAL_SCENARIOS

needs_external = pytest.mark.skipif(
    not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not beside the checkout"
)


def test_token_accounting_of_a_tiny_transcript_by_hand() -> None:
    # Every word below is one o200k token; the arguments string '{"command": "ls"}' is six.
    for word in ("hello", "system", "user", "assistant", "tool", "bash"):
        assert count_tokens(word) == 1
    assert count_tokens('{"command": "ls"}') == 6
    transcript = Transcript(
        tools=[],
        messages=[{"role": "system", "content": "hello"}, {"role": "user", "content": "hello"}],
    )
    transcript.tool_turn("bash", {"command": "ls"}, "hello")
    transcript.answer("hello")
    tokens, turns = account(transcript.tools, transcript.messages)
    # Turn 1 input: priming 3 + two messages of (3 framing + 1 role + 1 content) = 13.
    # Turn 1 output: 3 framing + 1 role + tool call (3 + 1 name + 6 arguments) = 14.
    # Turn 2 input: 3 + 5 + 5 + 14 + tool result (3 + 1 + 1) = 32, of which 13 were sent before.
    # Turn 2 output: the answer, 3 + 1 + 1 = 5.
    assert turns == [TurnTokens(input=13, cache_read=0, output=14), TurnTokens(32, 13, 5)]
    assert tokens == Tokens(input=13 + (32 - 13), cache_read=13, output=14 + 5)


def test_tool_definitions_count_in_every_turn() -> None:
    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hello"}]
    bare, _ = account([], messages)
    tools = [{"type": "function", "function": {"name": "bash"}}]
    with_tools, _ = account(tools, messages)
    # '{"type":"function","function":{"name":"bash"}}' as compact JSON
    assert with_tools.input - bare.input == count_tokens(
        '[{"type":"function","function":{"name":"bash"}}]'
    )


def test_reference_price_and_model_time_by_hand() -> None:
    tokens = Tokens(input=1_000_000, cache_read=2_000_000, output=100_000)
    # 1M * $2.50 + 2M * $1.25 + 0.1M * $10 per million
    assert cost_usd(tokens) == pytest.approx(2.50 + 2.50 + 1.00)
    # 2 turns * 400 ms + 1M / 5000 s + 2M / 50000 s + 100k / 80 s
    assert model_time_ms(tokens, 2) == pytest.approx(800 + 200_000 + 40_000 + 1_250_000)


def test_placeholders_keep_the_bound_type_when_exact() -> None:
    bound = {"prNumber": 7, "owner": "acme", "labels": ["bug"]}
    resolved = resolve_placeholders(
        {"n": "{{prNumber}}", "l": "{{ labels }}", "text": "PR #{{prNumber}} of {{owner}}"}, bound
    )
    assert resolved == {"n": 7, "l": ["bug"], "text": "PR #7 of acme"}
    with pytest.raises(OracleStepError, match=r"oracle\[0\]\.input\.x: placeholder \{\{nope\}\}"):
        resolve_placeholders({"x": "{{nope}}"}, bound, "oracle[0].input")


@needs_external
@pytest.mark.parametrize("mode", ["ghx", "agent_direct", "mcp"])
def test_same_inputs_give_identical_results_apart_from_timing(mode: str, tmp_path: Path) -> None:
    scenario = load_scenario_file(EXTERNAL_SCENARIOS / "issue-close-001.json")
    first, _, _ = run_oracle(scenario, mode, tmp_path / "first")
    second, _, _ = run_oracle(scenario, mode, tmp_path / "second")
    assert first.error is None and second.error is None
    assert first.tokens == second.tokens and first.tokens.input > 0
    assert first.final_text == second.final_text
    assert first.cost_usd == second.cost_usd
    assert first.transcript == second.transcript
    untimed = [dataclasses.replace(c, duration_ms=None) for c in first.tool_calls]
    assert untimed == [dataclasses.replace(c, duration_ms=None) for c in second.tool_calls]
    assert first.timing_breakdown is not None and second.timing_breakdown is not None
    assert first.timing_breakdown["model_ms"] == second.timing_breakdown["model_ms"]


@needs_external
def test_ghx_answer_carries_the_route_and_one_bash_call(tmp_path: Path) -> None:
    scenario = load_scenario_file(EXTERNAL_SCENARIOS / "pr-view-001.json")
    result, _, _ = run_oracle(scenario, "ghx", tmp_path)
    assert [c.name for c in result.tool_calls] == ["bash"]
    command = result.tool_calls[0].arguments["command"]
    assert command.startswith("ghx run pr.view --input ") and command.endswith("--verbose")
    assert '"route_used":' in (result.final_text or "")
    assert result.api_calls == 2  # the tool call, then the answer
    assert result.timing_breakdown is not None
    assert result.latency_ms == pytest.approx(
        result.timing_breakdown["model_ms"] + result.timing_breakdown["tool_ms"], abs=0.01
    )


def test_tool_surface_is_smallest_for_ghx_and_largest_for_mcp() -> None:
    sizes = {mode: tool_surface_tokens(mode) for mode in ("ghx", "agent_direct", "mcp")}
    assert sizes["ghx"] < sizes["agent_direct"] < sizes["mcp"]
    # The pinned server lists 85 tools: far more than either CLI's help text.
    assert sizes["mcp"] > 10 * sizes["agent_direct"]
    with pytest.raises(ValueError, match="does not drive mode 'carrier-pigeon'"):
        tool_surface_tokens("carrier-pigeon")


def test_without_a_sandbox_world_the_oracle_reports_a_runner_error() -> None:
    request = RunRequest(
        scenario=None,
        mode="ghx",
        prompt="p",
        instructions="",
        timeout_s=1.0,
        iteration=1,
        workdir=Path("."),
        env={},
        backend=None,
    )
    result = OracleAdapter().run(request)
    assert result.error is not None and "--ghx-backend=sandbox" in result.error


def test_agent_direct_tool_is_described_with_the_real_gh_help() -> None:
    from pytest_ghxbench.adapters.oracle.adapter import tool_definitions

    described = tool_definitions("agent_direct")[0]["function"]["description"]
    assert "Work seamlessly with GitHub from the command line." in described
    assert "gh <command> <subcommand> [flags]" in described
