"""The gemini adapter with the real ``gemini`` CLI against a scripted Gemini API model.

Gemini CLI reaches the model through ``GOOGLE_GEMINI_BASE_URL`` with ``GEMINI_API_KEY`` (sent as
``x-goog-api-key``); with the item's settings (no telemetry, usage statistics, update check or
IDE) and an explicit model it sends nothing but the conversation's
``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``, so the scripted server's count
is the number of model requests. One plugin run per test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# Imported before any in-process run: a run's modules are unloaded after it, and
# cryptography's bindings do not survive being imported a second time in one process.
import pytest_ghxbench.sandbox.api.tls  # noqa: F401
from pytest_ghxbench.adapters.gemini.adapter import GeminiAdapter
from pytest_ghxbench.adapters.gemini.settings import item_settings, workspace_override
from pytest_ghxbench.adapters.gemini.stream import api_error, retry_notices, stats_tokens
from pytest_ghxbench.api import BUILTIN_MODE_SPECS, AdapterUnavailable, ModeSpec
from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_gemini import SCRIPTED_MODEL, SHELL_TOOL, GeminiApi, mcp_tool_name
from tests.agent_clis.harness import CANARY_KEY, agent_cli, run_pr_view, written_text
from tests.agent_clis.pr_view import GH_COMMAND, GHX_COMMAND, MCP_TOOL, pr_view_script
from tests.agent_clis.scripted import (
    Action,
    Failure,
    Script,
    ScriptedModel,
    Shell,
    Turn,
    Usage,
)
from tests.modes.declared import ACME_AND_LEAN, ACME_COMMAND, acme_or_lean_script, install_acme

pytestmark = pytest.mark.timeout(900)  # a hang guard: a busy machine takes minutes

USAGE = Usage(input=1000, output=50, cache_read=200, reasoning=20)
"""Gemini reports no cache writes (``cache_write`` stays 0)."""
THINK_S = 0.4
MCP_NAME = f"mcp_{MCP_TOOL}"
"""The built-in mcp mode's server is registered as ``mcp``: Gemini CLI offers its tool as
``mcp_get_pull_request`` (it does not double the ``mcp_`` prefix)."""


@pytest.fixture
def gemini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve
) -> tuple[Any, str]:
    """``start(script)``: a scripted model the real Gemini CLI is pointed at; and the binary."""
    binary = agent_cli("gemini")

    def start(script: Script) -> ScriptedModel:
        model = serve_model(GeminiApi(), script, USAGE, THINK_S)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", model.url)
        monkeypatch.setenv("GEMINI_API_KEY", CANARY_KEY)
        for variable in ("GEMINI_MODEL", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
            monkeypatch.delenv(variable, raising=False)
        return model

    return start, binary


def pyproject(binary: str, max_attempts: int | None = None) -> str:
    text = (
        "[tool.ghxbench.adapters.gemini]\n"
        f"binary = {json.dumps(binary)}\n"
        f'model = "google/{SCRIPTED_MODEL}"\n'
    )
    if max_attempts is not None:
        text += f"max_attempts = {max_attempts}\n"
    return text


def run(
    pytester: pytest.Pytester,
    gemini: Any,
    mode: str,
    script: Script,
    max_attempts: int | None = None,
) -> tuple[pytest.RunResult, list[dict[str, Any]], ScriptedModel]:
    """One run of the plugin; ``mode`` may list several modes."""
    start, binary = gemini
    model = start(script)
    result, rows = run_pr_view(
        pytester,
        adapter="gemini",
        mode=mode,
        config=pyproject(binary, max_attempts),
    )
    assert len(rows) == len(mode.split(",")), result.stdout.str()[-3000:]
    assert CANARY_KEY not in written_text(pytester.path)
    # no model listing, routing classifier, telemetry or update check: the model's requests only
    assert model.other_requests == []
    for exchange in model.exchanges:
        assert exchange.headers.get("x-goog-api-key") == CANARY_KEY
        assert "x-gemini-api-privileged-user-id" not in exchange.headers  # usage statistics off
        assert exchange.body["contents"][0]["role"] == "user"
        assert exchange.body["systemInstruction"]["parts"]
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
        "cache_write": 0,
        "total": answers * (USAGE.input + USAGE.output + USAGE.reasoning + USAGE.cache_read),
    }
    # lower bounds only (a busy machine can only add time): every answer took THINK_S
    assert row["latency_ms_wall"] >= answers * THINK_S * 1000
    assert row["startup_ms"] > 0
    assert row["sdk_latency_ms"] >= answers * THINK_S * 1000 - 1
    assert row["model"]["provider_id"] == "google"
    assert row["model"]["model_id"] == SCRIPTED_MODEL


def offered(model: ScriptedModel, shell: bool) -> list[Any]:
    """The model's requests of the items that were (or were not) offered the shell tool."""
    return [e for e in model.exchanges if (SHELL_TOOL in e.turn.tool_names) == shell]


