"""The copilot adapter with the real ``copilot`` CLI against a scripted chat completions model.

Copilot reaches the model through its BYOK variables (``COPILOT_PROVIDER_BASE_URL``,
``COPILOT_PROVIDER_API_KEY``; the model from the adapter's ``--model``), offline: the scripted
server's count is the number of model requests, and any other request it got would be a
probe or a side request. One plugin run per test; the CLI's package is unpacked once for the
whole test session (``COPILOT_PKG_CACHE_HOME``).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

# Imported before any in-process run: a run's modules are unloaded after it, and
# cryptography's bindings do not survive being imported a second time in one process.
import pytest_ghxbench.sandbox.api.tls  # noqa: F401
from pytest_ghxbench.adapters.copilot.adapter import CopilotAdapter
from pytest_ghxbench.api import AdapterUnavailable
from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_chat import SCRIPTED_MODEL
from tests.agent_clis.dialect_copilot import SHELL_TOOL, CopilotChat, mcp_tool_name
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
from tests.modes.declared import ACME_AND_LEAN, ACME_COMMAND, acme_or_lean_script, install_acme

pytestmark = pytest.mark.timeout(900)  # a hang guard: a busy machine takes minutes

USAGE = Usage(input=1000, output=50, cache_read=200, reasoning=20)
THINK_S = 0.4
BUILTIN_MCP_SERVERS = ("github-mcp-server", "githubiq")
"""Copilot 1.0.102's built-in MCP servers (``copilot --help``, ``--disable-builtin-mcps``)."""


@pytest.fixture(scope="session")
def package_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the CLI's package is unpacked (~235 MB), once for all the tests."""
    return tmp_path_factory.mktemp("copilot-pkg")


@pytest.fixture
def copilot(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    serve_model: Serve,
    package_cache: Path,
) -> tuple[Any, str]:
    """``start(script)``: a scripted model the real Copilot CLI is pointed at; and the binary."""
    binary = agent_cli("copilot")

    def start(script: Script) -> ScriptedModel:
        model = serve_model(CopilotChat(), script, USAGE, THINK_S)
        monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", model.url + "/v1")
        monkeypatch.setenv("COPILOT_PROVIDER_API_KEY", CANARY_KEY)
        monkeypatch.setenv("COPILOT_PKG_CACHE_HOME", str(package_cache))
        for name in ("COPILOT_MODEL", "COPILOT_PROVIDER_TYPE", "COPILOT_PROVIDER_WIRE_API"):
            monkeypatch.delenv(name, raising=False)
        return model

    return start, binary


def pyproject(binary: str) -> str:
    return (
        "[tool.ghxbench.adapters.copilot]\n"
        f"binary = {json.dumps(binary)}\n"
        f'model = "openai/{SCRIPTED_MODEL}"\n'
    )


def run(
    pytester: pytest.Pytester, copilot: Any, mode: str, script: Script
) -> tuple[pytest.RunResult, list[dict[str, Any]], ScriptedModel]:
    """One run of the plugin; ``mode`` may list several modes."""
    start, binary = copilot
    model = start(script)
    result, rows = run_pr_view(pytester, adapter="copilot", mode=mode, config=pyproject(binary))
    assert len(rows) == len(mode.split(",")), result.stdout.str()[-3000:]
    assert CANARY_KEY not in written_text(pytester.path)
    # offline: no probe, no side request (title, model list), nothing to GitHub's services
    assert model.other_requests == []
    for exchange in model.exchanges:
        assert exchange.headers.get("authorization") == f"Bearer {CANARY_KEY}"
        assert exchange.body["model"] == SCRIPTED_MODEL and exchange.body["stream"] is True
        assert exchange.body["stream_options"] == {"include_usage": True}
    return result, rows, model


