"""The codex adapter against a fake ``codex`` printing documented ``exec --json`` events."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.codex.adapter import CodexAdapter
from pytest_ghxbench.adapters.codex.stream import CodexStream
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import AdapterUnavailable, Tokens
from tests.adapters.fakes.helpers import (
    FAKES,
    fake_env,
    fake_request,
    group_gone,
    record,
    started_group,
)

STARTED = {"type": "thread.started", "thread_id": "th-9"}


@pytest.fixture(autouse=True)
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A CODEX_HOME of the test's own (the machine's ~/.codex is never read)."""
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def write_rollout(
    home: Path, thread_id: str, responses: int, calls: Sequence[tuple[str, int, int]] = ()
) -> None:
    """The rollout Codex files for ``thread_id``: one ``token_usage_record`` per response, and
    per ``(call_id, received, completed)`` (Unix ms) a function call and its completed item."""
    day = home / "sessions" / time.strftime("%Y/%m/%d")
    day.mkdir(parents=True)
    lines: list[dict[str, Any]] = [{"type": "session_meta", "payload": {"id": thread_id}}]
    for call_id, received, completed in calls:
        stamp = datetime.fromtimestamp(received / 1000, timezone.utc).isoformat()
        lines.append(
            {
                "timestamp": stamp.replace("+00:00", "Z"),
                "type": "response_item",
                "payload": {"type": "function_call", "call_id": call_id, "name": "exec_command"},
            }
        )
        item = {"type": "CommandExecution", "id": call_id}
        payload = {"type": "item_completed", "item": item, "completed_at_ms": completed}
        lines.append({"type": "event_msg", "payload": payload})
    lines.append({"type": "event_msg", "payload": {"type": "task_complete", "duration_ms": 945}})
    lines += [
        {"type": "token_usage_record", "payload": {"response_id": f"r{n}"}}
        for n in range(responses)
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (day / f"rollout-2026-01-01T00-00-00-{thread_id}.jsonl").write_text(text)


def command(item_id: str, cmd: str, status: str = "in_progress", **more: Any) -> dict[str, Any]:
    kind = "item.started" if status == "in_progress" else "item.completed"
    item = {"id": item_id, "type": "command_execution", "command": cmd, "status": status, **more}
    return {"type": kind, "item": item}


def turn_completed(
    inp: int, cached: int, out: int, reasoning: int = 0, written: int = 0
) -> dict[str, Any]:
    usage = {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "cache_write_input_tokens": written,
        "output_tokens": out,
        "reasoning_output_tokens": reasoning,
    }
    return {"type": "turn.completed", "usage": usage}


MESSAGE = {"type": "item.completed", "item": {"id": "m1", "type": "agent_message", "text": "{}"}}


def test_rows_match_the_stream(tmp_path: Path, codex_home: Path) -> None:
    mcp_item = {
        "id": "i2",
        "type": "mcp_tool_call",
        "server": "ghxbench",
        "tool": "pr_view",
        "arguments": {"number": 7},
        "status": "in_progress",
    }
    steps: list[dict[str, Any]] = [
        {"sleep": 0.2},
        {"event": STARTED},
        {"event": {"type": "turn.started"}},
        {"event": command("i1", "gh pr list")},
        {"event": command("i1", "gh pr list", "completed", aggregated_output="#7", exit_code=0)},
        {"event": {"type": "item.started", "item": mcp_item}},
        {"event": {"type": "item.completed", "item": {**mcp_item, "status": "failed"}}},
        {"event": {"type": "item.completed", "item": {"id": "r", "type": "reasoning"}}},
        {"event": MESSAGE},
        {"event": turn_completed(1000, 600, 50, reasoning=20, written=100)},
    ]
    write_rollout(codex_home, "th-9", responses=3)
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error is None
    assert result.final_text == "{}"
    assert result.session_id == "th-9"
    assert (result.api_calls, result.internal_retry_count) == (3, 0)
    # Codex's input holds the cached and cache-written tokens, its output the reasoning ones.
    assert result.tokens == Tokens(
        input=300, output=30, reasoning=20, cache_read=600, cache_write=100
    )
    # Ready when thread.started arrives, which Codex prints after 0.2 s: the arrival times
    # themselves are checked in test_ready_at_thread_started_answered_at_the_agent_message.
    assert result.startup_ms is not None and result.startup_ms >= 200
    assert result.latency_ms is not None and result.latency_ms >= 0
    assert result.timing_breakdown is not None
    shell, mcp = result.tool_calls
    durations = [call.duration_ms or 0.0 for call in result.tool_calls]
    assert result.timing_breakdown["tool_ms"] == pytest.approx(sum(durations))
    assert (shell.name, shell.arguments, shell.ok, shell.output) == (
        "command_execution",
        {"command": "gh pr list"},
        True,
        "#7",
    )
    assert shell.duration_ms is not None and shell.duration_ms >= 0
    assert (mcp.name, mcp.arguments, mcp.ok) == ("mcp__ghxbench__pr_view", {"number": 7}, False)


def test_ready_at_thread_started_answered_at_the_agent_message() -> None:
    """The timings, from the arrival time of each line (what the process runner stamps)."""
    stream = CodexStream(clock=RuntimeClock(started=100.0))
    for arrived, event in [
        (100.2, STARTED),
        (100.2, {"type": "turn.started"}),
        (100.25, command("i1", "gh pr list")),
        (100.55, command("i1", "gh pr list", "completed", aggregated_output="#7", exit_code=0)),
        (100.6, {"type": "item.completed", "item": {"id": "r", "type": "reasoning"}}),
        (100.75, MESSAGE),
        (101.05, turn_completed(1000, 600, 50)),
    ]:
        stream.feed(json.dumps(event), arrived)
    # spawn -> thread.started is startup; thread.started -> the agent message is latency (not
    # turn.completed, 0.3 s later); the command ran from its item.started to its completion
    assert stream.clock.startup_ms() == pytest.approx(200.0)
    assert stream.clock.latency_ms() == pytest.approx(550.0)
    (shell,) = stream.tool_calls
    assert shell.duration_ms == pytest.approx(300.0)


def test_a_turn_that_ends_without_a_message_is_answered_when_it_completes() -> None:
    stream = CodexStream(clock=RuntimeClock(started=10.0))
    for arrived, event in [(10.5, STARTED), (12.0, turn_completed(10, 0, 1))]:
        stream.feed(json.dumps(event), arrived)
    assert stream.clock.latency_ms() == pytest.approx(1500.0)


def test_usage_adds_up_over_turns(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"event": turn_completed(100, 0, 10)},
        {"event": turn_completed(300, 200, 5)},
    ]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.tokens == Tokens(input=200, output=15, cache_read=200)
    assert result.api_calls is None  # no rollout (e.g. --ephemeral): unknown, not a guess
    assert (result.startup_ms, result.latency_ms) == (None, None)  # never ready