def test_agent_direct_and_mcp_measure_alike(pytester: pytest.Pytester, gemini: Any) -> None:
    direct_script, mcp_script = pr_view_script("agent_direct"), pr_view_script("mcp")

    def script(turn: Turn) -> Action:  # the item's mode shows in the tools it is offered
        return (direct_script if SHELL_TOOL in turn.tool_names else mcp_script)(turn)

    _, rows, model = run(pytester, gemini, "agent_direct,mcp", script)
    direct, mcp = sorted(rows, key=lambda row: row["mode"] != "agent_direct")
    direct_asks, mcp_asks = offered(model, shell=True), offered(model, shell=False)
    assert (len(direct_asks), len(mcp_asks)) == (2, 2)

    assert direct["success"] is True, direct
    assert_measured(direct, len(direct_asks))
    # the shell tool is the one tool: no file tools, no web fetch or search, no subagents
    assert direct_asks[0].turn.tool_names == [SHELL_TOOL]
    (call,) = transcript(pytester.path, "agent_direct")["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == (
        SHELL_TOOL,
        GH_COMMAND,
        True,
    )
    assert '"number":7' in call["output"]  # gh's own output, as the model read it

    assert mcp["success"] is True, mcp
    assert_measured(mcp, len(mcp_asks))
    names = mcp_asks[0].turn.tool_names
    assert MCP_NAME in names and all(name.startswith("mcp_") for name in names), names
    assert "google_web_search" not in names and "web_fetch" not in names
    (mcp_call,) = transcript(pytester.path, "mcp")["tool_calls"]
    assert mcp_call["name"] == MCP_NAME and mcp_call["ok"] is True
    # starting the MCP server is startup, not latency: the same script takes the same time,
    # but for running its tool (gh is a process; on a loaded machine it may take a second)
    direct_model_ms = direct["latency_ms_wall"] - call["duration_ms"]
    mcp_model_ms = mcp["latency_ms_wall"] - mcp_call["duration_ms"]
    assert abs(mcp_model_ms - direct_model_ms) < 500, (direct, mcp, call, mcp_call)


def test_starting_the_jail_is_startup_not_latency(
    pytester: pytest.Pytester, gemini: Any, slow_jail: float
) -> None:
    _, rows, model = run(pytester, gemini, "agent_direct", pr_view_script("agent_direct"))
    (row,) = rows
    assert row["success"] is True, row
    assert row["startup_ms"] >= slow_jail * 1000
    assert model.answers == 2
    # the runtime's own account of its work, which starts once it is up in its jail
    assert row["latency_ms_wall"] < row["sdk_latency_ms"] + slow_jail * 1000, row


def test_ghx_item_runs_ghx(pytester: pytest.Pytester, gemini: Any) -> None:
    _, (row,), model = run(pytester, gemini, "ghx", pr_view_script("ghx"))
    assert row["success"] is True, row
    assert_measured(row, model.answers)
    (call,) = transcript(pytester.path, "ghx")["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == (
        SHELL_TOOL,
        GHX_COMMAND,
        True,
    )


