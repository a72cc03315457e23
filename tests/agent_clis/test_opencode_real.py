"""The opencode adapter with the real ``opencode`` CLI against a scripted chat completions model.

OpenCode reaches the model through an ``@ai-sdk/openai-compatible`` provider declared in the
file ``OPENCODE_CONFIG`` names (bundled in the binary: nothing is downloaded at run time), its
key read from ``SCRIPTED_API_KEY``. One scenario per mode; each test starts ``opencode serve``
(about 2 s) once, plus once per mcp item.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# Imported here, before any in-process run: a run's modules are unloaded after it, and
# cryptography's bindings do not survive being imported a second time in one process.
import pytest_ghxbench.sandbox.api.tls  # noqa: F401
from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_chat import SCRIPTED_MODEL, SHELL_TOOL, ChatCompletions
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

USAGE = Usage(input=1000, output=50, cache_read=200, reasoning=20)
THINK_S = 0.4
REPS = 2
PROVIDER = "scripted"
CONVERSATION_MARK = "You are opencode"
"""The start of OpenCode's system prompt: every request the test counts is a conversation
request (a title or summary request would carry another prompt)."""


@pytest.fixture
def opencode(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve
) -> tuple[Any, str]:
    """``start(script)``: a scripted model the real OpenCode is configured to use."""
    binary = agent_cli("opencode")

    def start(script: Script) -> ScriptedModel:
        model = serve_model(ChatCompletions(), script, USAGE, THINK_S)
        config = pytester.path / "opencode-provider.json"
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted",
            "options": {"baseURL": model.url + "/v1", "apiKey": "{env:SCRIPTED_API_KEY}"},
            "models": {SCRIPTED_MODEL: {"name": SCRIPTED_MODEL}},
        }
        config.write_text(json.dumps({"provider": {PROVIDER: provider}}))
        monkeypatch.setenv("OPENCODE_CONFIG", str(config))
        monkeypatch.setenv("OPENCODE_DISABLE_MODELS_FETCH", "1")
        monkeypatch.setenv("OPENCODE_DISABLE_AUTOUPDATE", "1")
        monkeypatch.setenv("SCRIPTED_API_KEY", CANARY_KEY)
        return model

    return start, binary


def pyproject(binary: str) -> str:
    return (
        "[tool.ghxbench.adapters.opencode]\n"
        f"binary = {json.dumps(binary)}\n"
        f'model = "{PROVIDER}/{SCRIPTED_MODEL}"\n'
    )


def run(
    pytester: pytest.Pytester, opencode: Any, mode: str, script: Script, reps: int = 1
) -> tuple[pytest.RunResult, list[dict[str, Any]], ScriptedModel]:
    """One run of the plugin (one per test: a second in-process run in the same test breaks
    the sandbox's crypto imports); ``mode`` may list several modes."""
    start, binary = opencode
    model = start(script)
    result, rows = run_pr_view(
        pytester, adapter="opencode", mode=mode, config=pyproject(binary), reps=reps
    )
    assert len(rows) == reps * len(mode.split(",")), result.stdout.str()[-3000:]
    assert CANARY_KEY not in written_text(pytester.path)
    for exchange in model.exchanges:  # no side requests: every one is the conversation
        system = exchange.body["messages"][0]
        assert system["role"] == "system" and CONVERSATION_MARK in str(system["content"])
        assert exchange.headers.get("authorization") == f"Bearer {CANARY_KEY}"
    return result, rows, model


def attempts(root: Path, mode: str) -> list[dict[str, Any]]:
    """The transcript records of the attempts at the items of ``mode`` (a failed item may be
    retried, as its scenario allows), first attempt first."""
    records = [
        record
        for path in (root / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
        for line in path.read_text().splitlines()
        for record in [json.loads(line)]
        if record["mode"] == mode
    ]
    assert records
    return sorted(records, key=lambda record: (int(record["iteration"]), int(record["attempt"])))


def final_attempts(root: Path, mode: str) -> list[dict[str, Any]]:
    """The last attempt at each item of ``mode``: the one its row reports. An earlier attempt
    is one the harness retried (on a busy machine, an ``opencode serve`` that was slow to
    answer), which must not have reached the model (the request counts check that)."""
    last: dict[int, dict[str, Any]] = {}
    for record in attempts(root, mode):
        last[int(record["iteration"])] = record
    return list(last.values())


def transcript_calls(root: Path, mode: str) -> list[dict[str, Any]]:
    """The tool calls the transcript records for the last attempt at the item of ``mode``."""
    calls: list[dict[str, Any]] = attempts(root, mode)[-1]["tool_calls"]
    return calls


def assert_measured(row: dict[str, Any], answers: int, retries: int = 0) -> None:
    """Exact usage for ``answers`` answered model requests (and ``retries`` refused ones), and
    the timing fields."""
    assert (row["api_calls"], row["internal_retry_count"]) == (answers + retries, retries)
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
    assert row["model"]["provider_id"] == PROVIDER and row["model"]["model_id"] == SCRIPTED_MODEL


def test_agent_direct_and_mcp_measure_alike(pytester: pytest.Pytester, opencode: Any) -> None:
    direct_script, mcp_script = pr_view_script("agent_direct"), pr_view_script("mcp")

    def script(turn: Turn) -> Action:  # the item's mode shows in the tools it is offered
        return (direct_script if SHELL_TOOL in turn.tool_names else mcp_script)(turn)

    _, rows, model = run(pytester, opencode, "agent_direct,mcp", script, reps=REPS)
    direct = [row for row in rows if row["mode"] == "agent_direct"]
    mcp = [row for row in rows if row["mode"] == "mcp"]
    assert (len(direct), len(mcp)) == (REPS, REPS)
    direct_asks = [e for e in model.exchanges if SHELL_TOOL in e.turn.tool_names]
    mcp_asks = [e for e in model.exchanges if SHELL_TOOL not in e.turn.tool_names]
    assert (len(direct_asks), len(mcp_asks)) == (2 * REPS, 2 * REPS)
    for row in rows:
        assert row["success"] is True, row
        assert_measured(row, 2)

    # the shell tool, and only it: every other tool is denied, so not offered
    assert {tuple(e.turn.tool_names) for e in direct_asks} == {(SHELL_TOOL,)}
    for record in final_attempts(pytester.path, "agent_direct"):
        (call,) = record["tool_calls"]
        assert (call["name"], call["arguments"]["command"], call["ok"]) == (
            SHELL_TOOL,
            GH_COMMAND,
            True,
        )
    offered = mcp_asks[0].turn.tool_names
    assert offered and all(name.startswith("mcp_") for name in offered)
    for record in final_attempts(pytester.path, "mcp"):
        (call,) = record["tool_calls"]
        assert call["name"] == f"mcp_{MCP_TOOL}" and call["ok"] is True

    # Starting the item's own server and its MCP server is that item's startup (opencode
    # serve takes over a second here; a busy machine only makes it longer). That both modes'
    # latencies then hold the same model time is a measurement over repetitions:
    # bench/agent_cli_latency.py.
    assert all(row["startup_ms"] > 1000 for row in mcp)


def test_starting_the_jail_is_startup_not_latency(
    pytester: pytest.Pytester, opencode: Any, slow_jail: float
) -> None:
    _, rows, model = run(pytester, opencode, "agent_direct", pr_view_script("agent_direct"))
    (row,) = rows
    assert row["success"] is True, row
    assert row["startup_ms"] >= slow_jail * 1000
    assert model.answers == 2
    # the runtime's own account of its work, which starts once it is up in its jail
    assert row["latency_ms_wall"] < row["sdk_latency_ms"] + slow_jail * 1000, row


def test_ghx_item_runs_ghx_and_a_retried_request_counts(
    pytester: pytest.Pytester, opencode: Any
) -> None:
    ghx = pr_view_script("ghx")
    refused: list[Turn] = []

    def script(turn: Turn) -> Action:  # the first request is refused; OpenCode retries it
        if not refused:
            refused.append(turn)
            return Failure(503, "scripted: the engine is overloaded")
        return ghx(turn)

    _, (row,), model = run(pytester, opencode, "ghx", script)
    assert row["success"] is True, row
    assert model.answers == 3
    assert_measured(row, answers=2, retries=1)
    (call,) = transcript_calls(pytester.path, "ghx")
    assert (call["name"], call["arguments"]["command"]) == (SHELL_TOOL, GHX_COMMAND)


def test_gh_in_an_mcp_item_is_refused_and_fails(pytester: pytest.Pytester, opencode: Any) -> None:
    script = pr_view_script("mcp", tool_mode="agent_direct")
    _, (row,), model = run(pytester, opencode, "mcp", script)
    assert row["success"] is False
    assert row["api_calls"] == 2
    # two requests in the attempt the row reports; on a busy machine an earlier attempt, retried,
    # was seen to end before its second request (never more than two each)
    assert 2 <= model.answers <= 2 * len(attempts(pytester.path, "mcp"))
    (call,) = transcript_calls(pytester.path, "mcp")
    assert call["name"] == SHELL_TOOL and call["ok"] is False
    assert "unavailable tool" in call["output"]


def test_a_model_api_error_is_a_runner_error(pytester: pytest.Pytester, opencode: Any) -> None:
    message = "scripted: this model is not available to your organization"

    def refuse(turn: Turn) -> Failure:
        return Failure(400, message)

    _, (row,), model = run(pytester, opencode, "agent_direct", refuse)
    # OpenCode does not retry a 400 itself: at most one request per attempt. (On a busy machine
    # a rerun attempt was seen to report the refusal without a request of its own: fewer.)
    assert 1 <= model.answers <= len(attempts(pytester.path, "agent_direct"))
    assert row["success"] is False
    assert row["error"]["type"] == "runner_error"
    assert message in row["error"]["message"]