def test_tool_durations_run_from_the_models_call_to_the_result(
    tmp_path: Path, codex_home: Path
) -> None:
    steps: list[dict[str, Any]] = [
        {"event": STARTED},
        {"event": command("i1", "gh pr list")},
        {"event": command("i1", "gh pr list", "completed", aggregated_output="#7", exit_code=0)},
        {"event": MESSAGE},
        {"event": turn_completed(10, 0, 1)},
    ]
    # Codex reports the command's start late; the rollout has the model's call.
    write_rollout(codex_home, "th-9", responses=2, calls=[("call_1", 1_000_000, 1_000_375)])
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    (call,) = result.tool_calls
    assert call.duration_ms == pytest.approx(375.0)
    assert result.timing_breakdown is not None
    assert result.timing_breakdown["tool_ms"] == pytest.approx(375.0)
    assert result.api_calls == 2
    assert result.sdk_latency_ms == 945  # Codex's own turn duration


def test_retried_requests_are_counted_not_fatal(tmp_path: Path, codex_home: Path) -> None:
    notice = "Reconnecting... {}/5 (We're currently experiencing high demand.)"
    steps: list[dict[str, Any]] = [
        {"event": STARTED},
        {"event": {"type": "error", "message": notice.format(1)}},
        {"event": {"type": "error", "message": notice.format(2)}},
        {"event": MESSAGE},
        {"event": turn_completed(10, 0, 1)},
    ]
    write_rollout(codex_home, "th-9", responses=1)
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error is None
    assert (result.api_calls, result.internal_retry_count) == (3, 2)