def test_other_commands_are_refused_in_a_cli_item(pytester: pytest.Pytester, gemini: Any) -> None:
    """Only the mode's program runs: gh in agent_direct, not ghx, not gh and then more."""
    refused = [GHX_COMMAND, f"{GH_COMMAND}; cat /etc/hostname"]  # the scenario allows 3 calls
    then = pr_view_script("agent_direct")

    def script(turn: Turn) -> Action:  # three refused commands, then the right one
        done = len(turn.tool_results)
        if done < len(refused):
            return Shell(refused[done])
        return then(Turn(tool_results=turn.tool_results[len(refused) :]))

    _, (row,), model = run(pytester, gemini, "agent_direct", script)
    assert row["success"] is True, row
    assert_measured(row, model.answers)
    calls = transcript(pytester.path, "agent_direct")["tool_calls"]
    assert [c["ok"] for c in calls] == [False, False, True]
    assert all("denied by policy" in c["output"] for c in calls[:2]), calls
    assert calls[2]["arguments"]["command"] == GH_COMMAND


def test_gh_in_an_mcp_item_is_refused_and_fails(pytester: pytest.Pytester, gemini: Any) -> None:
    script = pr_view_script("mcp", tool_mode="agent_direct")
    _, (row,), model = run(pytester, gemini, "mcp", script)
    assert SHELL_TOOL not in model.exchanges[0].turn.tool_names
    assert row["success"] is False
    assert model.answers == 2 * attempts(row) and row["api_calls"] == 2
    (call,) = transcript(pytester.path, "mcp")["tool_calls"]
    assert call["name"] == SHELL_TOOL and call["ok"] is False
    assert f'Tool "{SHELL_TOOL}" not found' in call["output"]


def test_a_model_api_error_is_a_runner_error(pytester: pytest.Pytester, gemini: Any) -> None:
    message = "scripted: the service is down for maintenance"

    def refuse(turn: Turn) -> Failure:
        return Failure(500, message)

    _, (row,), model = run(pytester, gemini, "agent_direct", refuse, max_attempts=1)
    # one request per attempt: max_attempts = 1 reached the runtime, which did not retry
    assert model.answers == attempts(row)
    assert row["success"] is False
    assert row["error"]["type"] == "runner_error"
    assert message in row["error"]["message"] and "HTTP 500" in row["error"]["message"]
    assert row["api_calls"] == 1  # the refused request
    assert row["tokens"]["total"] == 0


def test_a_retried_request_is_a_model_request(pytester: pytest.Pytester, gemini: Any) -> None:
    answer = pr_view_script("agent_direct")
    failed: list[int] = []

    def flaky(turn: Turn) -> Action:  # the first request fails, Gemini CLI retries it
        if not failed:
            failed.append(1)
            return Failure(503, "scripted: overloaded, try again")
        return answer(turn)

    _, (row,), model = run(pytester, gemini, "agent_direct", flaky, max_attempts=2)
    assert row["success"] is True, row
    assert model.answers == 3
    assert row["api_calls"] == 3 and row["internal_retry_count"] == 1
    # the refused request has no usage: the tokens are those of the two answers
    assert row["tokens"]["total"] == 2 * (USAGE.input + USAGE.output + USAGE.reasoning + 200)


# The parts that need no CLI: each has a case that must fail the check.


def test_settings_follow_the_kind_not_the_name() -> None:
    acme = ModeSpec("acme", "cli", program="/opt/acme/bin/acme")
    assert item_settings(acme)["tools"]["core"] == ["run_shell_command(acme)"]
    assert "mcpServers" not in item_settings(acme)
    lean = ModeSpec("mcp_lean", "mcp", command=("server",))
    settings = item_settings(lean, ("/bin/launcher", ["stdio"], {}))
    assert settings["tools"]["core"] == ["mcp_*"]
    assert settings["mcpServers"] == {
        "mcp_lean": {"command": "/bin/launcher", "args": ["stdio"], "env": {}, "trust": True}
    }
    assert settings["mcp"] == {"allowed": ["mcp_lean"]}
    with pytest.raises(ValueError):
        item_settings(BUILTIN_MODE_SPECS["mcp"])  # kind mcp without its server
    with pytest.raises(ValueError):
        item_settings(ModeSpec("bad", "cli", program="gh; rm -rf /"))


