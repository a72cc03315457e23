"""The ``openai`` adapter (our own tool-calling loop) measured like the real CLIs: the plugin,
the sandbox's real gh and MCP server, and a scripted chat-completions model that thinks for a
fixed time per answer."""

from __future__ import annotations

import json

import pytest

from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_chat import ChatCompletions
from tests.agent_clis.harness import CANARY_KEY, run_pr_view, written_text
from tests.agent_clis.pr_view import pr_view_script
from tests.agent_clis.scripted import Script, ScriptedModel, Usage

THINK_S = 0.4
USAGE = Usage(input=900, output=40, cache_read=300, reasoning=12)
CONFIG = '[tool.ghxbench.adapters.openai]\nmodel = "local/scripted-chat-1"\n'


def run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    serve_model: Serve,
    mode: str,
    script: Script,
) -> tuple[dict[str, object], ScriptedModel]:
    model = serve_model(ChatCompletions(), script, USAGE, THINK_S)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
    _, rows = run_pr_view(pytester, adapter="openai", mode=mode, config=CONFIG)
    (row,) = [r for r in rows if r["mode"] == mode]
    return row, model


def test_latency_starts_when_the_model_is_first_asked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve
) -> None:
    direct, direct_model = run(
        pytester, monkeypatch, serve_model, "agent_direct", pr_view_script("agent_direct")
    )
    mcp, mcp_model = run(pytester, monkeypatch, serve_model, "mcp", pr_view_script("mcp"))
    for row, model in ((direct, direct_model), (mcp, mcp_model)):
        assert row["success"] is True, row["error"]
        answers = model.answers
        assert answers == 2 and row["api_calls"] == answers
        assert row["tokens"] == {
            "input": 900 * answers, "output": 40 * answers, "reasoning": 12 * answers,
            "cache_read": 300 * answers, "cache_write": 0, "total": 1252 * answers,
        }  # fmt: skip
        assert row["latency_ms_wall"] >= answers * THINK_S * 1000
        assert row["startup_ms"] is not None and row["startup_ms"] >= 0
    # Starting GitHub's MCP server is startup, never latency: what remains, model time plus
    # tool time, is alike for the same script.
    assert mcp["startup_ms"] > direct["startup_ms"]
    model_ms = [row["timing_breakdown"]["model_ms"] for row in (direct, mcp)]  # type: ignore[index]
    assert abs(model_ms[0] - model_ms[1]) < 300, model_ms
    assert CANARY_KEY not in written_text(pytester.path)


def test_starting_the_jail_is_startup_not_latency(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    serve_model: Serve,
    slow_jail: float,
) -> None:
    for mode in ("agent_direct", "mcp"):  # its jailed shell, its jailed MCP server
        row, model = run(pytester, monkeypatch, serve_model, mode, pr_view_script(mode))
        assert row["success"] is True, row["error"]
        assert row["startup_ms"] >= slow_jail * 1000  # type: ignore[operator]
        assert model.answers == 2
        timing: dict[str, float] = row["timing_breakdown"]  # type: ignore[assignment]
        spent = timing["model_ms"] + timing["tool_ms"]  # the model's answers and the tools
        assert row["latency_ms_wall"] < spent + slow_jail * 1000, row  # type: ignore[operator]


def test_gh_in_an_mcp_item_is_a_failure(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve
) -> None:
    script = pr_view_script("mcp", tool_mode="agent_direct")
    row, model = run(pytester, monkeypatch, serve_model, "mcp", script)
    assert row["success"] is False
    first_result = model.exchanges[-1].turn.tool_results[0]
    assert "unknown tool" in first_result or "not found" in first_result.lower(), first_result
    assert json.loads(model.exchanges[-1].action.text)["ok"] is False  # type: ignore[union-attr]
