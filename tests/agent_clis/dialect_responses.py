"""The OpenAI Responses API (``POST /v1/responses``, ``stream: true``) for
:class:`~tests.agent_clis.scripted.ScriptedModel`.

Answers stream as the real API streams them: ``response.created``, ``response.in_progress``,
then one output item: a ``message`` (``response.output_item.added``,
``response.content_part.added``, ``response.output_text.delta`` pieces,
``response.output_text.done``, ``response.content_part.done``, ``response.output_item.done``)
or a ``function_call`` (``response.output_item.added`` with empty ``arguments``,
``response.function_call_arguments.delta`` pieces, ``response.function_call_arguments.done``,
``response.output_item.done``), and ``response.completed`` whose ``response.usage`` counts as
the API counts: ``input_tokens`` includes the cached tokens
(``input_tokens_details.cached_tokens``) and ``output_tokens`` includes the reasoning tokens
(``output_tokens_details.reasoning_tokens``). OpenAI reports no cache writes; when the usage
has some, they are counted in ``input_tokens`` and reported as
``input_tokens_details.cache_write_tokens``, the field Codex 0.169 reads (as its
``cache_write_input_tokens``). Every event carries its ``type`` and a ``sequence_number``, and
is named by ``event:`` as well.

Requests are read as Codex 0.169 sends them: ``input`` holds the conversation, tool results as
``function_call_output`` items (``output`` a string, or a list of ``input_text`` parts for MCP
results); ``tools`` lists function tools, and ``namespace`` tools that group functions (an MCP
server's tools come as namespace ``mcp__<server>``). A :class:`~tests.agent_clis.scripted.Turn`
names a grouped tool ``<namespace>__<name>``, and a call to it carries its ``namespace``.

A refused request is ``{"error": {"message", "type", "param", "code"}}`` with the HTTP status;
with ``stream_failures`` a :class:`Failure` is instead a 200 stream that ends in
``response.failed`` (the API's way when a response fails after it started).
"""

from __future__ import annotations

import itertools
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
    pieces,
    send_json,
    send_sse,
)

__all__ = ["SCRIPTED_MODEL", "SHELL_TOOLS", "Responses", "wire_usage"]

SCRIPTED_MODEL = "scripted-responses-1"
SHELL_TOOLS = {"exec_command": "cmd", "shell_command": "command"}
"""Shell tools a Codex runtime may offer, with the argument that holds the command line (a
string). Codex 0.169 offers ``exec_command`` (unified exec, the default) and ``write_stdin``."""
ERROR_TYPES = {
    400: ("invalid_request_error", "invalid_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", "server_error"),
    503: ("server_error", "service_unavailable"),
}
"""The ``error.type`` and ``error.code`` the API gives with each HTTP status."""

_ids = itertools.count(1)


def wire_usage(usage: Usage) -> dict[str, Any]:
    """``usage`` as the Responses API reports it."""
    prompt = usage.input + usage.cache_read + usage.cache_write
    completion = usage.output + usage.reasoning
    details = {"cached_tokens": usage.cache_read}
    if usage.cache_write:
        details["cache_write_tokens"] = usage.cache_write
    return {
        "input_tokens": prompt,
        "input_tokens_details": details,
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        "total_tokens": prompt + completion,
    }


def _output_text(item: Mapping[str, Any]) -> str:
    output = item.get("output")
    if isinstance(output, str):
        return output
    if isinstance(output, list):  # content items: [{"type": "input_text", "text": ...}]
        return "".join(str(part.get("text", "")) for part in output if isinstance(part, Mapping))
    return ""


def _offered(tools: Any, namespace: str | None = None) -> list[tuple[str, str | None, str]]:
    """``(qualified name, namespace, name)`` of each offered function tool. Tools grouped in a
    ``namespace`` tool (Codex puts an MCP server's tools in ``mcp__<server>``) are qualified as
    ``<namespace>__<name>``."""
    found: list[tuple[str, str | None, str]] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            continue
        name = tool["name"]
        if tool.get("type") == "namespace":
            found += _offered(tool.get("tools"), name)
        elif namespace is None:
            found.append((name, None, name))
        else:
            found.append((f"{namespace}__{name}", namespace, name))
    return found