def test_usage_and_failures_read_as_the_cli_reports_them() -> None:
    stats = {"total_tokens": 1270, "input_tokens": 1200, "output_tokens": 50, "cached": 200}
    tokens = stats_tokens({**stats, "input": 1000})
    assert (tokens.input, tokens.cache_read, tokens.output, tokens.reasoning) == (1000, 200, 50, 20)
    assert stats_tokens(stats).total == 1270
    body = '{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}'
    assert api_error(f"[API Error: {body}]") == "HTTP 429 RESOURCE_EXHAUSTED: slow down"
    assert api_error("Loop detected, stopping execution") is None
    stderr = (
        "Attempt 1 failed with status 500. Retrying with backoff... _ApiError: {}\n"
        "Attempt 2 failed: quota. Retrying after 1200ms...\n"
        "Attempt 3 failed: boom. Max attempts reached\n"
    )
    assert retry_notices(stderr) == 2


def test_declared_modes_are_driven_by_kind(pytester: pytest.Pytester, gemini: Any) -> None:
    """A team's CLI (kind cli, ``acme``) and a narrowed GitHub server (kind mcp, ``mcp_lean``):
    the shell for acme alone, the server registered under the mode's name."""
    install_acme(pytester.path)
    start, binary = gemini
    model = start(acme_or_lean_script(SHELL_TOOL))
    config = pyproject(binary) + ACME_AND_LEAN
    result, rows = run_pr_view(pytester, adapter="gemini", mode="acme,mcp_lean", config=config)
    assert len(rows) == 2, result.stdout.str()[-3000:]
    assert CANARY_KEY not in written_text(pytester.path)
    assert model.other_requests == []
    acme, lean = sorted(rows, key=lambda row: row["mode"] != "acme")
    acme_asks, lean_asks = offered(model, shell=True), offered(model, shell=False)

    assert acme["success"] is True, acme
    assert_measured(acme, len(acme_asks))
    assert {tuple(e.turn.tool_names) for e in acme_asks} == {(SHELL_TOOL,)}
    # the mode's instructions precede the prompt
    first = json.dumps(acme_asks[0].body["contents"])
    assert "Use `acme` for every GitHub operation" in first
    record = transcript(pytester.path, "acme")
    assert record["adapter_transcript"]["settings"]["tools"]["core"] == ["run_shell_command(acme)"]
    (call,) = record["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == (
        SHELL_TOOL,
        ACME_COMMAND,
        True,
    )

    assert lean["success"] is True, lean
    assert_measured(lean, len(lean_asks))
    names = lean_asks[0].turn.tool_names
    lean_tool = mcp_tool_name("mcp_lean", MCP_TOOL)  # mcp_lean_get_pull_request
    assert lean_tool in names and all(name.startswith("mcp_lean_") for name in names), names
    assert "create_pull_request" not in json.dumps(names)  # --read-only took
    lean_record = transcript(pytester.path, "mcp_lean")
    assert list(lean_record["adapter_transcript"]["settings"]["mcpServers"]) == ["mcp_lean"]
    (lean_call,) = lean_record["tool_calls"]
    assert lean_call["name"] == lean_tool and lean_call["ok"] is True


def test_preflight_needs_the_key_and_the_binary() -> None:
    adapter = GeminiAdapter(command="gemini-that-is-not-installed")
    with pytest.raises(AdapterUnavailable, match="not found on PATH"):
        adapter.check_ready({"GEMINI_API_KEY": CANARY_KEY})
    adapter = GeminiAdapter(command=agent_cli("gemini"))
    with pytest.raises(AdapterUnavailable, match="GEMINI_API_KEY is not set"):
        adapter.check_ready({"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"})
    adapter.check_ready({"GEMINI_API_KEY": CANARY_KEY})  # control: the same binary, with a key
    assert adapter.version == "0.61.0"


def test_workspace_settings_would_override_the_item(tmp_path: Path) -> None:
    assert workspace_override(tmp_path) is None
    (tmp_path / ".gemini").mkdir()
    assert workspace_override(tmp_path) == tmp_path / ".gemini"
