"""The opencode adapter against a fake ``opencode serve`` that speaks the documented API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.opencode.adapter import OpencodeAdapter, OpencodeOptions
from pytest_ghxbench.adapters.opencode.events import RetryWatcher
from pytest_ghxbench.api import AdapterUnavailable, RunRequest, Tokens
from pytest_ghxbench.backends.launcher import MCP_COMMAND_ENV

FAKE = Path(__file__).parent / "fakes_opencode" / "opencode"

USER = {
    "info": {"role": "user", "cost": 99.0, "time": {"created": 900}},
    "parts": [{"type": "text", "text": "do it"}],
}
FIRST = {
    "info": {
        "role": "assistant",
        "providerID": "anthropic",
        "modelID": "claude-test",
        "tokens": {"input": 100, "output": 20, "reasoning": 5, "cache": {"read": 50, "write": 10}},
        "cost": 0.25,
        "time": {"created": 1000, "completed": 1400},
    },
    "parts": [
        {"type": "step-start"},
        {"type": "reasoning", "text": "think", "time": {"start": 1000, "end": 1100}},
        {
            "type": "tool",
            "tool": "bash",
            "state": {
                "status": "completed",
                "input": {"command": "gh issue view 1"},
                "output": "issue 1",
                "time": {"start": 1150, "end": 1350},
            },
        },
        {"type": "step-finish", "reason": "tool-calls"},
    ],
}
SECOND = {
    "info": {
        "role": "assistant",
        "providerID": "anthropic",
        "modelID": "claude-test",
        "tokens": {"input": 200, "output": 30, "reasoning": 0, "cache": {"read": 150, "write": 0}},
        "cost": 0.5,
        "time": {"created": 1400, "completed": 1900},
    },
    "parts": [
        {"type": "reasoning", "text": "again", "time": {"start": 1400, "end": 1450}},
        {
            "type": "tool",
            "tool": "ghx",
            "state": {
                "status": "error",
                "input": {"task": "pr.view"},
                "error": "boom",
                "time": {"start": 1500, "end": 1600},
            },
        },
        {"type": "text", "text": '{"ok": true, "data": {}, "error": null, "meta": {}}'},
    ],
}
OK_SESSION = {"behavior": "ok", "messages": [USER, FIRST, SECOND]}


@pytest.fixture
def fake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., OpencodeAdapter]]:
    """Builds an adapter whose binary is the fake, playing ``sessions`` in order."""
    made: list[OpencodeAdapter] = []

    def build(
        sessions: list[dict[str, Any]],
        providers: tuple[str, ...] = ("anthropic",),
        model: str | None = "anthropic/claude-test",
        **extra: Any,
    ) -> OpencodeAdapter:
        script = tmp_path / "script.json"
        plan = {"version": "9.8.7", "providers": list(providers), "sessions": sessions, **extra}
        script.write_text(json.dumps(plan))
        binary = tmp_path / "bin" / "opencode"
        binary.parent.mkdir(exist_ok=True)
        # the server's environment is scrubbed: the "binary" knows its script, as a real
        # runtime knows its config
        binary.write_text(
            f"#!/bin/sh\nFAKE_OPENCODE_SCRIPT={script} "
            f"FAKE_OPENCODE_LOG={tmp_path / 'requests.jsonl'} "
            f'exec {sys.executable} {FAKE} "$@"\n'
        )
        binary.chmod(0o755)
        options = OpencodeOptions(binary=str(binary), model=model, startup_timeout_s=15)
        adapter = OpencodeAdapter(options=options)
        made.append(adapter)
        return adapter

    yield build
    for adapter in made:
        adapter.close()


def requests_log(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "requests.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def request(
    tmp_path: Path, *, mode: str = "ghx", timeout_s: float = 20.0, env: Mapping[str, str] = {}
) -> RunRequest:
    return RunRequest(
        scenario=None,
        mode=mode,
        prompt="View issue 1 and answer with the envelope.",
        instructions="Use ghx.",
        timeout_s=timeout_s,
        iteration=1,
        workdir=tmp_path,
        env=env,
        backend=None,
        item_id="issue-view-001",
    )


def test_one_server_a_session_per_item_and_exact_sums(fake: Any, tmp_path: Path) -> None:
    adapter = fake([OK_SESSION, OK_SESSION])
    first = adapter.run(request(tmp_path))
    pid = adapter.server_pid
    before_second = time.monotonic()
    second = adapter.run(request(tmp_path))
    second_ms = (time.monotonic() - before_second) * 1000
    assert adapter.server_pid == pid and pid is not None
    assert (first.session_id, second.session_id) == ("ses_0", "ses_1")
    for result in (first, second):
        assert result.error is None
        # assistant messages only: the user message's cost is not counted
        assert result.tokens == Tokens(
            input=300, output=50, reasoning=5, cache_read=200, cache_write=10
        )
        assert result.cost_usd == 0.75
        assert result.api_calls == 2
        assert result.model == "anthropic/claude-test"
        assert result.final_text == '{"ok": true, "data": {}, "error": null, "meta": {}}'
        # reasoning 100+50, gaps 1150-1100 and 1500-1450, tools 200+100, post 1900-1600
        assert result.timing_breakdown == {
            "reasoning_ms": 150.0,
            "reasoning_to_tool_ms": 100.0,
            "tool_ms": 300.0,
            "post_tool_ms": 300.0,
        }
        names = [(c.name, c.ok, c.duration_ms, c.output) for c in result.tool_calls]
        assert names == [("bash", True, 200.0, "issue 1"), ("ghx", False, 100.0, "boom")]
        # the runtime's own duration: the prompt's creation to the last completion
        assert result.sdk_latency_ms == 1000.0
        assert result.latency_ms is not None and result.startup_ms is not None
    serves = [e for e in requests_log(tmp_path) if e.get("event") == "serve"]
    assert len(serves) == 1
    # the server's start is the startup of the item that started it, not of the next one
    # (whose whole run can take less time than that start did)
    server = adapter._server
    assert server is not None and server.startup_s > 0
    assert first.startup_ms is not None and first.startup_ms >= server.startup_s * 1000
    assert second.startup_ms is not None and second.startup_ms <= second_ms


def test_prompt_model_and_instructions_reach_the_server(fake: Any, tmp_path: Path) -> None:
    adapter = fake([OK_SESSION])
    adapter.run(request(tmp_path))
    prompts = [
        e
        for e in requests_log(tmp_path)
        if e.get("path") == "/session/ses_0/message" and e["method"] == "POST"
    ]
    assert prompts[0]["body"] == {
        "parts": [{"type": "text", "text": "View issue 1 and answer with the envelope."}],
        "system": "Use ghx.",
        "model": {"providerID": "anthropic", "modelID": "claude-test"},
    }
    deleted = [e for e in requests_log(tmp_path) if e.get("method") == "DELETE"]
    assert [e["path"] for e in deleted] == ["/session/ses_0"]


def test_password_stays_out_of_the_result(fake: Any, tmp_path: Path) -> None:
    adapter = fake([OK_SESSION, {"behavior": "garbage"}])
    results = [adapter.run(request(tmp_path)), adapter.run(request(tmp_path))]
    password = adapter._server.password  # type: ignore[union-attr]
    assert len(password) >= 20
    for result in results:
        assert password not in json.dumps(result.transcript) + repr(result)


def test_hang_is_a_timeout_and_the_server_serves_the_next_item(fake: Any, tmp_path: Path) -> None:
    adapter = fake([{"behavior": "hang"}, OK_SESSION])
    hung = adapter.run(request(tmp_path, timeout_s=1.0))
    assert hung.error is not None and "timeout" in hung.error
    pid = adapter.server_pid
    after = adapter.run(request(tmp_path))
    assert after.error is None and after.tokens.input == 300
    assert adapter.server_pid == pid
    aborts = [e["path"] for e in requests_log(tmp_path) if e.get("path", "").endswith("/abort")]
    assert aborts == ["/session/ses_0/abort"]


@pytest.mark.parametrize("behavior", ["garbage", "garbage_messages"])
def test_garbage_mid_item_is_a_runner_error(fake: Any, tmp_path: Path, behavior: str) -> None:
    adapter = fake([{"behavior": behavior}, OK_SESSION])
    broken = adapter.run(request(tmp_path))
    assert broken.error is not None and "not JSON" in broken.error
    assert adapter.run(request(tmp_path)).error is None


def test_a_dead_server_is_a_runner_error_and_is_restarted(fake: Any, tmp_path: Path) -> None:
    adapter = fake([{"behavior": "die"}, OK_SESSION])
    died = adapter.run(request(tmp_path))
    assert died.error is not None and "opencode failed mid-item" in died.error
    first_pid = adapter.server_pid
    after = adapter.run(request(tmp_path))
    assert after.error is None
    assert adapter.server_pid != first_pid


def test_each_item_tools_run_in_that_items_environment(fake: Any, tmp_path: Path) -> None:
    items = []
    for mark in ("world-A", "world-B"):
        shims = tmp_path / mark
        shims.mkdir()
        gh = shims / "gh"
        gh.write_text('#!/bin/sh\necho "$ITEM_MARK $*"\n')
        gh.chmod(0o755)
        items.append({"PATH": f"{shims}{os.pathsep}{os.environ['PATH']}", "ITEM_MARK": mark})
    run = ["gh", "issue", "view", "1"]
    adapter = fake([{**OK_SESSION, "run": run}, {**OK_SESSION, "run": run}])
    for env in items:
        assert adapter.run(request(tmp_path, env=env)).error is None
    outputs = [e["stdout"] for e in requests_log(tmp_path) if e.get("event") == "tool"]
    assert outputs == ["world-A issue view 1\n", "world-B issue view 1\n"]


def test_mcp_items_get_a_server_of_their_own_with_only_the_mcp_tools(
    fake: Any, tmp_path: Path
) -> None:
    adapter = fake([OK_SESSION, OK_SESSION])
    launcher = tmp_path / "item" / "bin" / "github-mcp-server"
    item = {MCP_COMMAND_ENV: f"{launcher} stdio", "PATH": f"{launcher.parent}:/usr/bin:/bin"}
    mcp = adapter.run(request(tmp_path, mode="mcp", env=item))
    assert mcp.error is None
    assert adapter.run(request(tmp_path, mode="ghx")).error is None
    serves = [e for e in requests_log(tmp_path) if e.get("event") == "serve"]
    assert len(serves) == 2 and serves[0]["pid"] != serves[1]["pid"]
    own, shared = serves[0], serves[1]
    assert own["config"]["mcp"] == {
        "mcp": {"type": "local", "command": [str(launcher), "stdio"], "enabled": True}
    }
    # only the MCP server's tools (registered under the mode's name): no shell, no shims
    assert own["config"]["permission"] == {"*": "deny", "mcp_*": "allow"}
    assert own["env"]["PATH"] == item["PATH"]
    assert "mcp" not in shared["config"]
    assert shared["config"]["permission"] == {
        "*": "deny",
        "bash": "allow",
        "external_directory": "allow",
    }
    assert shared["env"]["PATH"].split(":")[0].endswith("/bin")
    # the item's server start (providers loaded, MCP server connected) is its startup
    assert mcp.startup_ms is not None and mcp.latency_ms is not None
    paths = [e.get("path") for e in requests_log(tmp_path) if e.get("pid") == own["pid"]]
    assert paths.index("/mcp") < paths.index("/session")


def test_an_mcp_server_that_does_not_connect_is_a_runner_error(fake: Any, tmp_path: Path) -> None:
    adapter = fake([OK_SESSION], mcp_failed="mcp")
    item = {MCP_COMMAND_ENV: "nowhere-mcp stdio"}
    result = adapter.run(request(tmp_path, mode="mcp", env=item))
    assert result.error is not None
    assert "MCP server 'mcp' did not connect (status 'failed': spawn ENOENT)" in result.error


def test_an_mcp_item_without_an_mcp_server_is_a_runner_error(fake: Any, tmp_path: Path) -> None:
    result = fake([OK_SESSION]).run(request(tmp_path, mode="mcp"))
    assert result.error is not None and MCP_COMMAND_ENV in result.error


def test_preflight_records_the_version_and_checks_credentials(fake: Any, tmp_path: Path) -> None:
    adapter = fake([], providers=("anthropic", "openai"))
    adapter.preflight()
    assert adapter.version == "9.8.7"
    no_credentials = fake([], providers=("openai",))
    with pytest.raises(AdapterUnavailable, match="provider 'anthropic' has no credentials"):
        no_credentials.preflight()


def test_preflight_without_the_binary_is_unavailable(tmp_path: Path) -> None:
    options = OpencodeOptions(binary=str(tmp_path / "nowhere" / "opencode"))
    with pytest.raises(AdapterUnavailable, match="was not found on PATH"):
        OpencodeAdapter(options=options).preflight()


def test_close_stops_the_server(fake: Any, tmp_path: Path) -> None:
    adapter = fake([OK_SESSION])
    adapter.run(request(tmp_path))
    process = adapter._server.process  # type: ignore[union-attr]
    adapter.close()
    assert process.poll() is not None
    assert adapter.server_pid is None


def test_bad_config_names_the_key() -> None:
    with pytest.raises(AdapterUnavailable, match=r"unknown key.*bogus"):
        OpencodeOptions.from_table({"bogus": 1}, None)
    with pytest.raises(AdapterUnavailable, match="PROVIDER/MODEL"):
        OpencodeOptions.from_table({"model": "gpt"}, None)


def test_hook_contributes_the_adapter() -> None:
    from pytest_ghxbench.adapters.opencode.hooks import pytest_ghxbench_adapters

    (adapter,) = pytest_ghxbench_adapters(None)  # type: ignore[arg-type]
    assert adapter.name == "opencode"
    assert tuple(adapter.modes) == ("agent_direct", "mcp", "ghx")


def test_the_server_start_in_preflight_is_the_first_items_startup(
    fake: Any, tmp_path: Path
) -> None:
    adapter = fake([OK_SESSION, OK_SESSION])
    adapter.preflight()
    server = adapter._server
    assert server is not None and server.startup_s > 0
    first = adapter.run(request(tmp_path))
    before_second = time.monotonic()
    second = adapter.run(request(tmp_path))
    second_ms = (time.monotonic() - before_second) * 1000
    assert first.startup_ms is not None and first.startup_ms >= server.startup_s * 1000
    assert second.startup_ms is not None and second.startup_ms <= second_ms


def test_a_model_api_error_is_a_runner_error_with_the_apis_message(
    fake: Any, tmp_path: Path
) -> None:
    failed = {
        "info": {
            "role": "assistant",
            "tokens": {"input": 0, "output": 0},
            "time": {"created": 1000, "completed": 1100},
            "error": {
                "name": "APIError",
                "data": {
                    "message": "Rate limit reached for requests",
                    "statusCode": 429,
                    "isRetryable": True,
                    "responseBody": '{"error": {"message": "Rate limit reached for requests"}}',
                },
            },
        },
        "parts": [],
    }
    adapter = fake([{"behavior": "ok", "messages": [USER, failed]}])
    result = adapter.run(request(tmp_path))
    assert result.error == "API error: HTTP 429: Rate limit reached for requests"
    assert result.api_calls == 1


def test_a_call_of_a_tool_not_offered_is_a_failed_call_of_that_tool(
    fake: Any, tmp_path: Path
) -> None:
    refused = "Model tried to call unavailable tool 'bash'. Available tools: ghxbench_get_issue."
    invalid = {
        "type": "tool",
        "tool": "invalid",
        "state": {
            "status": "completed",
            "input": {"tool": "bash", "error": refused},
            "output": f"The arguments provided to the tool are invalid: {refused}",
            "time": {"start": 1150, "end": 1151},
        },
    }
    first = {**FIRST, "parts": [invalid]}
    adapter = fake([{"behavior": "ok", "messages": [USER, first, SECOND]}])
    result = adapter.run(request(tmp_path))
    assert [(c.name, c.ok) for c in result.tool_calls] == [("bash", False), ("ghx", False)]
    assert "unavailable tool 'bash'" in (result.tool_calls[0].output or "")


def test_the_server_gets_a_scrubbed_environment(
    fake: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_harness_secret_0123456789")
    monkeypatch.setenv("SOME_UNRELATED_SETTING", "1")
    monkeypatch.setenv("OPENCODE_CONFIG", str(tmp_path / "mine.json"))
    monkeypatch.setenv("OPENCODE_DISABLE_AUTOUPDATE", "0")
    monkeypatch.setenv("LOCAL_LLM_API_KEY", "sk-local-0123456789")
    adapter = fake([OK_SESSION])
    assert adapter.run(request(tmp_path)).error is None
    (serve,) = [e for e in requests_log(tmp_path) if e.get("event") == "serve"]
    env = serve["env"]
    assert "GITHUB_TOKEN" not in env and "SOME_UNRELATED_SETTING" not in env
    assert env["OPENCODE_CONFIG"] == str(tmp_path / "mine.json")
    assert env["LOCAL_LLM_API_KEY"] == "sk-local-0123456789"
    assert env["OPENCODE_DISABLE_AUTOUPDATE"] == "0"  # the user's setting wins
    assert env["OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER"] == "1"  # a quiet default


def test_the_shims_refuse_outside_an_item(fake: Any, tmp_path: Path) -> None:
    adapter = fake([OK_SESSION])
    assert adapter.run(request(tmp_path)).error is None
    shim = adapter._tool_environment().shim_dir / "gh"
    done = subprocess.run([str(shim), "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 127
    assert "no pytest-ghxbench item is running" in done.stderr


def test_a_key_in_the_provider_config_stays_out_of_the_transcript(
    fake: Any, tmp_path: Path
) -> None:
    key = "sk-written-into-opencode-json-42"
    leaky = {
        **SECOND,
        "parts": [{"type": "text", "text": f"the key is {key}"}],
    }
    adapter = fake([{"behavior": "ok", "messages": [USER, FIRST, leaky]}], provider_key=key)
    adapter.preflight()
    result = adapter.run(request(tmp_path))
    assert key not in json.dumps(result.transcript) + (result.final_text or "")


def test_retried_model_requests_are_counted_from_the_event_stream(
    fake: Any, tmp_path: Path
) -> None:
    adapter = fake([{**OK_SESSION, "retries": 2}, OK_SESSION])
    retried = adapter.run(request(tmp_path))
    assert retried.error is None
    assert (retried.api_calls, retried.internal_retry_count) == (4, 2)
    assert retried.transcript["retries"] == ["Overloaded", "Overloaded"]
    again = adapter.run(request(tmp_path))
    assert (again.api_calls, again.internal_retry_count) == (2, 0)


def test_retries_the_server_sent_before_its_answer_count_however_slow_the_reader(
    fake: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The events reach the client before the answer does (the fake waits for its kernel's
    # acknowledgement); a reader still busy with the first when the answer comes, as on a
    # loaded machine, takes in the rest before the watcher stops.
    handle = RetryWatcher._handle

    def slowly(watcher: RetryWatcher, data: bytes) -> None:
        time.sleep(0.3)
        handle(watcher, data)

    monkeypatch.setattr(RetryWatcher, "_handle", slowly)
    retried = fake([{**OK_SESSION, "retries": 3}]).run(request(tmp_path))
    assert retried.error is None
    assert (retried.api_calls, retried.internal_retry_count) == (5, 3)
