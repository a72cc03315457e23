"""Gemini CLI's ``--output-format stream-json`` stream, read into the parts of a row.

Stream facts used (Gemini CLI 0.61.0 headless mode, checked against the real CLI): one JSON
object per line, each with ``type`` and an ISO ``timestamp``.

- ``init`` (``session_id``, ``model``) comes once the CLI is set up (its MCP servers connected
  and their tools listed) and about to send the prompt: the runtime is ready.
- ``message`` with ``role: "user"`` echoes the prompt; ``role: "assistant"`` with
  ``delta: true`` is a piece of the model's visible text (thoughts are not streamed).
- ``tool_use`` (``tool_name``, ``tool_id``, ``parameters``) as the model's call arrives;
  ``tool_result`` (``tool_id``, ``status`` ``success``/``error``, ``output``, and ``error``
  ``{type, message}``: ``policy_violation`` for a refused command, ``tool_not_registered`` for
  a tool the item does not offer) once it ran.
- ``error`` (``severity``, ``message``): a warning (loop detected) or an invalid model
  response.
- ``result`` ends the session: ``status`` ``success`` or ``error`` (then ``error``
  ``{type, message}``; a refused model request reads ``[API Error: <the API's error body>]``),
  and ``stats``: the session's usage over every model request, ``total_tokens``,
  ``input_tokens`` (the prompts, cached tokens included), ``output_tokens`` (the candidates,
  thoughts excluded), ``cached``, ``input`` (``input_tokens - cached``), ``duration_ms``,
  ``tool_calls`` and the same per model under ``models``. Thoughts are not a field of their
  own: the API's ``totalTokenCount`` counts them, so they are ``total_tokens - input_tokens -
  output_tokens`` (plus tool-use prompt tokens, which only Google-side tools cause).

Gemini CLI retries a failed model request (429, 5xx, up to ``general.maxAttempts``, 10 by
default) without a stream event; it writes ``Attempt N failed ... Retrying ...`` to stderr
(:func:`retry_notices`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.adapters.agent_process import JsonLineStream
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import Tokens, ToolCall

__all__ = ["API_ERROR_PREFIX", "GeminiStream", "api_error", "retry_notices", "stats_tokens"]

API_ERROR_PREFIX = "[API Error:"
_RETRY = re.compile(r"^Attempt \d+ failed\b.*\bRetrying\b")


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def retry_notices(stderr: str) -> int:
    """How many failed model requests Gemini CLI retried, by its stderr notices."""
    return sum(1 for line in stderr.splitlines() if _RETRY.match(line.strip()))


def api_error(message: str) -> str | None:
    """``HTTP <code> <status>: <message>`` when ``message`` is Gemini CLI's account of a model
    request the API refused (``[API Error: {"error": {"code", "message", "status"}}]``), the
    text after the prefix when the body is not JSON, or ``None`` for any other failure."""
    text = message.strip()
    if not text.startswith(API_ERROR_PREFIX):
        return None
    body_text = text[len(API_ERROR_PREFIX) :].strip().removesuffix("]").strip()
    try:
        body = json.loads(body_text)
    except json.JSONDecodeError:
        return body_text or text
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return body_text
    code = error.get("code")
    status = error.get("status")
    head = " ".join(str(part) for part in ("HTTP", code, status) if part not in (None, ""))
    return f"{head}: {error.get('message', '')}".strip()


def stats_tokens(stats: Mapping[str, Any]) -> Tokens:
    """The ``result`` event's ``stats`` as a row's tokens: ``input`` the prompts' uncached
    tokens, ``cache_read`` the cached ones, ``output`` the candidates, ``reasoning`` the rest
    of ``total_tokens`` (the thoughts); Gemini reports no cache writes."""
    prompt = _int(stats.get("input_tokens"))
    cached = _int(stats.get("cached"))
    output = _int(stats.get("output_tokens"))
    total = _int(stats.get("total_tokens"))
    fresh = stats.get("input")
    return Tokens(
        input=_int(fresh) if fresh is not None else max(0, prompt - cached),
        output=output,
        reasoning=max(0, total - prompt - output),
        cache_read=cached,
    )


@dataclass
class _PendingTool:
    name: str
    arguments: Mapping[str, Any]
    started: float


@dataclass
class GeminiStream(JsonLineStream):
    """Accumulates one ``stream-json`` session; feed it lines with :meth:`feed`. ``clock`` gets
    the arrival of ``init`` as *ready* and of ``result`` as *answered*."""

    clock: RuntimeClock = field(default_factory=RuntimeClock)
    tool_calls: list[ToolCall] = field(default_factory=list)
    pending: dict[str, _PendingTool] = field(default_factory=dict)
    session_id: str | None = None
    model: str | None = None
    result: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)
    """The messages of ``error`` events (warnings and invalid responses)."""
    responses: int = 0
    """Model responses the stream shows (text or calls after the prompt or a tool result)."""
    _text: list[str] = field(default_factory=list)
    _in_response: bool = False

    def handle(self, event: dict[str, Any], arrived: float) -> None:
        kind = event.get("type")
        if kind == "init":
            self.clock.mark_ready(arrived)
            self.session_id = event.get("session_id") or self.session_id
            self.model = event.get("model") or self.model
        elif kind == "message" and event.get("role") == "assistant":
            self._response()
            content = event.get("content")
            if isinstance(content, str):
                self._text.append(content)
        elif kind == "tool_use":
            self._response()
            tool_id = str(event.get("tool_id", f"anonymous-{len(self.pending)}"))
            arguments = event.get("parameters")
            self.pending[tool_id] = _PendingTool(
                str(event.get("tool_name", "")),
                arguments if isinstance(arguments, dict) else {},
                arrived,
            )
        elif kind == "tool_result":
            self._tool_result(event, arrived)
        elif kind == "error" and isinstance(event.get("message"), str):
            self.errors.append(event["message"])
        elif kind == "result":
            self.clock.mark_answered(arrived)
            self.result = event

    def _response(self) -> None:
        if not self._in_response:
            self._in_response = True
            self.responses += 1
            self._text = []

    def _tool_result(self, event: Mapping[str, Any], arrived: float) -> None:
        self._in_response = False
        tool = self.pending.pop(str(event.get("tool_id")), None)
        if tool is None:
            return
        error = event.get("error")
        output = event.get("output")
        if not isinstance(output, str) and isinstance(error, dict):
            output = error.get("message")
        self.tool_calls.append(
            ToolCall(
                name=tool.name,
                arguments=tool.arguments,
                duration_ms=(arrived - tool.started) * 1000.0,
                ok=event.get("status") == "success",
                output=output if isinstance(output, str) else None,
            )
        )

    @property
    def final_text(self) -> str | None:
        """The visible text of the last model response (``None`` before any)."""
        return "".join(self._text) if self.responses else None

    def all_tool_calls(self) -> list[ToolCall]:
        """Completed calls, then calls that never got a result (no duration, not ok)."""
        unfinished = [
            ToolCall(name=t.name, arguments=t.arguments, ok=False) for t in self.pending.values()
        ]
        return [*self.tool_calls, *unfinished]

    @property
    def stats(self) -> Mapping[str, Any] | None:
        stats = (self.result or {}).get("stats")
        return stats if isinstance(stats, dict) else None

    def failure(self) -> str | None:
        """What an ``error`` result says went wrong (``None`` for success or no result)."""
        final = self.result
        if final is None or final.get("status") == "success":
            return None
        error = final.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str) and message.strip():
            return message.strip()
        return self.errors[-1] if self.errors else f"result status {final.get('status')!r}"

    def refused_request(self) -> bool:
        """Whether the session ended on a model request the API refused."""
        failure = self.failure()
        return failure is not None and api_error(failure) is not None
