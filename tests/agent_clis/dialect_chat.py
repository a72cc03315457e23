"""OpenAI chat completions (``POST /v1/chat/completions``, ``stream: true``) for
:class:`~tests.agent_clis.scripted.ScriptedModel`.

Answers stream as the real API streams them with ``stream_options.include_usage``:
``chat.completion.chunk`` objects whose first delta carries the role, then ``content`` pieces
or one ``tool_calls`` entry (its id, type and function name first, then the arguments in
fragments), a chunk with the ``finish_reason`` (``stop`` or ``tool_calls``), a last chunk with
empty ``choices`` and the ``usage``, and ``data: [DONE]``. Usage is reported as the API reports
it: ``prompt_tokens`` includes the cached tokens (``prompt_tokens_details.cached_tokens``) and
``completion_tokens`` includes the reasoning tokens
(``completion_tokens_details.reasoning_tokens``); the API has no count of cache writes. A
refused request is ``{"error": {"message", "type", "code"}}`` with the HTTP status.
"""

from __future__ import annotations

import json
import threading
import time
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

__all__ = ["ERROR_TYPES", "SCRIPTED_MODEL", "SHELL_TOOL", "ChatCompletions"]

SCRIPTED_MODEL = "scripted-chat-1"
SHELL_TOOL = "bash"
"""The shell tool's name in OpenCode 1.18 (arguments ``command``, ``timeout``, ``workdir``)."""
ERROR_TYPES = {
    400: ("invalid_request_error", "invalid_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", "server_error"),
    503: ("server_error", "service_unavailable"),
}
"""The ``error.type`` and ``error.code`` the API gives with each HTTP status."""


def wire_usage(usage: Usage) -> dict[str, Any]:
    """``usage`` as the API reports it (cached tokens inside the prompt count, reasoning tokens
    inside the completion count)."""
    prompt = usage.input + usage.cache_read
    completion = usage.output + usage.reasoning
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
    }


class ChatCompletions:
    """The chat completions API as OpenCode's ``@ai-sdk/openai-compatible`` provider calls it."""

    name = "openai-chat"
    post_paths: tuple[str, ...] = ("/v1/chat/completions",)

    def __init__(self, shell_tool: str = SHELL_TOOL) -> None:
        self.shell_tool = shell_tool
        # parse and respond run in the same handler thread: the offered tools pass between them
        self._request = threading.local()

    def parse(self, body: Mapping[str, Any]) -> Turn:
        """The ``role: tool`` message contents so far, oldest first, and the offered tools."""
        results = [
            content_text(message.get("content"))
            for message in body.get("messages") or []
            if isinstance(message, dict) and message.get("role") == "tool"
        ]
        names = [
            str(function.get("name"))
            for tool in body.get("tools") or []
            if isinstance(tool, dict)
            for function in [tool.get("function") or {}]
            if isinstance(function, dict) and function.get("name")
        ]
        self._request.offered = names
        self._request.stream = bool(body.get("stream"))
        return Turn(tool_results=results, tool_names=names)

    def respond(
        self, handler: BaseHTTPRequestHandler, action: Action, usage: Usage, index: int
    ) -> None:
        if isinstance(action, Failure):
            kind, code = ERROR_TYPES.get(action.status, ("server_error", "server_error"))
            body = {"error": {"message": action.message, "type": kind, "param": None, "code": code}}
            send_json(handler, action.status, body)
            return
        offered = getattr(self._request, "offered", None) or []
        if not getattr(self._request, "stream", True):
            send_json(handler, 200, self.completion(action, usage, index, offered))
            return
        events: list[tuple[str | None, Any]] = [
            (None, chunk) for chunk in self.chunks(action, usage, index, offered)
        ]
        send_sse(handler, [*events, (None, "[DONE]")])

    def chunks(
        self, action: Action, usage: Usage, index: int, offered: list[str]
    ) -> list[dict[str, Any]]:
        """The ``chat.completion.chunk`` objects of one streamed answer with ``action``."""
        base = {
            "id": f"chatcmpl-scripted{index:04d}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": SCRIPTED_MODEL,
            "system_fingerprint": "fp_scripted",
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return {**base, "choices": [choice]}

        out = [chunk({"role": "assistant", "content": ""})]
        if isinstance(action, Answer):
            out += [chunk({"content": piece}) for piece in pieces(action.text)]
            finish = "stop"
        else:
            name, arguments = self._tool(action, offered)
            call = {
                "index": 0,
                "id": f"call_scripted{index:04d}",
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
            out.append(chunk({"tool_calls": [call]}))
            out += [
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
                for piece in pieces(json.dumps(arguments))
            ]
            finish = "tool_calls"
        out.append(chunk({}, finish))
        out.append({**base, "choices": [], "usage": wire_usage(usage)})
        return out

    def completion(
        self, action: Action, usage: Usage, index: int, offered: list[str]
    ) -> dict[str, Any]:
        """The ``chat.completion`` object of one answer with ``action``, for a client that
        did not ask for a stream (the ``openai`` adapter's loop)."""
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if isinstance(action, Answer):
            message["content"], finish = action.text, "stop"
        else:
            name, arguments = self._tool(action, offered)
            message["tool_calls"] = [
                {
                    "id": f"call_scripted{index:04d}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ]
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-scripted{index:04d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": SCRIPTED_MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": wire_usage(usage),
        }

    def _tool(self, action: Action, offered: list[str]) -> tuple[str, Mapping[str, Any]]:
        if isinstance(action, Shell):
            # The shell tool even when it is not offered: the model tries, the runtime refuses.
            return self.shell_tool, {"command": action.command}
        assert isinstance(action, McpCall), action
        suffix = f"_{action.tool}"
        name = next(
            (n for n in offered if n == action.tool or n.endswith(suffix)), f"ghxbench{suffix}"
        )
        return name, dict(action.arguments)
