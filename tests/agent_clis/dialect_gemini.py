"""The Gemini API (``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``) for
:class:`ScriptedModel`, as Gemini CLI calls it.

A request (checked against Gemini CLI 0.61.0) carries ``x-goog-api-key``, ``contents`` (the
conversation: ``role`` ``user``/``model``, ``parts`` with ``text``, ``functionCall``
``{name, args, id}`` and ``functionResponse`` ``{name, response, id}``, where ``response`` is
``{"output": ...}`` or ``{"error": ...}``), ``systemInstruction``, ``tools``
(``[{functionDeclarations: [{name, description, parametersJsonSchema}]}]``) and
``generationConfig``.

Answers stream as the API streams them: ``data: <GenerateContentResponse>`` events separated by
``\\r\\n\\r\\n``, each with one candidate (``content.parts``, ``role: "model"``) and a
``usageMetadata`` that grows as the answer does (prompt counts from the first chunk, the
candidates' count as far as it got); the last chunk has ``finishReason: "STOP"`` and the final
counts (``promptTokenCount`` with the cached tokens, ``cachedContentTokenCount``,
``candidatesTokenCount`` without thoughts, ``thoughtsTokenCount``, ``totalTokenCount``). When
the usage has reasoning, the answer starts with a ``thought: true`` part. A refused request is
the API's error object ``{"error": {"code", "message", "status"}}`` with the HTTP status.
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
)

__all__ = ["SCRIPTED_MODEL", "SHELL_TOOL", "STATUS_NAMES", "GeminiApi", "mcp_tool_name"]

SCRIPTED_MODEL = "gemini-scripted-1"
SHELL_TOOL = "run_shell_command"
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
"""The ``error.status`` the API gives with each HTTP status."""
THOUGHT = "Let me work out which tool answers this."


def mcp_tool_name(server: str, tool: str) -> str:
    """The name Gemini CLI offers an MCP tool under (``mcp_`` is not doubled)."""
    name = f"{server}_{tool}"
    return name if name.startswith("mcp_") else f"mcp_{name}"


def _response_text(response: Any) -> str:
    """What a ``functionResponse.response`` says: the shell's ``output``, an MCP tool's
    ``content`` or ``output``, or the ``error``."""
    if not isinstance(response, dict):
        return json.dumps(response)
    for key in ("output", "error"):
        if isinstance(response.get(key), str):
            return str(response[key])
    if isinstance(response.get("content"), list):
        return content_text(response["content"])
    return json.dumps(response)


class GeminiApi:
    """The Gemini API's streaming ``generateContent`` for one model name."""

    name = "gemini-api"

    def __init__(self, model: str = SCRIPTED_MODEL) -> None:
        self.model = model
        self.post_paths: tuple[str, ...] = (f"/v1beta/models/{model}:streamGenerateContent",)
        # parse and respond run in the same handler thread: the offered tools pass between them
        self._request = threading.local()

    def parse(self, body: Mapping[str, Any]) -> Turn:
        """The tool results of the conversation so far, oldest first, and the offered tools."""
        results: list[str] = []
        for content in body.get("contents") or []:
            if not isinstance(content, dict) or content.get("role") != "user":
                continue
            for part in content.get("parts") or []:
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    results.append(_response_text(response.get("response")))
        names = [
            str(declaration.get("name"))
            for tool in body.get("tools") or []
            if isinstance(tool, dict)
            for declaration in tool.get("functionDeclarations") or []
            if isinstance(declaration, dict) and declaration.get("name")
        ]
        self._request.offered = names
        return Turn(tool_results=results, tool_names=names)

    def respond(
        self, handler: BaseHTTPRequestHandler, action: Action, usage: Usage, index: int
    ) -> None:
        if isinstance(action, Failure):
            status = STATUS_NAMES.get(action.status, "UNKNOWN")
            body = {"error": {"code": action.status, "message": action.message, "status": status}}
            send_json(handler, action.status, body)
            return
        offered = getattr(self._request, "offered", None) or []
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        handler.end_headers()
        for chunk in self.chunks(action, usage, index, offered):
            handler.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
            handler.wfile.flush()
        handler.close_connection = True

    def chunks(
        self, action: Action, usage: Usage, index: int, offered: list[str]
    ) -> list[dict[str, Any]]:
        """The streamed ``GenerateContentResponse`` chunks answering with ``action``."""
        parts: list[list[dict[str, Any]]] = []
        if usage.reasoning:
            parts.append([{"text": THOUGHT, "thought": True}])
        if isinstance(action, Answer):
            parts += [[{"text": piece}] for piece in pieces(action.text)]
        else:
            name, arguments = self._tool(action, offered)
            parts.append([{"functionCall": {"name": name, "args": dict(arguments)}}])
        prompt = usage.input + usage.cache_read
        chunks = []
        for number, content in enumerate(parts, start=1):
            last = number == len(parts)
            # the candidates' count grows with the answer; the thoughts are counted once done
            output = usage.output if last else min(usage.output, number)
            thoughts = usage.reasoning
            metadata = {
                "promptTokenCount": prompt,
                "candidatesTokenCount": output,
                "cachedContentTokenCount": usage.cache_read,
                "thoughtsTokenCount": thoughts,
                "totalTokenCount": prompt + output + thoughts,
            }
            candidate: dict[str, Any] = {
                "content": {"parts": content, "role": "model"},
                "index": 0,
            }
            if last:
                candidate["finishReason"] = "STOP"
            chunks.append(
                {
                    "candidates": [candidate],
                    "usageMetadata": metadata,
                    "modelVersion": self.model,
                    "responseId": f"scripted-{index:04d}",
                }
            )
        return chunks

    @staticmethod
    def _tool(action: Action, offered: list[str]) -> tuple[str, Mapping[str, Any]]:
        if isinstance(action, Shell):
            # the shell tool even when it is not offered: the model tries, the runtime refuses
            return SHELL_TOOL, {"command": action.command}
        assert isinstance(action, McpCall), action
        suffix = f"_{action.tool}"
        name = next(
            (n for n in offered if n.startswith("mcp_") and n.endswith(suffix)),
            mcp_tool_name("mcp", action.tool),
        )
        return name, dict(action.arguments)
