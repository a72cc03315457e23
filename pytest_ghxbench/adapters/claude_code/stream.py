"""Claude Code's ``--output-format stream-json --verbose`` stream, read into the parts of a row.

Stream facts used (Claude Code 2.1 headless mode, checked against the real CLI): one JSON object
per line; ``system``/``init`` (``session_id``, ``model``, ``tools``, ``mcp_servers`` with each
server's ``status``) comes once the runtime is ready, MCP servers connected, and has the
prompt. Each model response arrives as ``assistant`` events, one per content block, all with
the response's ``message.id`` (``text`` and ``tool_use`` blocks: ``id``, ``name``, ``input``);
their ``usage`` is the stream's first count, not the final one. A request the API refused
arrives as one synthetic ``assistant`` message (``model: "<synthetic>"``,
``is_api_error_message``, ``api_error_status``) whose text is ``API Error: <status> <the API's
message>``. ``user`` events carry ``tool_result`` blocks (``tool_use_id``, ``content``,
``is_error``). The final ``result`` event has ``subtype``, ``is_error``, ``result`` (the answer,
or the error's text), ``usage`` (summed over the session's responses, with
``output_tokens_details.thinking_tokens``), ``total_cost_usd``, ``num_turns``, ``duration_ms``,
``duration_api_ms``, ``api_error_status`` and ``session_id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.adapters.agent_process import JsonLineStream
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import Tokens, ToolCall

__all__ = ["SYNTHETIC_MODEL", "ClaudeStream", "block_text"]

SYNTHETIC_MODEL = "<synthetic>"
_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
"""The ``model`` of assistant messages Claude Code makes up itself (API errors, notices)."""


def block_text(content: Any) -> str:
    """The text of a message's or a tool result's ``content`` (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def _count(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key)
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


@dataclass
class _PendingTool:
    name: str
    arguments: Mapping[str, Any]
    started: float


@dataclass
class ClaudeStream(JsonLineStream):
    """Accumulates one stream-json session; feed it lines with :meth:`feed`. ``clock`` gets
    the arrival of ``system``/``init`` as *ready* and of ``result`` as *answered*."""

    clock: RuntimeClock = field(default_factory=RuntimeClock)
    tool_calls: list[ToolCall] = field(default_factory=list)
    pending: dict[str, _PendingTool] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    responses: list[str] = field(default_factory=list)
    """The ``message.id`` of every model response and refused request, in order."""
    api_errors: list[str] = field(default_factory=list)
    """The text of every synthetic API-error message (``API Error: 500 ...``)."""
    mcp_servers: dict[str, str] = field(default_factory=dict)
    """Each MCP server's ``status`` as the ``init`` event reported it."""
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each response's ``usage`` as its latest ``assistant`` event reported it (by message id)."""
    last_text: str | None = None
    result: dict[str, Any] | None = None
    session_id: str | None = None
    model: str | None = None

    def handle(self, event: dict[str, Any], arrived: float) -> None:
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            self.clock.mark_ready(arrived)
            self.session_id = event.get("session_id") or self.session_id
            self.model = event.get("model") or self.model
            self._servers(event.get("mcp_servers"))
        elif kind == "assistant":
            self._assistant(event, arrived)
        elif kind == "user":
            self._user(event, arrived)
        elif kind == "result":
            self.clock.mark_answered(arrived)
            self.result = event

    def _servers(self, servers: Any) -> None:
        for server in servers if isinstance(servers, list) else []:
            if isinstance(server, dict) and isinstance(server.get("name"), str):
                self.mcp_servers[server["name"]] = str(server.get("status"))

    @staticmethod
    def _message(event: Mapping[str, Any]) -> Mapping[str, Any]:
        message = event.get("message")
        return message if isinstance(message, dict) else {}

    def _content(self, event: Mapping[str, Any]) -> list[Any]:
        content = self._message(event).get("content")
        return content if isinstance(content, list) else []

    def _assistant(self, event: Mapping[str, Any], arrived: float) -> None:
        message = self._message(event)
        synthetic = message.get("model") == SYNTHETIC_MODEL
        if synthetic and event.get("is_api_error_message"):
            self.api_errors.append(block_text(message.get("content")))
        message_id = message.get("id")
        counted = not synthetic or event.get("is_api_error_message")
        if counted and isinstance(message_id, str) and message_id not in self.responses:
            self.responses.append(message_id)
        usage = message.get("usage")
        if not synthetic and isinstance(message_id, str) and isinstance(usage, dict):
            self.usage[message_id] = usage
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
                    output=block_text(block.get("content")),
                )
            )

    def all_tool_calls(self) -> list[ToolCall]:
        """Completed calls, then calls that never got a result (no duration, not ok)."""
        unfinished = [
            ToolCall(name=t.name, arguments=t.arguments, ok=False) for t in self.pending.values()
        ]
        return [*self.tool_calls, *unfinished]

    def api_calls(self) -> int | None:
        """Model requests the session made: its distinct responses and refused requests (retries
        the runtime makes on its own are not in the stream). ``None`` when the stream shows
        neither and has no ``result`` to say none were made."""
        if self.responses:
            return len(self.responses)
        return 0 if self.result is not None else None

    def tokens(self) -> Tokens:
        """The ``result`` event's usage. Anthropic's ``output_tokens`` includes thinking, which
        is recorded apart, as ``reasoning``. Without a ``result`` (the agent was stopped), the
        sum of the responses' usage so far: their inputs in full, their outputs as far as the
        stream counted them."""
        usage = (self.result or {}).get("usage")
        if not isinstance(usage, dict):
            usage = {}
            if self.result is None:
                for each in self.usage.values():
                    for key in _USAGE_KEYS:
                        usage[key] = usage.get(key, 0) + _count(each, key)
        details = usage.get("output_tokens_details")
        thinking = _count(details, "thinking_tokens") if isinstance(details, dict) else 0
        output = _count(usage, "output_tokens")
        return Tokens(
            input=_count(usage, "input_tokens"),
            output=max(0, output - thinking),
            reasoning=thinking,
            cache_read=_count(usage, "cache_read_input_tokens"),
            cache_write=_count(usage, "cache_creation_input_tokens"),
        )

    def error_text(self) -> str | None:
        """What an ``is_error`` result says went wrong, ``None`` for a successful result. A
        refused model request ends the session with subtype ``success``, ``is_error`` and the
        API's message as its text; the other failures have their own subtype
        (``error_max_turns``, ``error_during_execution``, ...) and maybe ``errors``."""
        final = self.result
        if final is None or not final.get("is_error"):
            return None
        text = final.get("result")
        text = text.strip() if isinstance(text, str) else ""
        subtype = final.get("subtype", "error")
        if subtype == "success":
            return text or (self.api_errors[-1].strip() if self.api_errors else "is_error")
        errors = final.get("errors")
        detail = "; ".join(str(e) for e in errors) if isinstance(errors, list) else ""
        return f"result {subtype!r}" + (f": {detail}" if detail else "")
