"""``claude -p <prompt> --output-format stream-json --verbose``, parsed into a RunResult.

Stream facts used (Claude Code headless mode): one JSON object per line; ``system``/``init``
carries ``session_id`` and ``model``; ``assistant`` events wrap a message whose ``content``
holds ``text`` and ``tool_use`` blocks (``id``, ``name``, ``input``); ``user`` events carry
``tool_result`` blocks (``tool_use_id``, ``content``, ``is_error``); the final ``result`` event
has ``subtype``, ``is_error``, ``result``, ``usage``, ``total_cost_usd``, ``num_turns``,
``duration_ms``, ``duration_api_ms`` and ``session_id``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_ghxbench.adapters.process import (
    JsonLineStream,
    adapter_table,
    locate_runtime,
    mcp_server_command,
    process_transcript,
    provider_model,
    redact,
    run_agent_process,
    scrubbed_env,
    secret_values,
    timeout_message,
)
from pytest_ghxbench.api import AdapterUnavailable, RunRequest, RunResult, Tokens, ToolCall

__all__ = ["ClaudeCodeAdapter", "ClaudeStream", "claude_argv"]

MCP_SERVER_NAME = "ghxbench"
CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")
PASSTHROUGH_VARS = (*CREDENTIAL_VARS, "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")
MODE_TOOLS = {"agent_direct": "Bash(gh:*)", "ghx": "Bash(ghx:*)"}


def claude_argv(
    binary: str, request: RunRequest, mcp_config: Mapping[str, Any] | None = None
) -> list[str]:
    """The command line for one item: the prompt, the stream format, the mode's tools."""
    argv = [binary, "-p", request.prompt, "--output-format", "stream-json", "--verbose"]
    if request.instructions:
        argv += ["--append-system-prompt", request.instructions]
    if request.mode == "mcp":
        argv += ["--mcp-config", json.dumps(dict(mcp_config or {})), "--strict-mcp-config"]
        argv += ["--allowedTools", f"mcp__{MCP_SERVER_NAME}"]
    else:
        argv += ["--allowedTools", MODE_TOOLS[request.mode]]
    _, model = provider_model(request.model, "anthropic")
    if model:
        argv += ["--model", model]
    return argv


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


@dataclass
class _PendingTool:
    name: str
    arguments: Mapping[str, Any]
    started: float


