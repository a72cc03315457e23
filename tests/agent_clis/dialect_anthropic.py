"""The Anthropic Messages API (``POST /v1/messages``, ``stream: true``) for :class:`ScriptedModel`.

Answers stream as the real API streams them: ``message_start`` (the message with its input
usage, cache counts included, and ``output_tokens: 1``), then per content block
``content_block_start`` / ``content_block_delta`` (``text_delta`` or ``input_json_delta``) /
``content_block_stop``, a ``ping``, ``message_delta`` (``stop_reason`` and the final
``output_tokens``, thinking included and also given apart in ``output_tokens_details``) and
``message_stop``. A refused request is the API's error object
``{"type": "error", "error": {"type": ..., "message": ...}}`` with the HTTP status.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.agent_clis.scripted import (
    Action,
    Answer,
    Failure,
    McpCall,
    Shell,
    Turn,
    Usage,
    content_text,
    pieces,
    send_json,
    send_sse,
)

__all__ = ["ERROR_TYPES", "SCRIPTED_MODEL", "AnthropicMessages"]

SCRIPTED_MODEL = "claude-scripted-1"
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
"""The ``error.type`` the API gives with each HTTP status."""


class AnthropicMessages:
    """The Messages API as Claude Code calls it (``POST /v1/messages?beta=true``)."""

    name = "anthropic-messages"
    post_paths = ("/v1/messages",)

    def __init__(self) -> None:
        # parse and respond run in the same handler thread: the offered tools pass between them
        self._request = threading.local()

    def parse(self, body: Mapping[str, Any]) -> Turn:
        """The tool results of the conversation so far, oldest first, and the offered tools."""
        results: list[str] = []
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results.append(content_text(block.get("content")))
        names = [
            str(tool.get("name"))
            for tool in body.get("tools") or []
            if isinstance(tool, dict) and tool.get("name")
        ]
        self._request.offered = names
        return Turn(tool_results=results, tool_names=names)

    def respond(
        self, handler: BaseHTTPRequestHandler, action: Action, usage: Usage, index: int
    ) -> None:
        if isinstance(action, Failure):
            error_type = ERROR_TYPES.get(action.status, "api_error")
            body = {"type": "error", "error": {"type": error_type, "message": action.message}}
            send_json(handler, action.status, {**body, "request_id": f"req_scripted_{index}"})
            return
        offered = getattr(self._request, "offered", None)
        send_sse(handler, self.events(action, usage, index, offered))

    def events(
        self, action: Action, usage: Usage, index: int, offered: list[str] | None = None
    ) -> list[tuple[str | None, Any]]:
        """The SSE events of one streamed message answering with ``action``."""
        message = {
            "id": f"msg_scripted_{index:04d}",
            "type": "message",
            "role": "assistant",
            "model": SCRIPTED_MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage.input,
                "cache_creation_input_tokens": usage.cache_write,
                "cache_read_input_tokens": usage.cache_read,
                "output_tokens": 1,
            },
        }
        events: list[tuple[str | None, Any]] = [
            ("message_start", {"type": "message_start", "message": message}),
        ]
        if isinstance(action, Answer):
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": part} for part in pieces(action.text)]
            stop_reason = "end_turn"
        else:
            name, arguments = self._tool(action, offered or [])
            start = {"type": "tool_use", "id": f"toolu_scripted_{index:04d}", "name": name}
            start["input"] = {}  # type: ignore[assignment]
            deltas = [
                {"type": "input_json_delta", "partial_json": part}
                for part in ["", *pieces(json.dumps(arguments))]
            ]
            stop_reason = "tool_use"
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": start},
            )
        )
        events.append(("ping", {"type": "ping"}))
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
            for delta in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {
                        # output_tokens counts thinking too; the thinking-token-count beta
                        # (which Claude Code asks for) reports it apart
                        "output_tokens": usage.output + usage.reasoning,
                        "output_tokens_details": {"thinking_tokens": usage.reasoning},
                    },
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        return events

    @staticmethod
    def _tool(action: Action, offered: list[str]) -> tuple[str, Mapping[str, Any]]:
        if isinstance(action, Shell):
            # Bash even when it is not offered: the model tries, the runtime must refuse.
            return "Bash", {"command": action.command}
        assert isinstance(action, McpCall), action
        suffix = f"__{action.tool}"
        name = next((n for n in offered if n.endswith(suffix)), f"mcp__mcp{suffix}")
        return name, dict(action.arguments)