@pytest.mark.parametrize("mode", ["agent_direct", "ghx", "mcp"])
def test_command_line_per_mode(tmp_path: Path, mode: str) -> None:
    launcher = str(tmp_path / "bin" / "github-mcp-server")
    env = fake_env(
        tmp_path, [{"event": turn_completed(1, 0, 1)}], GHXBENCH_MCP_COMMAND=f"{launcher} stdio"
    )
    request = fake_request(tmp_path, [], mode=mode, model="openai/gpt-5-codex", env=env)
    assert CodexAdapter().run(request).error is None
    argv = record(tmp_path)["argv"][1:]
    assert argv[:2] == ["exec", "--json"]
    assert argv[argv.index("--model") + 1] == "gpt-5-codex"
    assert argv[argv.index("--cd") + 1] == str(tmp_path)
    assert argv[-1] == f"{request.instructions}\n\n{request.prompt}"
    overrides = [argv[i + 1] for i, a in enumerate(argv) if a == "-c"]
    # Commands run in a plain shell with the item's PATH; no hosted web search in any mode.
    assert overrides[:2] == ["allow_login_shell=false", 'web_search="disabled"']
    if mode == "mcp":
        # No shell tool. The backend's launcher holds the token; the runtime gets its path.
        assert overrides[2:] == [
            "features.shell_tool=false",
            f"mcp_servers.mcp.command={json.dumps(launcher)}",
            'mcp_servers.mcp.args=["stdio"]',
            "mcp_servers.mcp.env={}",
            "mcp_servers.mcp.required=true",
        ]
    else:
        assert overrides[2:] == []


def test_the_fake_can_drive_sandbox_tools_on_path(tmp_path: Path) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "gh").write_text('#!/bin/sh\necho "gh called with $*"\n')
    (tools / "gh").chmod(0o755)
    env = fake_env(
        tmp_path,
        [
            {"run": ["gh", "pr", "list"]},
            {
                "event": {
                    "type": "item.completed",
                    "item": {"id": "m", "type": "agent_message", "text": "$LAST_OUTPUT"},
                }
            },
            {"event": turn_completed(1, 0, 1)},
        ],
    )
    env["PATH"] = f"{tools}{os.pathsep}{env['PATH']}"
    result = CodexAdapter().run(fake_request(tmp_path, [], env=env))
    assert result.final_text == "gh called with pr list"


def test_turn_failed_is_a_runner_error(tmp_path: Path) -> None:
    message = "Missing environment variable: `SCRIPTED_KEY`."
    steps: list[dict[str, Any]] = [
        {"event": STARTED},
        {"event": {"type": "error", "message": message}},
        {"event": {"type": "turn.failed", "error": {"message": message}}},
        {"exit": 1},
    ]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error == f"codex: turn failed: {message}"


def test_a_model_api_error_is_reported_with_the_apis_message(
    tmp_path: Path, codex_home: Path
) -> None:
    body = {"error": {"message": "model is tired", "type": "invalid_request_error"}}
    steps: list[dict[str, Any]] = [
        {"event": STARTED},
        {"event": {"type": "error", "message": json.dumps(body)}},
        {"event": {"type": "turn.failed", "error": {"message": json.dumps(body)}}},
        {"exit": 1},
    ]
    write_rollout(codex_home, "th-9", responses=0)
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error == "codex: model API error: model is tired"
    assert result.api_calls == 1  # the refused request


