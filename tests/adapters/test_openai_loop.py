"""The openai adapter against a scripted OpenAI-compatible server, through the real SDK."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.bash_tool import BashTool
from pytest_ghxbench.adapters.openai_chat.adapter import OpenAIAdapter, settings_from_table
from pytest_ghxbench.adapters.openai_chat.loop import LoopLimits, run_loop
from pytest_ghxbench.adapters.openai_chat.tools import BashHost
from pytest_ghxbench.api import AdapterUnavailable, RunRequest, Tokens
from pytest_ghxbench.sandbox.backend import SandboxBackend

CANARY_KEY = "sk-canary-7f3a9c2e1b5d4f6a8e0c"
MODEL = "local/test-model"
REPO_INPUT = '{"owner":"acme-labs","name":"tinykv"}'


class Reply:
    """One scripted HTTP answer to a chat-completions request; ``held`` keeps it back until
    the event is set."""

    def __init__(
        self, body: Mapping[str, Any], status: int = 200, headers: Mapping[str, str] | None = None,
        held: threading.Event | None = None,
    ) -> None:  # fmt: skip
        self.body = body
        self.status = status
        self.headers = dict(headers or {})
        self.held = held


def usage(prompt: int, completion: int, cached: int, reasoning: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def _completion(message: dict[str, Any], use: dict[str, Any], finish: str) -> Reply:
    return Reply(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "test-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": use,
        }
    )


def tool_call(command: str, use: dict[str, Any], call_id: str = "call_1") -> Reply:
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": command})},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return _completion(message, use, "tool_calls")


def mcp_call(name: str, arguments: dict[str, Any], use: dict[str, Any]) -> Reply:
    call = {
        "id": "call_m",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return _completion(
        {"role": "assistant", "content": None, "tool_calls": [call]}, use, "tool_calls"
    )


def final(text: str, use: dict[str, Any]) -> Reply:
    return _completion({"role": "assistant", "content": text}, use, "stop")


def error(status: int, headers: Mapping[str, str] | None = None) -> Reply:
    return Reply({"error": {"message": f"scripted {status}", "type": "x"}}, status, headers)


class ScriptedServer:
    """Answers chat-completions requests from a script, in order; records every request."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, reply: Reply) -> None:
                payload = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                model = {"id": "test-model", "object": "model", "created": 0, "owned_by": "t"}
                self._send(Reply({"object": "list", "data": [model]}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(
                    {"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                )
                reply = server.script.pop(0) if server.script else error(500)
                if reply.held is not None:
                    reply.held.wait(60)  # a hang guard: the late answer then fails the test
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(reply)  # the client may have given up (deadline test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    yield scripted
    scripted.close()


PRICES = {MODEL: {"input": 1.0, "cached_input": 0.5, "output": 10.0}}


def make_adapter(server: ScriptedServer, **table: Any) -> OpenAIAdapter:
    settings = settings_from_table(
        {"base_url": server.url, "backoff_base_s": 0.01, **table}, MODEL, PRICES
    )
    return OpenAIAdapter(settings=settings)


def sandbox_request(tmp_path: Path, mode: str, timeout_s: float = 30.0) -> RunRequest:
    session = SandboxBackend().open_session("item", tmp_path, mode=mode)
    return RunRequest(
        scenario=None,
        mode=mode,
        prompt="Show repository acme-labs/tinykv",
        instructions="Use the tools.",
        timeout_s=timeout_s,
        iteration=1,
        workdir=tmp_path,
        env=session.env,
        backend=session,
        model=MODEL,
    )


@pytest.fixture(autouse=True)
def canary_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_ghx_tool_calls_run_on_the_sandbox_and_usage_is_summed(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.script = [
        tool_call(f"ghx run repo.view --input '{REPO_INPUT}'", usage(1000, 50, 200, 10)),
        tool_call(f"ghx run repo.view --input '{REPO_INPUT}' | cat", usage(1300, 80, 1000, 30)),
        final('{"ok": true}', usage(1500, 20, 1200, 0)),
    ]
    result = make_adapter(server).run(sandbox_request(tmp_path, "ghx"))

    assert result.error is None and result.final_text == '{"ok": true}'
    # input = Σ(prompt - cached) = 800+300+300; output = Σ(completion - reasoning) = 40+50+20
    assert result.tokens == Tokens(input=1400, output=110, reasoning=40, cache_read=2400)
    assert result.tokens.total == 3800 + 150
    assert result.cost_usd == pytest.approx((1400 * 1.0 + 2400 * 0.5 + 150 * 10.0) / 1e6)
    assert result.api_calls == 3 and result.internal_retry_count == 0
    assert result.model == MODEL
    first, second = result.tool_calls
    assert (
        first.ok and json.loads(first.output or "")["data"]["nameWithOwner"] == "acme-labs/tinykv"
    )
    assert not second.ok and "refused" in (second.output or "")
    # the model saw the tool output in the next request, and the model name without provider
    tool_messages = [m for m in server.requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert "acme-labs/tinykv" in tool_messages[0]["content"]
    assert server.requests[0]["body"]["model"] == "test-model"
    assert [t["function"]["name"] for t in server.requests[0]["body"]["tools"]] == ["bash"]


def test_api_key_is_sent_but_never_recorded(server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [
        tool_call("ghx capabilities list", usage(10, 5, 0, 0)),
        final("done", usage(20, 5, 0, 0)),
    ]
    result = make_adapter(server).run(sandbox_request(tmp_path, "ghx"))
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {CANARY_KEY}"
    recorded = json.dumps(result.transcript, default=str) + repr(result)
    assert CANARY_KEY not in recorded
    assert CANARY_KEY not in (result.tool_calls[0].output or "")


def test_rate_limit_retry_honours_retry_after(server: ScriptedServer) -> None:
    server.script = [error(429, {"Retry-After": "2"}), final("ok", usage(10, 2, 0, 0))]
    adapter = make_adapter(server)
    slept: list[float] = []
    outcome = run_loop(
        adapter.client(), "test-model", [{"role": "user", "content": "hi"}],
        BashHost(BashTool("ghx", {})), time.monotonic() + 30, LoopLimits(), sleep=slept.append,
    )  # fmt: skip
    assert slept == [2.0]
    assert outcome.retries == 1 and outcome.api_calls == 2 and outcome.final_text == "ok"
    assert outcome.tokens == Tokens(input=10, output=2)


def test_server_error_retried_with_backoff(server: ScriptedServer) -> None:
    server.script = [error(500), error(503), final("ok", usage(10, 2, 0, 0))]
    adapter = make_adapter(server)
    slept: list[float] = []
    outcome = run_loop(
        adapter.client(), "test-model", [{"role": "user", "content": "hi"}],
        BashHost(BashTool("ghx", {})), time.monotonic() + 30,
        LoopLimits(backoff_base_s=0.5), sleep=slept.append,
    )  # fmt: skip
    assert slept == [0.5, 1.0] and outcome.retries == 2 and outcome.final_text == "ok"


def test_retries_are_counted_in_the_result(server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [error(429, {"Retry-After": "0"}), final("ok", usage(10, 2, 0, 0))]
    result = make_adapter(server).run(sandbox_request(tmp_path, "ghx"))
    assert result.error is None and result.internal_retry_count == 1 and result.api_calls == 2


def test_retries_give_up_with_an_error(server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [error(500), error(500)]
    result = make_adapter(server, max_retries=1).run(sandbox_request(tmp_path, "ghx"))
    assert result.error is not None and "500" in result.error and result.final_text is None


def test_max_turns_is_a_runner_error(server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [tool_call("ghx capabilities list", usage(10, 1, 0, 0)) for _ in range(3)]
    result = make_adapter(server, max_turns=2).run(sandbox_request(tmp_path, "ghx"))
    assert result.error is not None and "max turns" in result.error
    assert result.api_calls == 2 and len(result.tool_calls) == 2
    assert result.tokens == Tokens(input=20, output=2)


def test_deadline_stops_a_slow_model_with_a_timeout(server: ScriptedServer, tmp_path: Path) -> None:
    # The model answers only after the adapter has returned: an adapter that waited for the
    # answer instead of its deadline would never return.
    answered = threading.Event()
    server.script = [Reply(final("late", usage(1, 1, 0, 0)).body, held=answered)]
    try:
        result = make_adapter(server).run(sandbox_request(tmp_path, "ghx", timeout_s=2.0))
    finally:
        answered.set()
    assert result.error is not None and "timeout" in result.error
    assert result.final_text is None and len(server.requests) == 1


def test_mcp_mode_calls_the_real_mcp_server_on_the_sandbox(
    server: ScriptedServer, tmp_path: Path
) -> None:
    arguments = {"owner": "acme-labs", "repo": "tinykv", "issue_number": 3}
    server.script = [
        mcp_call("get_issue", arguments, usage(100, 10, 0, 0)),
        final("ok", usage(200, 5, 100, 0)),
    ]
    result = make_adapter(server).run(sandbox_request(tmp_path, "mcp"))
    assert result.error is None, result.error
    (call,) = result.tool_calls
    assert call.ok and json.loads(call.output or "")["number"] == 3
    names = [t["function"]["name"] for t in server.requests[0]["body"]["tools"]]
    assert "get_issue" in names and "bash" not in names


def test_preflight_passes_against_an_answering_endpoint(server: ScriptedServer) -> None:
    make_adapter(server).preflight()


def test_preflight_names_the_missing_key(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(AdapterUnavailable, match="OPENAI_API_KEY is not set"):
        make_adapter(server).preflight()


def test_preflight_accepts_a_configured_key_variable(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("LOCAL_LLM_KEY", "placeholder")
    make_adapter(server, api_key_env="LOCAL_LLM_KEY").preflight()
    assert server.requests == []  # models.list is a GET; no completion was spent


def test_preflight_reports_an_unreachable_endpoint() -> None:
    settings = settings_from_table(
        {"base_url": "http://127.0.0.1:9/v1", "preflight_timeout_s": 2}, MODEL
    )
    with pytest.raises(AdapterUnavailable, match="does not answer") as caught:
        OpenAIAdapter(settings=settings).preflight()
    assert CANARY_KEY not in str(caught.value)


def test_preflight_requires_a_model(server: ScriptedServer) -> None:
    adapter = OpenAIAdapter(settings=settings_from_table({"base_url": server.url}))
    with pytest.raises(AdapterUnavailable, match="--ghx-model"):
        adapter.preflight()


def test_unknown_config_key_is_named() -> None:
    with pytest.raises(AdapterUnavailable, match="max_turn"):
        settings_from_table({"max_turn": 3})
