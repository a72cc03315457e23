"""The codex adapter with the real ``codex`` CLI against a scripted Responses API model.

Codex reaches the model through a custom provider in ``$CODEX_HOME/config.toml`` (the user's
file; a temporary one here), ``wire_api = "responses"``, its key read from the variable the
provider names with ``env_key``. One plugin run per test (a second in-process run in one test
breaks the sandbox's crypto imports); a Codex item starts in about 0.2 s.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# Imported here, before any in-process run: a run's modules are unloaded after it, and
# cryptography's bindings do not survive being imported a second time in one process.
import pytest_ghxbench.sandbox.api.tls  # noqa: F401
from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_responses import SCRIPTED_MODEL, Responses
from tests.agent_clis.harness import CANARY_KEY, agent_cli, run_pr_view, written_text
from tests.agent_clis.pr_view import GH_COMMAND, GHX_COMMAND, MCP_TOOL, pr_view_script
from tests.agent_clis.scripted import (
    Action,
    Failure,
    McpCall,
    Script,
    ScriptedModel,
    Shell,
    Turn,
    Usage,
)

pytestmark = pytest.mark.timeout(900)  # a hang guard: a busy machine takes minutes

USAGE = Usage(input=1000, output=50, cache_read=200, cache_write=30, reasoning=20)
THINK_S = 0.4
PROVIDER = "scripted"
KEY_VARIABLE = "SCRIPTED_RESPONSES_KEY"
SHELL_TOOL = "exec_command"
"""Codex 0.169's shell tool (argument ``cmd``); with ``write_stdin`` it is off in mcp items."""
Start = Callable[..., ScriptedModel]


@pytest.fixture
def codex(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve) -> Start:
    """``start(script, dialect=None)``: a scripted model that the real Codex, configured the
    way a user configures a local Responses endpoint, is pointed at."""
    agent_cli("codex")

    def start(script: Script, dialect: Responses | None = None) -> ScriptedModel:
        model = serve_model(dialect or Responses(), script, USAGE, THINK_S)
        home = pytester.path / "codex-home"
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(
            f'model_provider = "{PROVIDER}"\n'
            f'model = "{SCRIPTED_MODEL}"\n\n'
            f"[model_providers.{PROVIDER}]\n"
            'name = "Scripted"\n'
            f'base_url = "{model.url}/v1"\n'
            'wire_api = "responses"\n'
            f'env_key = "{KEY_VARIABLE}"\n'
            "stream_max_retries = 0\n"
        )
        monkeypatch.setenv("CODEX_HOME", str(home))
        monkeypatch.setenv(KEY_VARIABLE, CANARY_KEY)
        for variable in ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(variable, raising=False)
        return model

    return start


def run(
    pytester: pytest.Pytester,
    start: Start,
    mode: str,
    script: Script,
    dialect: Responses | None = None,
) -> tuple[pytest.RunResult, list[dict[str, Any]], ScriptedModel]:
    """One run of the plugin; ``mode`` may list several modes."""
    model = start(script, dialect)
    config = (
        "[tool.ghxbench.adapters.codex]\n"
        f"binary = {json.dumps(agent_cli('codex'))}\n"
        f'model = "{PROVIDER}/{SCRIPTED_MODEL}"\n'
    )
    result, rows = run_pr_view(pytester, adapter="codex", mode=mode, config=config)
    assert len(rows) == len(mode.split(",")), result.stdout.str()[-3000:]
    assert CANARY_KEY not in written_text(pytester.path)
    for exchange in model.exchanges:
        assert exchange.headers.get("authorization") == f"Bearer {CANARY_KEY}"
    return result, rows, model