class Responses:
    """The Responses dialect; ``model`` is the name reported in responses."""

    name = "responses"
    post_paths: tuple[str, ...] = ("/v1/responses",)

    def __init__(self, model: str = SCRIPTED_MODEL, *, stream_failures: bool = False) -> None:
        self.model = model
        self.stream_failures = stream_failures
        # parse and respond run in the same handler thread: the offered tools pass between them
        self._request = threading.local()

    def parse(self, body: Mapping[str, Any]) -> Turn:
        items = body.get("input")
        results = [
            _output_text(item)
            for item in (items if isinstance(items, list) else [])
            if isinstance(item, Mapping)
            and item.get("type") in ("function_call_output", "custom_tool_call_output")
        ]
        offered = _offered(body.get("tools"))
        self._request.offered = offered
        return Turn(tool_results=results, tool_names=[qualified for qualified, _, _ in offered])

    def respond(
        self, handler: BaseHTTPRequestHandler, action: Action, usage: Usage, index: int
    ) -> None:
        if isinstance(action, Failure):
            if self.stream_failures:
                self._stream(handler, None, usage, index, failure=action)
                return
            kind, code = ERROR_TYPES.get(action.status, ("invalid_request_error", None))
            error = {"message": action.message, "type": kind, "param": None, "code": code}
            send_json(handler, action.status, {"error": error})
            return
        offered = getattr(self._request, "offered", None) or []
        self._stream(handler, self._item(action, offered, index), usage, index)

    def _item(
        self, action: Action, offered: list[tuple[str, str | None, str]], index: int
    ) -> dict[str, Any]:
        if isinstance(action, Answer):
            return {"id": f"msg_{index}_{next(_ids)}", "type": "message", "text": action.text}
        if isinstance(action, Shell):
            # The shell tool even when it is not offered: the model tries, the runtime refuses.
            name = next((n for n, ns, _ in offered if ns is None and n in SHELL_TOOLS), None)
            name = name or "exec_command"
            namespace: str | None = None
            arguments: Mapping[str, Any] = {SHELL_TOOLS[name]: action.command}
        elif isinstance(action, McpCall):
            suffix = f"__{action.tool}"
            _, namespace, name = next(
                (tool for tool in offered if tool[0].endswith(suffix)),
                (action.tool, None, action.tool),
            )
            arguments = action.arguments
        else:
            raise TypeError(f"not an action: {action!r}")
        call = {
            "id": f"fc_{index}_{next(_ids)}",
            "type": "function_call",
            "call_id": f"call_{index}_{next(_ids)}",
            "name": name,
            "arguments": json.dumps(arguments),
        }
        return call if namespace is None else {**call, "namespace": namespace}

    def _stream(
        self,
        handler: BaseHTTPRequestHandler,
        item: dict[str, Any] | None,
        usage: Usage,
        index: int,
        failure: Failure | None = None,
    ) -> None:
        response: dict[str, Any] = {
            "id": f"resp_{index}_{next(_ids)}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "in_progress",
            "model": self.model,
            "output": [],
            "usage": None,
            "error": None,
        }
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": dict(response)},
            {"type": "response.in_progress", "response": dict(response)},
        ]
        done: list[dict[str, Any]] = []
        if item is not None:
            item_events, final = _item_events(item)
            events += item_events
            done.append(final)
        if failure is not None:
            error = {"code": "server_error", "message": failure.message}
            end = {**response, "status": "failed", "error": error}
            events.append({"type": "response.failed", "response": end})
        else:
            end = {**response, "status": "completed", "output": done, "usage": wire_usage(usage)}
            events.append({"type": "response.completed", "response": end})
        numbered = [{**event, "sequence_number": n} for n, event in enumerate(events)]
        send_sse(handler, [(event["type"], event) for event in numbered])


def _item_events(item: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The events that stream ``item`` at output index 0, and the item as finally reported."""
    item_id = item["id"]
    at = {"item_id": item_id, "output_index": 0}
    if item["type"] == "message":
        text = item["text"]
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        final = {
            "id": item_id,
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{**part, "text": text}],
        }
        started = {**final, "status": "in_progress", "content": []}
        events: list[dict[str, Any]] = [
            {"type": "response.output_item.added", "output_index": 0, "item": started},
            {"type": "response.content_part.added", **at, "content_index": 0, "part": part},
        ]
        events += [
            {"type": "response.output_text.delta", **at, "content_index": 0, "delta": piece,
             "logprobs": []}
            for piece in pieces(text)
        ]  # fmt: skip
        events += [
            {"type": "response.output_text.done", **at, "content_index": 0, "text": text,
             "logprobs": []},
            {"type": "response.content_part.done", **at, "content_index": 0,
             "part": {**part, "text": text}},
            {"type": "response.output_item.done", "output_index": 0, "item": final},
        ]  # fmt: skip
        return events, final
    arguments = item["arguments"]
    final = {
        "id": item_id,
        "type": "function_call",
        "status": "completed",
        "call_id": item["call_id"],
        **({"namespace": item["namespace"]} if "namespace" in item else {}),
        "name": item["name"],
        "arguments": arguments,
    }
    started = {**final, "status": "in_progress", "arguments": ""}
    events = [{"type": "response.output_item.added", "output_index": 0, "item": started}]
    events += [
        {"type": "response.function_call_arguments.delta", **at, "delta": piece}
        for piece in pieces(arguments)
    ]
    events += [
        {"type": "response.function_call_arguments.done", **at, "arguments": arguments},
        {"type": "response.output_item.done", "output_index": 0, "item": final},
    ]
    return events, final