@dataclass
class ClaudeStream(JsonLineStream):
    """Accumulates one stream-json session; feed it lines with :meth:`feed`."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    pending: dict[str, _PendingTool] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    last_text: str | None = None
    result: dict[str, Any] | None = None
    session_id: str | None = None
    model: str | None = None

    def handle(self, event: dict[str, Any], arrived: float) -> None:
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            self.session_id = event.get("session_id") or self.session_id
            self.model = event.get("model") or self.model
        elif kind == "assistant":
            self._assistant(event, arrived)
        elif kind == "user":
            self._user(event, arrived)
        elif kind == "result":
            self.result = event

    def _content(self, event: Mapping[str, Any]) -> list[Any]:
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        return content if isinstance(content, list) else []

    def _assistant(self, event: Mapping[str, Any], arrived: float) -> None:
        for block in self._content(event):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                self.last_text = block["text"]
            elif block.get("type") == "tool_use":
                tool_id = str(block.get("id", f"anonymous-{len(self.order)}"))
                arguments = block.get("input")
                self.pending[tool_id] = _PendingTool(
                    str(block.get("name", "")),
                    arguments if isinstance(arguments, dict) else {},
                    arrived,
                )
                self.order.append(tool_id)

    def _user(self, event: Mapping[str, Any], arrived: float) -> None:
        for block in self._content(event):
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            tool = self.pending.pop(str(block.get("tool_use_id")), None)
            if tool is None:
                continue
            self.tool_calls.append(
                ToolCall(
                    name=tool.name,
                    arguments=tool.arguments,
                    duration_ms=(arrived - tool.started) * 1000.0,
                    ok=not bool(block.get("is_error")),
                    output=_block_text(block.get("content")),
                )
            )

    def all_tool_calls(self) -> list[ToolCall]:
        """Completed calls, then calls that never got a result (no duration, not ok)."""
        unfinished = [
            ToolCall(name=t.name, arguments=t.arguments, ok=False) for t in self.pending.values()
        ]
        return [*self.tool_calls, *unfinished]

    def tokens(self) -> Tokens:
        usage = (self.result or {}).get("usage")
        usage = usage if isinstance(usage, dict) else {}

        def count(key: str) -> int:
            value = usage.get(key)
            return int(value) if isinstance(value, (int, float)) else 0

        return Tokens(
            input=count("input_tokens"),
            output=count("output_tokens"),
            cache_read=count("cache_read_input_tokens"),
            cache_write=count("cache_creation_input_tokens"),
        )


def _signature(reported: str | None, requested: str | None) -> str | None:
    # The model the runtime says it used, as PROVIDER/MODEL.
    provider, model = provider_model(requested, "anthropic")
    return f"{provider}/{reported or model}" if (reported or model) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class ClaudeCodeAdapter:
    """Runs Claude Code headless; config: ``[tool.ghxbench.adapters.claude-code]`` with
    ``binary`` (default ``"claude"``) and ``extra_args`` (appended to every command line)."""

    name = "claude-code"
    modes: Sequence[str] = ("agent_direct", "mcp", "ghx")

    def __init__(self, command: str = "claude", extra_args: Sequence[str] = ()) -> None:
        self.command = command
        self.extra_args = list(extra_args)
        self.binary: str | None = None
        self.model: str | None = None  # PROVIDER/MODEL from config; --ghx-model wins
        self.version: str | None = None

    def preflight(self, config: Any) -> None:
        """Find the binary, record its version, check that credentials are present."""
        table = adapter_table(config, "claude-code", "claude_code") if config is not None else {}
        self.command = str(table.get("binary", self.command))
        model = table.get("model")
        self.model = str(model) if model else None
        extra = table.get("extra_args", self.extra_args)
        self.extra_args = [str(a) for a in extra] if isinstance(extra, list) else []
        self.check_ready()

    def check_ready(self, environ: Mapping[str, str] | None = None) -> None:
        """The config-free part of :meth:`preflight`."""
        import os

        self.binary, self.version = locate_runtime("claude-code", self.command, "Claude Code")
        env = os.environ if environ is None else environ
        if not any(env.get(var) for var in CREDENTIAL_VARS) and not os.path.isdir(
            os.path.join(env.get("HOME", ""), ".claude")
        ):
            raise AdapterUnavailable(
                "claude-code: no credentials: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN), "
                "or log in with `claude` once"
            )

    def run(self, request: RunRequest) -> RunResult:
        """Run one item and parse its stream; failures become ``RunResult.error``."""
        if request.model is None and self.model:
            request = replace(request, model=self.model)
        if request.mode not in self.modes:
            return RunResult(error=f"claude-code: unsupported mode {request.mode!r}")
        env = scrubbed_env(dict(request.env), passthrough=PASSTHROUGH_VARS)
        binary = self.binary or shutil.which(self.command, path=env.get("PATH")) or self.command
        mcp_config = None
        if request.mode == "mcp":
            command, args, server_env = mcp_server_command(env)
            mcp_config = {
                "mcpServers": {
                    MCP_SERVER_NAME: {"command": command, "args": args, "env": server_env}
                }
            }
        argv = [*claude_argv(binary, request, mcp_config), *self.extra_args]
        stream = ClaudeStream()
        secrets = secret_values(env)
        try:
            outcome = run_agent_process(
                argv, env=env, cwd=request.workdir, deadline=request.deadline, on_line=stream.feed
            )
        except OSError as exc:
            return RunResult(error=f"claude-code: cannot start {binary!r}: {exc}")
        transcript = process_transcript(
            argv, self.version, stream.events, stream.garbage, outcome, secrets
        )
        result = RunResult(
            final_text=None,
            tokens=stream.tokens(),
            tool_calls=stream.all_tool_calls(),
            session_id=stream.session_id,
            model=_signature(stream.model, request.model),
            transcript=transcript,
        )
        final = stream.result
        if final is not None:
            text = final.get("result")
            result.final_text = redact(
                text if isinstance(text, str) else stream.last_text or "", secrets
            )
            result.cost_usd = _number(final.get("total_cost_usd"))
            turns = final.get("num_turns")
            result.api_calls = turns if isinstance(turns, int) else None
            result.latency_ms = _number(final.get("duration_ms"))
            api_ms = _number(final.get("duration_api_ms"))
            if api_ms is not None:
                result.timing_breakdown = {"api_ms": api_ms}
            result.session_id = final.get("session_id") or result.session_id
        result.error = self._error(outcome, stream, secrets)
        return result

    def _error(self, outcome: Any, stream: ClaudeStream, secrets: Sequence[str]) -> str | None:
        if outcome.timed_out:
            return timeout_message("claude-code", outcome)
        final = stream.result
        if final is None:
            detail = redact(outcome.stderr_tail.strip()[-500:], secrets)
            garbage = f"; {len(stream.garbage)} unparseable line(s)" if stream.garbage else ""
            return f"claude-code {outcome.describe_exit()} without a result event{garbage}" + (
                f": {detail}" if detail else ""
            )
        if final.get("is_error"):
            return f"claude-code: result {final.get('subtype', 'error')!r} (is_error)"
        return None
