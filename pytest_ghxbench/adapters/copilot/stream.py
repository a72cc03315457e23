"""GitHub Copilot CLI's ``-p … --output-format json`` stream, read into the parts of a row.

Stream facts used (Copilot CLI 1.0.102, checked against the real CLI with a scripted model):
one JSON object per line, each ``{"type", "data", "id", "timestamp", "parentId"}``.

- ``session.mcp_server_status_changed`` (``serverName``, ``status``: ``pending`` then
  ``connected`` or ``failed`` with ``error``) and ``session.mcp_servers_loaded`` (``servers``:
  ``name``, ``status``, ``error``) come while the runtime starts; it waits for its MCP servers
  before it takes the prompt, and goes on without a server that failed.
- ``user.message`` (the prompt) comes once the runtime is ready and has the prompt: *ready*.
- Per model request: ``model.call_start``; then ``model.call_failure`` (``statusCode``,
  ``errorMessage``, ``retryAttempt``, ``failureKind``) for a request that failed, and
  ``assistant.turn_retry`` before each retry Copilot makes on its own (5 by default for 5xx, 429
  and transport errors; none for other 4xx).
- ``assistant.message`` per model response: ``model``, ``content`` (its text), ``toolRequests``
  and ``apiCallId`` (the API's response id). The final answer is a message without tool
  requests.
- ``tool.execution_start`` (``toolCallId``, ``toolName``, ``arguments``; for an MCP tool also
  ``mcpServerName`` and ``mcpToolName``) and ``tool.execution_complete`` (``success``,
  ``result.content`` or ``error.message``; a refused shell command is ``error.code``
  ``denied``).
- ``session.error`` (``message``, ``statusCode``, ``errorType``) when the session failed (a
  model request refused after Copilot's retries), then ``result``: ``sessionId``, ``exitCode``
  and ``usage`` (``totalApiDurationMs``, ``sessionDurationMs``), the last line.

The stream carries no token counts: those are in the session's own event log, read by
:func:`session_usage`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.agent_process import JsonLineStream
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import Tokens, ToolCall

__all__ = ["NOISE", "CopilotStream", "SessionUsage", "session_usage"]

NOISE = frozenset(
    {
        "session.background_tasks_changed",
        "assistant.message_delta",
        "assistant.tool_call_delta",
        "assistant.reasoning_delta",
        "assistant.streaming_delta",
        "tool.execution_partial_result",
        "tool.shell_output",
    }
)
"""Event types left out of the transcript: streaming pieces of what a complete event repeats,
and background-task notices."""


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _count(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key)
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _instant(stamp: Any) -> float | None:
    """An event's ISO ``timestamp`` as seconds (for durations between two events)."""
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


@dataclass
class _PendingTool:
    name: str
    arguments: Mapping[str, Any]
    arrived: float
    stamp: float | None