def records(root: Path, mode: str) -> list[dict[str, Any]]:
    """The transcript records of the attempts at the item of ``mode``, first attempt first."""
    found = [
        record
        for path in (root / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
        for line in path.read_text().splitlines()
        for record in [json.loads(line)]
        if record["mode"] == mode
    ]
    assert found
    return sorted(found, key=lambda record: int(record["attempt"]))


def events(record: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The runtime's events of type ``kind`` the transcript record keeps."""
    kept: list[dict[str, Any]] = record["adapter_transcript"]["events"]
    return [event for event in kept if event.get("type") == kind]


def stamp(event: dict[str, Any]) -> float:
    """An event's own ``timestamp``, in seconds."""
    return datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00")).timestamp()


def runtime_span_ms(record: dict[str, Any]) -> float:
    """From the prompt (``user.message``) to the final answer (the last ``assistant.message``)
    by the runtime's own stamps."""
    (prompt,) = events(record, "user.message")
    answer = events(record, "assistant.message")[-1]
    return (stamp(answer) - stamp(prompt)) * 1000.0


def assert_measured(row: dict[str, Any], answers: int) -> None:
    """Exact usage for ``answers`` model requests, and the timing fields."""
    assert (row["api_calls"], row["internal_retry_count"]) == (answers, 0)
    assert row["tokens"] == {
        "input": answers * USAGE.input,
        "output": answers * USAGE.output,
        "reasoning": answers * USAGE.reasoning,
        "cache_read": answers * USAGE.cache_read,
        "cache_write": 0,  # chat completions report no cache writes
        "total": answers * (USAGE.input + USAGE.output + USAGE.reasoning + USAGE.cache_read),
    }
    assert row["latency_ms_wall"] >= answers * THINK_S * 1000
    assert row["startup_ms"] > 0
    assert row["sdk_latency_ms"] is not None and row["sdk_latency_ms"] > 0
    assert row["model"]["provider_id"] == "openai"
    assert row["model"]["model_id"] == SCRIPTED_MODEL


def test_agent_direct_and_mcp_measure_alike(pytester: pytest.Pytester, copilot: Any) -> None:
    direct_script, mcp_script = pr_view_script("agent_direct"), pr_view_script("mcp")

    def script(turn: Turn) -> Action:  # the item's mode shows in the tools it is offered
        return (direct_script if SHELL_TOOL in turn.tool_names else mcp_script)(turn)

    _, rows, model = run(pytester, copilot, "agent_direct,mcp", script)
    direct, mcp = sorted(rows, key=lambda row: row["mode"] != "agent_direct")
    direct_asks = [e for e in model.exchanges if SHELL_TOOL in e.turn.tool_names]
    mcp_asks = [e for e in model.exchanges if SHELL_TOOL not in e.turn.tool_names]
    assert (len(direct_asks), len(mcp_asks)) == (2, 2)

    assert direct["success"] is True, direct
    assert_measured(direct, len(direct_asks))
    # the shell tool and nothing else (Copilot offers 19 tools by default), no GitHub MCP tool
    assert {tuple(e.turn.tool_names) for e in direct_asks} == {(SHELL_TOOL,)}
    (record,) = records(pytester.path, "agent_direct")
    (call,) = record["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == (
        SHELL_TOOL,
        GH_COMMAND,
        True,
    )
    # the built-in MCP servers are there and switched off, not merely unused
    (loaded,) = events(record, "session.mcp_servers_loaded")
    status = {server["name"]: server["status"] for server in loaded["data"]["servers"]}
    assert {name: status.get(name) for name in BUILTIN_MCP_SERVERS} == dict.fromkeys(
        BUILTIN_MCP_SERVERS, "disabled"
    )

    assert mcp["success"] is True, mcp
    assert_measured(mcp, len(mcp_asks))
    # the mode's server, registered under the mode's name, and only its tools
    offered = mcp_asks[0].turn.tool_names
    assert mcp_tool_name("mcp", MCP_TOOL) in offered
    assert all(name.startswith("mcp-") for name in offered)
    (mcp_record,) = records(pytester.path, "mcp")
    (mcp_call,) = mcp_record["tool_calls"]
    assert mcp_call["name"] == f"mcp__mcp__{MCP_TOOL}" and mcp_call["ok"] is True
    (mcp_loaded,) = events(mcp_record, "session.mcp_servers_loaded")
    mcp_status = {server["name"]: server["status"] for server in mcp_loaded["data"]["servers"]}
    assert mcp_status["mcp"] == "connected"
    assert {mcp_status.get(name) for name in BUILTIN_MCP_SERVERS} == {"disabled"}
    # Starting the MCP server is startup, not latency: Copilot connects its MCP servers before
    # it takes the prompt, and latency is the span from the prompt to the final answer by the
    # runtime's own stamps (the harness reads the same events off the pipe, a little later).
    kinds = [event["type"] for event in mcp_record["adapter_transcript"]["events"]]
    connected = next(
        i
        for i, event in enumerate(mcp_record["adapter_transcript"]["events"])
        if event["type"] == "session.mcp_server_status_changed"
        and event["data"] == {**event["data"], "serverName": "mcp", "status": "connected"}
    )
    assert connected < kinds.index("user.message")
    for row, record in ((direct, records(pytester.path, "agent_direct")[-1]), (mcp, mcp_record)):
        assert abs(row["latency_ms_wall"] - runtime_span_ms(record)) < 300, row


def test_starting_the_jail_is_startup_not_latency(
    pytester: pytest.Pytester, copilot: Any, slow_jail: float
) -> None:
    _, rows, model = run(pytester, copilot, "agent_direct", pr_view_script("agent_direct"))
    (row,) = rows
    assert row["success"] is True, row
    assert row["startup_ms"] >= slow_jail * 1000
    assert model.answers == 2
    # latency is inside the runtime's own account of its session, which starts once it is up
    # in its jail (a little slack: its lines reach the harness through a pipe)
    assert row["latency_ms_wall"] < row["sdk_latency_ms"] + 500, row


def test_ghx_item_runs_ghx(pytester: pytest.Pytester, copilot: Any) -> None:
    _, (row,), model = run(pytester, copilot, "ghx", pr_view_script("ghx"))
    assert row["success"] is True, row
    assert_measured(row, model.answers)
    (record,) = records(pytester.path, "ghx")
    (call,) = record["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == (
        SHELL_TOOL,
        GHX_COMMAND,
        True,
    )


def test_another_program_in_a_cli_item_is_refused(pytester: pytest.Pytester, copilot: Any) -> None:
    script = pr_view_script("agent_direct", tool_mode="ghx")  # ghx, in an agent_direct item
    _, (row,), model = run(pytester, copilot, "agent_direct", script)
    assert row["success"] is False
    assert row["api_calls"] == 2
    assert model.answers == 2 * len(records(pytester.path, "agent_direct"))
    for record in records(pytester.path, "agent_direct"):
        (call,) = record["tool_calls"]
        assert (call["name"], call["arguments"]["command"], call["ok"]) == (
            SHELL_TOOL,
            GHX_COMMAND,
            False,
        )
        assert "Permission denied" in call["output"]


def test_gh_in_an_mcp_item_is_refused_and_fails(pytester: pytest.Pytester, copilot: Any) -> None:
    script = pr_view_script("mcp", tool_mode="agent_direct")
    _, (row,), model = run(pytester, copilot, "mcp", script)
    assert SHELL_TOOL not in model.exchanges[0].turn.tool_names
    assert row["success"] is False
    assert row["api_calls"] == 2
    assert model.answers == 2 * len(records(pytester.path, "mcp"))
    (call,) = records(pytester.path, "mcp")[-1]["tool_calls"]
    assert call["name"] == SHELL_TOOL and call["ok"] is False
    assert "does not exist" in call["output"]


def test_a_refused_model_request_is_a_runner_error(pytester: pytest.Pytester, copilot: Any) -> None:
    message = "scripted: this model is not available to your organization"

    def refuse(turn: Turn) -> Failure:
        return Failure(400, message)

    _, (row,), model = run(pytester, copilot, "agent_direct", refuse)
    # Copilot does not retry a 400: one request per attempt
    assert model.answers == len(records(pytester.path, "agent_direct"))
    assert row["success"] is False
    assert row["error"]["type"] == "runner_error"
    assert "HTTP 400" in row["error"]["message"] and message in row["error"]["message"]
    assert (row["api_calls"], row["internal_retry_count"]) == (1, 0)
    assert row["tokens"]["total"] == 0


def test_a_failing_server_is_retried_and_counted(pytester: pytest.Pytester, copilot: Any) -> None:
    message = "scripted: the service is down for maintenance"

    def refuse(turn: Turn) -> Failure:
        return Failure(500, message)

    _, (row,), model = run(pytester, copilot, "agent_direct", refuse)
    # Copilot retries a 5xx 5 times (about 16 s of backoff) before it gives up
    assert model.answers == 6 * len(records(pytester.path, "agent_direct"))
    assert row["success"] is False
    assert row["error"]["type"] == "runner_error"
    assert "HTTP 500" in row["error"]["message"] and message in row["error"]["message"]
    assert (row["api_calls"], row["internal_retry_count"]) == (6, 5)


def test_preflight_needs_a_model_provider() -> None:
    adapter = CopilotAdapter(command="copilot-that-is-not-installed")
    with pytest.raises(AdapterUnavailable, match="COPILOT_PROVIDER_BASE_URL"):
        adapter.check_ready({"COPILOT_MODEL": "m"})
    with pytest.raises(AdapterUnavailable, match="no model"):
        adapter.check_ready({"COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1"})
    # with both, the next check is the binary's (control: the two above stopped earlier)
    with pytest.raises(AdapterUnavailable, match="not found on PATH"):
        adapter.check_ready({"COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1"}, model="x/m")


def test_declared_modes_are_driven_by_kind(pytester: pytest.Pytester, copilot: Any) -> None:
    install_acme(pytester.path)
    start, binary = copilot
    model = start(acme_or_lean_script(SHELL_TOOL))
    config = pyproject(binary) + ACME_AND_LEAN
    result, rows = run_pr_view(pytester, adapter="copilot", mode="acme,mcp_lean", config=config)
    assert len(rows) == 2, result.stdout.str()[-3000:]
    assert CANARY_KEY not in written_text(pytester.path)
    assert model.other_requests == []
    acme, lean = sorted(rows, key=lambda row: row["mode"] != "acme")
    acme_asks = [e for e in model.exchanges if SHELL_TOOL in e.turn.tool_names]
    lean_asks = [e for e in model.exchanges if SHELL_TOOL not in e.turn.tool_names]

    assert acme["success"] is True, acme
    assert_measured(acme, len(acme_asks))
    assert {tuple(e.turn.tool_names) for e in acme_asks} == {(SHELL_TOOL,)}
    # the mode's instructions precede the prompt
    first = acme_asks[0].body["messages"]
    assert any("Use `acme` for every GitHub operation" in str(m["content"]) for m in first)
    (record,) = records(pytester.path, "acme")
    assert "--allow-tool=shell(acme:*)" in record["adapter_transcript"]["argv"]
    (call,) = record["tool_calls"]
    assert (call["name"], call["arguments"]["command"], call["ok"]) == (
        SHELL_TOOL,
        ACME_COMMAND,
        True,
    )

    assert lean["success"] is True, lean
    assert_measured(lean, len(lean_asks))
    offered = lean_asks[0].turn.tool_names
    assert mcp_tool_name("mcp_lean", MCP_TOOL) in offered
    assert all(name.startswith("mcp_lean-") for name in offered)
    (lean_record,) = records(pytester.path, "mcp_lean")
    (lean_call,) = lean_record["tool_calls"]
    assert lean_call["name"] == f"mcp__mcp_lean__{MCP_TOOL}" and lean_call["ok"] is True
