"""The codex adapter against a fake ``codex`` printing documented ``exec --json`` events."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.codex.adapter import CodexAdapter
from pytest_ghxbench.api import AdapterUnavailable, Tokens
from tests.adapters.fakes.helpers import FAKES, fake_env, fake_request, group_gone, record

STARTED = {"type": "thread.started", "thread_id": "th-9"}


def command(item_id: str, cmd: str, status: str = "in_progress", **more: Any) -> dict[str, Any]:
    kind = "item.started" if status == "in_progress" else "item.completed"
    item = {"id": item_id, "type": "command_execution", "command": cmd, "status": status, **more}
    return {"type": kind, "item": item}


def turn_completed(inp: int, cached: int, out: int) -> dict[str, Any]:
    usage = {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out}
    return {"type": "turn.completed", "usage": usage}


MESSAGE = {"type": "item.completed", "item": {"id": "m1", "type": "agent_message", "text": "{}"}}


def test_rows_match_the_stream(tmp_path: Path) -> None:
    mcp_item = {
        "id": "i2",
        "type": "mcp_tool_call",
        "server": "ghxbench",
        "tool": "pr_view",
        "arguments": {"number": 7},
        "status": "in_progress",
    }
    steps: list[dict[str, Any]] = [
        {"event": STARTED},
        {"event": {"type": "turn.started"}},
        {"event": command("i1", "gh pr list")},
        {"sleep": 0.3},
        {"event": command("i1", "gh pr list", "completed", aggregated_output="#7", exit_code=0)},
        {"event": {"type": "item.started", "item": mcp_item}},
        {"event": {"type": "item.completed", "item": {**mcp_item, "status": "failed"}}},
        {"event": {"type": "item.completed", "item": {"id": "r", "type": "reasoning"}}},
        {"event": MESSAGE},
        {"event": turn_completed(1000, 600, 50)},
    ]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error is None
    assert result.final_text == "{}"
    assert result.session_id == "th-9"
    assert result.api_calls == 1
    assert result.tokens == Tokens(input=400, output=50, cache_read=600)
    shell, mcp = result.tool_calls
    assert (shell.name, shell.arguments, shell.ok, shell.output) == (
        "command_execution",
        {"command": "gh pr list"},
        True,
        "#7",
    )
    assert shell.duration_ms is not None and 250 <= shell.duration_ms < 3000
    assert (mcp.name, mcp.arguments, mcp.ok) == ("mcp__ghxbench__pr_view", {"number": 7}, False)


def test_usage_adds_up_over_turns(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"event": turn_completed(100, 0, 10)},
        {"event": turn_completed(300, 200, 5)},
    ]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.tokens == Tokens(input=200, output=15, cache_read=200)
    assert result.api_calls == 2


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
    if mode == "mcp":
        # The backend's launcher holds the token; the runtime is given only its path.
        assert overrides[0] == f"mcp_servers.ghxbench.command={json.dumps(launcher)}"
        assert overrides[1] == 'mcp_servers.ghxbench.args=["stdio"]'
        assert overrides[2] == "mcp_servers.ghxbench.env={}"
    else:
        assert overrides == []


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
    steps: list[dict[str, Any]] = [
        {"event": {"type": "turn.failed", "error": {"message": "rate limited"}}}
    ]
    result = CodexAdapter().run(fake_request(tmp_path, steps))
    assert result.error == "codex: turn.failed: rate limited"


def test_hang_past_the_deadline_kills_the_process_group(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [{"event": STARTED}, {"spawn_sleeper": 60}, {"sleep": 60}]
    result = CodexAdapter().run(fake_request(tmp_path, steps, timeout_s=1.0))
    assert result.error is not None and "timeout" in result.error
    assert group_gone(record(tmp_path)["pgid"])


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
