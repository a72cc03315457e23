"""The claude-code adapter with the real ``claude`` CLI against a scripted Anthropic model.

Claude Code reaches the model through ``ANTHROPIC_BASE_URL`` with ``ANTHROPIC_API_KEY``; with
``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (which must pass through the adapter's cleaned
environment) it sends nothing but the conversation's ``POST /v1/messages?beta=true``, so the
scripted server's count is the number of model requests. One plugin run per test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# Imported before any in-process run: a run's modules are unloaded after it, and
# cryptography's bindings do not survive being imported a second time in one process.
import pytest_ghxbench.sandbox.api.tls  # noqa: F401
from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_anthropic import SCRIPTED_MODEL, AnthropicMessages
from tests.agent_clis.harness import CANARY_KEY, agent_cli, run_pr_view, written_text
from tests.agent_clis.pr_view import GH_COMMAND, GHX_COMMAND, MCP_TOOL, pr_view_script
from tests.agent_clis.scripted import (
    Action,
    Failure,
    Script,
    ScriptedModel,
    Turn,
    Usage,
)

pytestmark = pytest.mark.timeout(900)  # a hang guard: a busy machine takes minutes

USAGE = Usage(input=1000, output=50, cache_read=200, cache_write=300, reasoning=20)
THINK_S = 0.4
MCP_NAME = f"mcp__mcp__{MCP_TOOL}"


@pytest.fixture
def claude(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve
) -> tuple[Any, str]:
    """``start(script)``: a scripted model the real Claude Code is pointed at; and the binary."""
    binary = agent_cli("claude")

    def start(script: Script) -> ScriptedModel:
        model = serve_model(AnthropicMessages(), script, USAGE, THINK_S)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY_KEY)
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")  # a refused request fails at once
        return model

    return start, binary


def pyproject(binary: str) -> str:
    return (
        "[tool.ghxbench.adapters.claude-code]\n"
        f"binary = {json.dumps(binary)}\n"
        f'model = "anthropic/{SCRIPTED_MODEL}"\n'
    )


def run(
    pytester: pytest.Pytester, claude: Any, mode: str, script: Script
) -> tuple[pytest.RunResult, list[dict[str, Any]], ScriptedModel]:
    """One run of the plugin; ``mode`` may list several modes."""
    start, binary = claude
    model = start(script)
    result, rows = run_pr_view(pytester, adapter="claude-code", mode=mode, config=pyproject(binary))
    assert len(rows) == len(mode.split(",")), result.stdout.str()[-3000:]
    assert CANARY_KEY not in written_text(pytester.path)
    # the passed-through setting took: no probe, no side request, the key in x-api-key only
    assert model.other_requests == []
    for exchange in model.exchanges:
        assert exchange.headers.get("x-api-key") == CANARY_KEY
        assert exchange.body["model"] == SCRIPTED_MODEL and exchange.body["stream"] is True
        assert exchange.body["messages"][0]["role"] == "user"
    return result, rows, model


def transcript(root: Path, mode: str) -> dict[str, Any]:
    """The transcript record of the last attempt of the run's item of ``mode``."""
    records = [
        record
        for path in (root / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
        for line in path.read_text().splitlines()
        for record in [json.loads(line)]
        if record["mode"] == mode
    ]
    assert records
    found: dict[str, Any] = max(records, key=lambda record: record["attempt"])
    return found


def attempts(row: dict[str, Any]) -> int:
    """How many times the item ran (a failed pr-view item is retried once)."""
    return int(row["external_retry_count"]) + 1


def assert_measured(row: dict[str, Any], answers: int) -> None:
    """Exact usage for ``answers`` model requests, and the timing fields."""
    assert row["api_calls"] == answers
    assert row["tokens"] == {
        "input": answers * USAGE.input,
        "output": answers * USAGE.output,
        "reasoning": answers * USAGE.reasoning,
        "cache_read": answers * USAGE.cache_read,
        "cache_write": answers * USAGE.cache_write,
        "total": answers
        * (USAGE.input + USAGE.output + USAGE.reasoning + USAGE.cache_read + USAGE.cache_write),
    }
    assert row["latency_ms_wall"] >= answers * THINK_S * 1000
    assert row["startup_ms"] > 0
    assert row["sdk_latency_ms"] is not None and row["sdk_latency_ms"] > 0
    assert row["model"]["provider_id"] == "anthropic"


def test_agent_direct_and_mcp_measure_alike(pytester: pytest.Pytester, claude: Any) -> None:
    direct_script, mcp_script = pr_view_script("agent_direct"), pr_view_script("mcp")

    def script(turn: Turn) -> Action:  # the item's mode shows in the tools it is offered
        return (direct_script if "Bash" in turn.tool_names else mcp_script)(turn)

    _, rows, model = run(pytester, claude, "agent_direct,mcp", script)
    direct, mcp = sorted(rows, key=lambda row: row["mode"] != "agent_direct")
    direct_asks = [e for e in model.exchanges if "Bash" in e.turn.tool_names]
    mcp_asks = [e for e in model.exchanges if "Bash" not in e.turn.tool_names]
    assert (len(direct_asks), len(mcp_asks)) == (2, 2)

    assert direct["success"] is True, direct
    assert_measured(direct, len(direct_asks))
    # Bash is the one built-in tool (beside the runtime's placeholder for deferred tools)
    assert [n for n in direct_asks[0].turn.tool_names if not n.startswith("Deferred")] == ["Bash"]
    (call,) = transcript(pytester.path, "agent_direct")["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == ("Bash", GH_COMMAND, True)

    assert mcp["success"] is True, mcp
    assert_measured(mcp, len(mcp_asks))
    offered = [n for n in mcp_asks[0].turn.tool_names if not n.startswith("Deferred")]
    assert MCP_NAME in offered and all(n.startswith("mcp__mcp__") for n in offered)
    (mcp_call,) = transcript(pytester.path, "mcp")["tool_calls"]
    assert mcp_call["name"] == MCP_NAME and mcp_call["ok"] is True
    # starting the MCP server is startup, not latency: the same script takes the same time,
    # but for running its tool (gh is a process; on a loaded machine it may take a second)
    direct_model_ms = direct["latency_ms_wall"] - call["duration_ms"]
    mcp_model_ms = mcp["latency_ms_wall"] - mcp_call["duration_ms"]
    assert abs(mcp_model_ms - direct_model_ms) < 500, (direct, mcp, call, mcp_call)


def test_starting_the_jail_is_startup_not_latency(
    pytester: pytest.Pytester, claude: Any, slow_jail: float
) -> None:
    _, rows, model = run(pytester, claude, "agent_direct", pr_view_script("agent_direct"))
    (row,) = rows
    assert row["success"] is True, row
    assert row["startup_ms"] >= slow_jail * 1000
    assert model.answers == 2
    # the runtime's own account of its work, which starts once it is up in its jail
    assert row["latency_ms_wall"] < row["sdk_latency_ms"] + slow_jail * 1000, row


def test_ghx_item_runs_ghx(pytester: pytest.Pytester, claude: Any) -> None:
    _, (row,), model = run(pytester, claude, "ghx", pr_view_script("ghx"))
    assert row["success"] is True, row
    assert_measured(row, model.answers)
    (call,) = transcript(pytester.path, "ghx")["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == ("Bash", GHX_COMMAND, True)


def test_gh_in_an_mcp_item_is_refused_and_fails(pytester: pytest.Pytester, claude: Any) -> None:
    script = pr_view_script("mcp", tool_mode="agent_direct")
    _, (row,), model = run(pytester, claude, "mcp", script)
    assert "Bash" not in model.exchanges[0].turn.tool_names
    assert row["success"] is False
    assert model.answers == 2 * attempts(row) and row["api_calls"] == 2
    (call,) = transcript(pytester.path, "mcp")["tool_calls"]
    assert call["name"] == "Bash" and call["ok"] is False
    assert "No such tool available: Bash" in call["output"]


def test_a_model_api_error_is_a_runner_error(pytester: pytest.Pytester, claude: Any) -> None:
    message = "scripted: the service is down for maintenance"

    def refuse(turn: Turn) -> Failure:
        return Failure(500, message)

    _, (row,), model = run(pytester, claude, "agent_direct", refuse)
    # one request per attempt: CLAUDE_CODE_MAX_RETRIES=0 passed through, the runtime did not retry
    assert model.answers == attempts(row)
    assert row["success"] is False
    assert row["error"]["type"] == "runner_error"
    assert message in row["error"]["message"]
    assert row["api_calls"] == 1  # the refused request