@dataclass
class CopilotStream(JsonLineStream):
    """Accumulates one session's stdout; feed it lines with :meth:`feed`. ``clock`` gets the
    arrival of ``user.message`` as *ready* and of the final answer (the last message without
    tool requests; else ``session.error``; else ``result``) as *answered*."""

    clock: RuntimeClock = field(default_factory=RuntimeClock)
    tool_calls: list[ToolCall] = field(default_factory=list)
    pending: dict[str, _PendingTool] = field(default_factory=dict)
    calls_started: int = 0
    """``model.call_start`` events: every model request, retries included."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    """The ``data`` of every ``model.call_failure`` (a request that got no response)."""
    retries: int = 0
    mcp_servers: dict[str, str] = field(default_factory=dict)
    """Each MCP server's latest status (``pending``, ``connected``, ``failed``, ``disabled``)."""
    mcp_errors: dict[str, str] = field(default_factory=dict)
    final_text: str | None = None
    last_text: str | None = None
    model: str | None = None
    session_error: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    _answered: bool = False

    def handle(self, event: dict[str, Any], arrived: float) -> None:
        kind = event.get("type")
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        if kind == "user.message":
            self.clock.mark_ready(arrived)
        elif kind == "model.call_start":
            self.calls_started += 1
        elif kind == "model.call_failure":
            self.failures.append(data)
        elif kind == "assistant.turn_retry":
            self.retries += 1
        elif kind == "assistant.message":
            self._message(data, arrived)
        elif kind == "tool.execution_start":
            self._tool_started(data, event.get("timestamp"), arrived)
        elif kind == "tool.execution_complete":
            self._tool_completed(data, event.get("timestamp"), arrived)
        elif kind == "session.mcp_server_status_changed":
            self._server(data.get("serverName"), data)
        elif kind == "session.mcp_servers_loaded":
            servers = data.get("servers")
            for server in servers if isinstance(servers, list) else []:
                if isinstance(server, dict):
                    self._server(server.get("name"), server)
        elif kind == "session.tools_updated" and isinstance(data.get("model"), str):
            self.model = self.model or data["model"]
        elif kind == "session.error":
            self.session_error = data
            self.clock.mark_answered(arrived)
            self._answered = True
        elif kind == "result":
            self.result = event
            if not self._answered:
                self.clock.mark_answered(arrived)

    def _server(self, name: Any, data: Mapping[str, Any]) -> None:
        if isinstance(name, str) and isinstance(data.get("status"), str):
            self.mcp_servers[name] = data["status"]
            if isinstance(data.get("error"), str):
                self.mcp_errors[name] = data["error"]

    def _message(self, data: Mapping[str, Any], arrived: float) -> None:
        if isinstance(data.get("model"), str):
            self.model = data["model"]
        content = data.get("content")
        text = content if isinstance(content, str) else ""
        if text:
            self.last_text = text
        if not data.get("toolRequests"):
            self.final_text = text
            self.clock.mark_answered(arrived)
            self._answered = True

    def _tool_started(self, data: Mapping[str, Any], stamp: Any, arrived: float) -> None:
        call_id = str(data.get("toolCallId", f"anonymous-{len(self.pending)}"))
        server, tool = data.get("mcpServerName"), data.get("mcpToolName")
        if isinstance(server, str) and isinstance(tool, str):
            name = f"mcp__{server}__{tool}"  # the name Claude Code's and Codex's rows use
        else:
            name = str(data.get("toolName", ""))
        arguments = data.get("arguments")
        self.pending[call_id] = _PendingTool(
            name, arguments if isinstance(arguments, dict) else {}, arrived, _instant(stamp)
        )

    def _tool_completed(self, data: Mapping[str, Any], stamp: Any, arrived: float) -> None:
        tool = self.pending.pop(str(data.get("toolCallId")), None)
        if tool is None:
            return
        ended = _instant(stamp)
        # The runtime's own stamps (ms): stdout lines may reach us in bursts.
        if tool.stamp is not None and ended is not None:
            duration = max(0.0, (ended - tool.stamp) * 1000.0)
        else:
            duration = max(0.0, (arrived - tool.arrived) * 1000.0)
        ok = data.get("success") is True
        result, error = data.get("result"), data.get("error")
        output: Any = None
        if isinstance(result, dict):
            output = result.get("content")
        if output is None and isinstance(error, dict):
            output = error.get("message")
        self.tool_calls.append(
            ToolCall(
                name=tool.name,
                arguments=tool.arguments,
                duration_ms=duration,
                ok=ok,
                output=output if isinstance(output, str) else None,
            )
        )

    def all_tool_calls(self) -> list[ToolCall]:
        """Completed calls, then calls that never completed (no duration, not ok)."""
        unfinished = [
            ToolCall(name=t.name, arguments=t.arguments, ok=False) for t in self.pending.values()
        ]
        return [*self.tool_calls, *unfinished]

    @property
    def session_id(self) -> str | None:
        found = (self.result or {}).get("sessionId")
        return found if isinstance(found, str) else None

    def result_usage(self) -> Mapping[str, Any]:
        usage = (self.result or {}).get("usage")
        return usage if isinstance(usage, dict) else {}

    def sdk_duration_ms(self) -> float | None:
        """Copilot's own session duration (its session's start to the result)."""
        return _number(self.result_usage().get("sessionDurationMs"))

    def api_duration_ms(self) -> float | None:
        return _number(self.result_usage().get("totalApiDurationMs"))

    def failure_text(self) -> str | None:
        """What a failed session said (``session.error``), with ``HTTP <status>:`` in front
        when a model request was refused, so a 429 or 5xx is recognisable."""
        error = self.session_error
        if error is None:
            return None
        message = str(error.get("message") or error.get("errorType") or "session error")
        status = error.get("statusCode")
        if isinstance(status, int) and not isinstance(status, bool):
            return f"model API error: HTTP {status}: {message}"
        return message


@dataclass
class SessionUsage:
    """What the session's own event log says about its model requests."""

    tokens: Tokens
    responses: int
    """``session.usage_record`` events: one per model response."""
    records: list[dict[str, Any]]


_RECORD_KEYS = (
    "model", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens",
    "reasoningTokens", "duration", "apiCallId", "initiator", "interactionType",
)  # fmt: skip
"""What the transcript keeps of each usage record."""


def session_usage(copilot_home: Path, session_id: str | None) -> SessionUsage | None:
    """Tokens of the sessions under ``copilot_home`` (the item's own ``COPILOT_HOME``; with
    ``session_id``, that session's), from the ``session.usage_record`` events of
    ``session-state/<id>/events.jsonl``; ``None`` without such a log.

    Copilot's ``inputTokens`` counts the cache reads and writes too (checked with OpenAI chat
    completions and Anthropic messages providers) and ``outputTokens`` the reasoning tokens;
    each is counted once here."""
    state = copilot_home / "session-state"
    if session_id and (state / session_id / "events.jsonl").is_file():
        logs = [state / session_id / "events.jsonl"]
    else:
        logs = sorted(state.glob("*/events.jsonl"))
    if not logs:
        return None
    total = Tokens()
    records: list[dict[str, Any]] = []
    for log in logs:
        try:
            lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(event, dict) or event.get("type") != "session.usage_record":
                continue
            data = event.get("data")
            usage = data.get("usage") if isinstance(data, dict) else None
            if not isinstance(usage, dict):
                continue
            records.append({key: usage[key] for key in _RECORD_KEYS if key in usage})
            cache_read = _count(usage, "cacheReadTokens")
            cache_write = _count(usage, "cacheWriteTokens")
            reasoning = _count(usage, "reasoningTokens")
            total += Tokens(
                input=max(0, _count(usage, "inputTokens") - cache_read - cache_write),
                output=max(0, _count(usage, "outputTokens") - reasoning),
                reasoning=reasoning,
                cache_read=cache_read,
                cache_write=cache_write,
            )
    return SessionUsage(total, len(records), records)
