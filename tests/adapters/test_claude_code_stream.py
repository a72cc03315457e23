"""The claude-code adapter against a fake ``claude`` printing documented stream-json events."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.claude_code.adapter import ClaudeCodeAdapter
from pytest_ghxbench.adapters.claude_code.stream import ClaudeStream
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import AdapterUnavailable, Tokens
from tests.adapters.fakes.helpers import (
    fake_env,
    fake_request,
    group_gone,
    record,
    started_group,
)

INIT = {"type": "system", "subtype": "init", "session_id": "s-1", "model": "claude-x", "tools": []}


def assistant(message_id: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    """One content block of a model response, as the stream gives each (all with its id)."""
    message = {"id": message_id, "model": "claude-x", "role": "assistant", "content": list(blocks)}
    return {"type": "assistant", "message": message}


def tool_use(tool_id: str, command: str, message_id: str | None = None) -> dict[str, Any]:
    block = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
    return assistant(message_id or f"msg-{tool_id}", block)


def tool_result(tool_id: str, text: str, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": is_error}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "result": 'Done: {"ok": true}',
    "session_id": "s-1",
    "num_turns": 3,
    "duration_ms": 4321,
    "duration_api_ms": 3000,
    "total_cost_usd": 0.0125,
    "usage": {
        "input_tokens": 120,
        "cache_creation_input_tokens": 800,
        "cache_read_input_tokens": 5000,
        "output_tokens": 64,
        "output_tokens_details": {"thinking_tokens": 14},
    },
}


def test_rows_match_the_stream(tmp_path: Path) -> None:
    text = {"type": "text", "text": "Let me look."}
    steps: list[dict[str, Any]] = [
        {"sleep": 0.2},
        {"event": INIT},
        {"event": assistant("m1", text)},  # one response: a text block, then a tool_use block
        {"event": tool_use("t1", "ghx run pr.view", message_id="m1")},
        {"event": tool_result("t1", "pr 7")},
        {"event": tool_use("t2", "ghx run nope", message_id="m2")},
        {"event": tool_result("t2", "unknown capability", is_error=True)},
        {"event": assistant("m3", {"type": "text", "text": 'Done: {"ok": true}'})},
        {"event": RESULT},
    ]
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, steps))
    assert result.error is None
    assert result.final_text == 'Done: {"ok": true}'
    # thinking is part of Anthropic's output_tokens; it is recorded apart
    assert result.tokens == Tokens(
        input=120, output=50, reasoning=14, cache_read=5000, cache_write=800
    )
    assert result.cost_usd == 0.0125
    assert result.api_calls == 3  # distinct responses, not num_turns
    # spawn -> init is startup (init is printed after 0.2 s), init -> result is latency (the
    # arrival times themselves: test_ready_at_init_answered_at_the_result); duration_ms is the
    # runtime's own
    assert result.startup_ms is not None and result.startup_ms >= 200
    assert result.latency_ms is not None and result.latency_ms >= 0
    assert result.sdk_latency_ms == 4321
    assert result.timing_breakdown == {"api_ms": 3000}
    assert result.session_id == "s-1"
    assert result.model == "anthropic/claude-x"  # what the init event reported
    assert [(c.name, c.arguments["command"], c.ok) for c in result.tool_calls] == [
        ("Bash", "ghx run pr.view", True),
        ("Bash", "ghx run nope", False),
    ]
    first, second = result.tool_calls
    assert first.output == "pr 7"
    assert first.duration_ms is not None and second.duration_ms is not None


def test_ready_at_init_answered_at_the_result() -> None:
    """The timings, from the arrival time of each line (what the process runner stamps)."""
    stream = ClaudeStream(clock=RuntimeClock(started=50.0))
    for arrived, event in [
        (50.2, INIT),
        (50.4, tool_use("t1", "ghx run pr.view", message_id="m1")),
        (50.7, tool_result("t1", "pr 7")),
        (50.8, tool_use("t2", "ghx run nope", message_id="m2")),
        (50.85, tool_result("t2", "unknown capability", is_error=True)),
        (51.0, assistant("m3", {"type": "text", "text": 'Done: {"ok": true}'})),
        (51.1, RESULT),
    ]:
        stream.feed(json.dumps(event), arrived)
    # spawn -> init is startup, init -> result is latency; a tool call runs from its tool_use
    # to its tool_result
    assert stream.clock.startup_ms() == pytest.approx(200.0)
    assert stream.clock.latency_ms() == pytest.approx(900.0)
    assert [call.duration_ms for call in stream.tool_calls] == [
        pytest.approx(300.0),
        pytest.approx(50.0),
    ]


def test_no_init_event_leaves_the_timing_to_the_harness(tmp_path: Path) -> None:
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, [{"event": RESULT}]))
    assert result.error is None
    assert result.startup_ms is None and result.latency_ms is None
    assert result.sdk_latency_ms == 4321


@pytest.mark.parametrize(
    ("mode", "tools", "allowed"),
    [
        ("agent_direct", "Bash", "Bash(gh:*)"),
        ("ghx", "Bash", "Bash(ghx:*)"),
        ("mcp", "", "mcp__mcp"),
    ],
)
def test_each_mode_gets_its_tools(tmp_path: Path, mode: str, tools: str, allowed: str) -> None:
    launcher = str(tmp_path / "bin" / "github-mcp-server")
    env = fake_env(tmp_path, [{"event": RESULT}], GHXBENCH_MCP_COMMAND=f"{launcher} stdio")
    request = fake_request(tmp_path, [], mode=mode, model="anthropic/claude-sonnet-4-5", env=env)
    assert ClaudeCodeAdapter().run(request).error is None
    argv = record(tmp_path)["argv"][1:]
    assert argv[:5] == ["-p", request.prompt, "--output-format", "stream-json", "--verbose"]
    # the built-in tools: Bash alone, or none at all in mcp mode
    assert argv[argv.index("--tools") + 1] == tools
    assert argv[argv.index("--allowedTools") + 1] == allowed
    assert argv[argv.index("--model") + 1] == "claude-sonnet-4-5"
    assert argv[argv.index("--append-system-prompt") + 1] == request.instructions
    if mode == "mcp":
        assert "--strict-mcp-config" in argv
        server = json.loads(argv[argv.index("--mcp-config") + 1])["mcpServers"]["mcp"]
        # The backend's launcher holds the token; the runtime is given only its path.
        assert server["command"] == launcher and server["args"] == ["stdio"]
        assert not server.get("env")
    else:
        assert "--mcp-config" not in argv


def test_an_mcp_server_that_did_not_start_is_a_runner_error(tmp_path: Path) -> None:
    init = {**INIT, "mcp_servers": [{"name": "mcp", "status": "failed"}]}
    env = fake_env(tmp_path, [{"event": init}, {"event": RESULT}], GHXBENCH_MCP_COMMAND="x")
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, [], mode="mcp", env=env))
    assert result.error == "claude-code: MCP server 'mcp' did not start (status 'failed')"


def test_hang_past_the_deadline_kills_the_process_group(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [{"event": INIT}, {"spawn_sleeper": 60}, {"sleep": 60}]
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, steps, timeout_s=1.0))
    assert result.error is not None and "timeout" in result.error
    assert group_gone(started_group(tmp_path))


def test_crash_mid_stream_is_a_runner_error(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"event": INIT},
        {"event": tool_use("t1", "gh pr list")},
        {"stderr": "boom"},
    ]
    steps.append({"kill": int(signal.SIGSEGV)})
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, steps))
    assert result.error is not None
    assert "SIGSEGV" in result.error and "without a result event" in result.error
    assert "boom" in result.error
    assert [(c.name, c.ok, c.duration_ms) for c in result.tool_calls] == [("Bash", False, None)]


def test_garbage_lines_are_recorded_not_fatal(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"line": "Warning: something odd"},
        {"event": INIT},
        {"line": "[1, 2"},
    ]
    steps.append({"event": RESULT})
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, steps))
    assert result.error is None
    assert result.transcript["garbage_lines"] == ["Warning: something odd", "[1, 2"]


def test_garbage_without_a_result_event_is_a_runner_error(tmp_path: Path) -> None:
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, [{"line": "not json"}]))
    assert result.error == (
        "claude-code exited with status 0 without a result event; 1 unparseable line(s)"
    )


def test_error_result_is_a_runner_error(tmp_path: Path) -> None:
    failed = {**RESULT, "subtype": "error_max_turns", "is_error": True, "errors": ["max 3"]}
    del failed["result"]
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, [{"event": failed}]))
    assert result.error == "claude-code: result 'error_max_turns': max 3"
    assert result.tokens.cache_read == 5000


def test_a_refused_model_request_is_a_runner_error_with_the_apis_message(
    tmp_path: Path,
) -> None:
    # what the real CLI prints when the API answers HTTP 500 (and it does not retry)
    said = "API Error: 500 the service is down for maintenance"
    synthetic = {
        **assistant("0f7c", {"type": "text", "text": said}),
        "is_api_error_message": True,
        "api_error_status": 500,
    }
    synthetic["message"]["model"] = "<synthetic>"
    final = {
        **RESULT,
        "is_error": True,
        "subtype": "success",
        "api_error_status": 500,
        "result": said + ". This is a server-side issue, usually temporary.",
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    steps: list[dict[str, Any]] = [{"event": INIT}, {"event": synthetic}, {"event": final}]
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, steps))
    assert result.error is not None and result.error.startswith("claude-code: " + said)
    assert result.api_calls == 1  # the refused request
    assert result.tokens == Tokens()


def test_the_runtimes_own_settings_pass_through_and_stay_secret(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-CANARY-424242")
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Gateway-Auth: gw-CANARY-777777")
    steps: list[dict[str, Any]] = [
        {"line": "$ENV{ANTHROPIC_CUSTOM_HEADERS}"},
        {"event": {**RESULT, "result": "$ENV{ANTHROPIC_AUTH_TOKEN}"}},
    ]
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, steps))
    passed = record(tmp_path)["env"]
    for name in ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "ANTHROPIC_BASE_URL"):
        assert name in passed
    assert "ANTHROPIC_AUTH_TOKEN" in passed
    assert "tok-CANARY-424242" not in json.dumps(result.transcript)
    assert "gw-CANARY-777777" not in json.dumps(result.transcript)
    assert result.final_text == "[redacted]"


def test_api_key_never_reaches_the_transcript(tmp_path: Path, monkeypatch: Any) -> None:
    canary = "sk-ant-CANARY-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", canary)
    leak = {**RESULT, "result": "key is $ENV{ANTHROPIC_API_KEY}"}
    steps: list[dict[str, Any]] = [{"line": "garbage $ENV{ANTHROPIC_API_KEY}"}, {"event": leak}]
    steps.append({"stderr": "$ENV{ANTHROPIC_API_KEY}"})
    result = ClaudeCodeAdapter().run(fake_request(tmp_path, steps))
    assert "ANTHROPIC_API_KEY" in record(tmp_path)["env"]  # the runtime does get its key
    assert canary not in json.dumps(result.transcript)
    assert canary not in (result.final_text or "")
    assert result.final_text == "key is [redacted]"


def test_unrelated_harness_variables_are_not_passed(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-pass-me")
    ClaudeCodeAdapter().run(fake_request(tmp_path, [{"event": RESULT}]))
    assert "AWS_SECRET_ACCESS_KEY" not in record(tmp_path)["env"]


def test_preflight_without_the_binary_is_unavailable(tmp_path: Path) -> None:
    adapter = ClaudeCodeAdapter(command=str(tmp_path / "no-such-claude"))
    with pytest.raises(AdapterUnavailable, match="not found"):
        adapter.check_ready({"ANTHROPIC_API_KEY": "x"})


def test_preflight_without_credentials_is_unavailable(tmp_path: Path, monkeypatch: Any) -> None:
    from tests.adapters.fakes.helpers import FAKES

    adapter = ClaudeCodeAdapter(command=str(FAKES / "claude"))
    with pytest.raises(AdapterUnavailable, match="ANTHROPIC_API_KEY"):
        adapter.check_ready({"HOME": str(tmp_path)})


def test_preflight_records_the_version(tmp_path: Path, monkeypatch: Any) -> None:
    from tests.adapters.fakes.helpers import FAKES

    for key, value in fake_env(tmp_path, []).items():
        monkeypatch.setenv(key, value)
    adapter = ClaudeCodeAdapter(command=str(FAKES / "claude"))
    adapter.check_ready({"ANTHROPIC_API_KEY": "x"})
    assert adapter.version == "fake 0.0.0"


def test_configured_model_is_used_when_none_is_requested(tmp_path: Path) -> None:
    adapter = ClaudeCodeAdapter()
    adapter.model = "anthropic/claude-opus-4-1"
    adapter.run(fake_request(tmp_path, [{"event": RESULT}]))
    argv = record(tmp_path)["argv"]
    assert argv[argv.index("--model") + 1] == "claude-opus-4-1"