def test_hang_past_the_deadline_kills_the_process_group(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [{"event": STARTED}, {"spawn_sleeper": 60}, {"sleep": 60}]
    result = CodexAdapter().run(fake_request(tmp_path, steps, timeout_s=1.0))
    assert result.error is not None and "timeout" in result.error
    assert group_gone(started_group(tmp_path))


def test_crash_mid_stream_is_a_runner_error(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [{"event": STARTED}, {"event": command("i1", "gh pr list")}]
    steps.append({"kill": int(signal.SIGKILL)})
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error == "codex was killed by SIGKILL without a completed turn"


def test_garbage_lines_are_recorded_not_fatal(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"line": "Reading prompt from stdin..."},
        {"event": turn_completed(5, 0, 1)},
    ]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error is None
    assert result.transcript["garbage_lines"] == ["Reading prompt from stdin..."]


def test_api_key_never_reaches_the_transcript(tmp_path: Path, monkeypatch: Any) -> None:
    canary = "sk-proj-CANARY-987654321"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    leak = {
        "type": "item.completed",
        "item": {"id": "m", "type": "agent_message", "text": "$ENV{OPENAI_API_KEY}"},
    }
    steps: list[dict[str, Any]] = [
        {"event": leak},
        {"stderr": "$ENV{OPENAI_API_KEY}"},
        {"event": turn_completed(1, 0, 1)},
    ]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert "OPENAI_API_KEY" in record(tmp_path)["env"]
    assert canary not in json.dumps(result.transcript)
    assert result.final_text == "[redacted]"


def test_preflight_without_the_binary_is_unavailable(tmp_path: Path) -> None:
    adapter = CodexAdapter(command=str(tmp_path / "no-such-codex"))
    with pytest.raises(AdapterUnavailable, match="not found"):
        adapter.check_ready({"OPENAI_API_KEY": "x"})


def test_preflight_without_credentials_is_unavailable(tmp_path: Path) -> None:
    adapter = CodexAdapter(command=str(FAKES / "codex"))
    with pytest.raises(AdapterUnavailable, match="OPENAI_API_KEY"):
        adapter.check_ready({"HOME": str(tmp_path)})


PROVIDER_CONFIG = """model_provider = "local"
[model_providers.local]
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "LOCAL_LLM_AUTH"
env_http_headers = { "X-Org" = "LOCAL_LLM_ORG" }
[model_providers.keyless]
base_url = "http://127.0.0.1:9/v1"
"""


def test_preflight_checks_the_configured_providers_key(tmp_path: Path, codex_home: Path) -> None:
    (codex_home / "config.toml").write_text(PROVIDER_CONFIG)
    adapter = CodexAdapter(command=str(FAKES / "codex"))
    env = {"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "sk-not-this-one"}
    with pytest.raises(AdapterUnavailable, match="LOCAL_LLM_AUTH"):
        adapter.check_ready(env)
    adapter.check_ready({**env, "LOCAL_LLM_AUTH": "secret-value"})
    # A -c override in extra_args selects a provider that needs no key.
    adapter.extra_args = ["-c", 'model_provider="keyless"']
    adapter.check_ready({"CODEX_HOME": str(codex_home)})


def test_the_runtimes_own_settings_pass_through_and_stay_secret(
    tmp_path: Path, codex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (codex_home / "config.toml").write_text(PROVIDER_CONFIG)
    auth = "plain-looking-value-4711"  # the variable's name does not look like a secret
    monkeypatch.setenv("LOCAL_LLM_AUTH", auth)
    monkeypatch.setenv("LOCAL_LLM_ORG", "org-7")
    monkeypatch.setenv("CODEX_SOMETHING", "1")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-8")
    monkeypatch.setenv("UNRELATED_SETTING", "1")
    leak = {"type": "item.completed", "item": {"id": "m", "type": "agent_message", "text": auth}}
    steps: list[dict[str, Any]] = [{"event": leak}, {"event": turn_completed(1, 0, 1)}]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    names = record(tmp_path)["env"]
    assert {"LOCAL_LLM_AUTH", "LOCAL_LLM_ORG", "CODEX_SOMETHING", "OPENAI_ORG_ID"} <= set(names)
    assert "UNRELATED_SETTING" not in names
    assert "CODEX_HOME" in names
    assert result.final_text == "[redacted]"
    assert auth not in json.dumps(result.transcript)


def test_cost_comes_from_the_price_table(tmp_path: Path) -> None:
    pytest.importorskip("pytest_ghxbench.adapters.pricing")
    steps: list[dict[str, Any]] = [{"event": turn_completed(1000, 600, 50)}]
    result = CodexAdapter().run(fake_request(tmp_path, steps, model="openai/gpt-5"))
    # gpt-5: $1.25 input, $0.125 cached input, $10 output per million tokens
    assert result.cost_usd == pytest.approx((400 * 1.25 + 600 * 0.125 + 50 * 10.0) / 1e6)
    assert result.model == "openai/gpt-5"


def test_unpriced_model_leaves_cost_to_the_harness(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [{"event": turn_completed(10, 0, 1)}]
    result = CodexAdapter().run(fake_request(tmp_path, steps, model="openai/unpriced-model"))
    assert result.cost_usd is None


def test_the_model_option_can_pick_a_configured_provider(tmp_path: Path, codex_home: Path) -> None:
    (codex_home / "config.toml").write_text(PROVIDER_CONFIG)
    request = fake_request(tmp_path, [{"event": turn_completed(1, 0, 1)}], model="keyless/m-1")
    result = CodexAdapter().run(request)
    argv = record(tmp_path)["argv"]
    assert argv[argv.index("--model") + 1] == "m-1"
    assert 'model_provider="keyless"' in argv
    assert result.model == "keyless/m-1"
    # The configured provider by default, and the configured model when none is given.
    (codex_home / "config.toml").write_text('model = "m-2"\n' + PROVIDER_CONFIG)
    result = CodexAdapter().run(fake_request(tmp_path, [{"event": turn_completed(1, 0, 1)}]))
    assert "--model" not in record(tmp_path)["argv"]
    assert result.model == "local/m-2"