def transcript_records(root: Path, mode: str) -> list[dict[str, Any]]:
    """The transcript records of the item of ``mode``, one per attempt."""
    return [
        record
        for path in (root / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
        for line in path.read_text().splitlines()
        for record in [json.loads(line)]
        if record["mode"] == mode
    ]


def transcript_calls(root: Path, mode: str) -> list[dict[str, Any]]:
    """The tool calls the transcript records for the last attempt of the item of ``mode``."""
    records = transcript_records(root, mode)
    assert records
    calls: list[dict[str, Any]] = max(records, key=lambda r: r["attempt"])["tool_calls"]
    return calls


def assert_measured(row: dict[str, Any], answers: int) -> None:
    """Exact usage for ``answers`` model requests, and the timing fields."""
    assert row["api_calls"] == answers
    each = USAGE.input + USAGE.output + USAGE.reasoning + USAGE.cache_read + USAGE.cache_write
    assert row["tokens"] == {
        "input": answers * USAGE.input,
        "output": answers * USAGE.output,
        "reasoning": answers * USAGE.reasoning,
        "cache_read": answers * USAGE.cache_read,
        "cache_write": answers * USAGE.cache_write,
        "total": answers * each,
    }
    # Lower bounds only (a busy machine can only add time): every answer took THINK_S, in
    # our latency and in Codex's own turn duration (whole milliseconds).
    assert row["latency_ms_wall"] >= answers * THINK_S * 1000
    assert row["startup_ms"] > 0
    assert row["sdk_latency_ms"] >= answers * THINK_S * 1000 - 1
    assert row["model"]["provider_id"] == PROVIDER and row["model"]["model_id"] == SCRIPTED_MODEL


def test_agent_direct_and_mcp_measure_alike(pytester: pytest.Pytester, codex: Start) -> None:
    direct_script, mcp_script = pr_view_script("agent_direct"), pr_view_script("mcp")

    def script(turn: Turn) -> Action:  # the item's mode shows in the tools it is offered
        return (direct_script if SHELL_TOOL in turn.tool_names else mcp_script)(turn)

    _, rows, model = run(pytester, codex, "agent_direct,mcp", script)
    direct, mcp = sorted(rows, key=lambda row: row["mode"] != "agent_direct")
    direct_asks = [e for e in model.exchanges if SHELL_TOOL in e.turn.tool_names]
    mcp_asks = [e for e in model.exchanges if SHELL_TOOL not in e.turn.tool_names]
    assert (len(direct_asks), len(mcp_asks)) == (2, 2)

    assert direct["success"] is True, direct
    assert_measured(direct, len(direct_asks))
    (call,) = transcript_calls(pytester.path, "agent_direct")
    # A plain shell, not a login shell: the command ran with the item's PATH (its gh).
    assert call["name"] == "command_execution" and call["ok"] is True
    assert call["arguments"]["command"] == f"/bin/bash -c '{GH_COMMAND}'"

    assert mcp["success"] is True, mcp
    assert_measured(mcp, len(mcp_asks))
    offered = mcp_asks[0].turn.tool_names
    assert "write_stdin" not in offered and "web_search" not in json.dumps(mcp_asks[0].body)
    (call,) = transcript_calls(pytester.path, "mcp")
    assert call["name"] == f"mcp__mcp__{MCP_TOOL}" and call["ok"] is True
    # That both modes' latencies hold the same model time (starting Codex and the MCP server
    # is startup) is a measurement over repetitions: bench/agent_cli_latency.py.


def test_starting_the_jail_is_startup_not_latency(
    pytester: pytest.Pytester, codex: Start, slow_jail: float
) -> None:
    _, rows, model = run(pytester, codex, "agent_direct", pr_view_script("agent_direct"))
    (row,) = rows
    assert row["success"] is True, row
    assert row["startup_ms"] >= slow_jail * 1000
    assert model.answers == 2
    # the runtime's own account of its work, which starts once it is up in its jail
    assert row["latency_ms_wall"] < row["sdk_latency_ms"] + slow_jail * 1000, row


def test_commands_see_the_items_path(pytester: pytest.Pytester, codex: Start) -> None:
    """The ghx item: ``ghx`` is only on the item's PATH, which a login shell would reset."""
    script = pr_view_script("ghx")

    def probing(turn: Turn) -> Action:
        if not turn.tool_results:
            return Shell(f'echo "PATH=$PATH"; {GHX_COMMAND}')
        return script(turn)

    _, (row,), model = run(pytester, codex, "ghx", probing)
    assert row["success"] is True, row
    assert_measured(row, model.answers)
    (call,) = transcript_calls(pytester.path, "ghx")
    # Codex's helper directory, the item's bin/ (with ghx), then the harness's PATH: no login
    # shell reset it.
    helpers, item_bin, rest = call["output"].splitlines()[0].removeprefix("PATH=").split(":", 2)
    assert helpers.endswith("codex-path") and item_bin.endswith("/bin"), call["output"]
    assert rest == os.environ["PATH"]


def test_gh_in_an_mcp_item_is_refused_and_fails(pytester: pytest.Pytester, codex: Start) -> None:
    script = pr_view_script("mcp", tool_mode="agent_direct")
    _, (row,), model = run(pytester, codex, "mcp", script)
    assert row["success"] is False
    assert all(SHELL_TOOL not in e.turn.tool_names for e in model.exchanges)
    # Codex refuses the call to a tool it does not offer; the model answers from the refusal.
    assert all("unsupported call" in e.turn.tool_results[-1] for e in model.exchanges[1::2])
    assert transcript_calls(pytester.path, "mcp") == []


@pytest.mark.parametrize("in_stream", [False, True], ids=["http-error", "response-failed"])
def test_a_model_api_error_is_a_runner_error(
    pytester: pytest.Pytester, codex: Start, in_stream: bool
) -> None:
    message = "scripted: this model is not available to your organization"

    def refuse(turn: Turn) -> Failure:
        return Failure(400, message)

    dialect = Responses(stream_failures=in_stream)
    _, (row,), model = run(pytester, codex, "agent_direct", refuse, dialect)
    assert row["success"] is False
    assert row["error"]["type"] == "runner_error"
    # Codex words a failed response as a disconnected stream, with the API's message.
    said = f"stream disconnected before completion: {message}" if in_stream else message
    assert row["error"]["message"].endswith(f"codex: model API error: {said}")
    # One request per attempt: a 400 is not retried by Codex.
    assert model.answers == len(transcript_records(pytester.path, "agent_direct")) >= 1


def test_a_login_shell_is_refused(pytester: pytest.Pytester, codex: Start) -> None:
    """A model that asks for a login shell (``exec_command``'s ``login``) is refused: it could
    reset PATH and reach a gh outside the item."""
    script = pr_view_script("agent_direct")

    def login(turn: Turn) -> Action:
        if not turn.tool_results:  # the shell tool, called by name with its login argument
            return McpCall(SHELL_TOOL, {"cmd": GH_COMMAND, "login": True})
        return script(turn)

    _, (row,), model = run(pytester, codex, "agent_direct", login)
    assert row["success"] is False
    assert "login shell is disabled" in model.exchanges[1].turn.tool_results[-1]
