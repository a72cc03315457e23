"""``codex exec --json``'s stream, read into what a RunResult needs.

Stream facts used (Codex 0.169): one JSON object per line. ``thread.started`` carries
``thread_id`` and means the runtime is ready with the prompt. ``item.started`` and
``item.completed`` carry an ``item`` with ``id`` and ``type``: ``agent_message`` (``text``),
``reasoning``, ``command_execution`` (``command``, ``aggregated_output``, ``exit_code``,
``status``), ``mcp_tool_call`` (``server``, ``tool``, ``arguments``, ``result``, ``error``,
``status``), and ``error`` (a warning, e.g. unknown model metadata; not a failure).
``turn.completed`` carries ``usage`` {``input_tokens`` (the whole prompt: cached and
cache-written tokens included), ``cached_input_tokens``, ``cache_write_input_tokens``,
``output_tokens`` (reasoning included), ``reasoning_output_tokens``}. A top-level ``error`` is a
notice: ``Reconnecting... n/m (...)`` for each failed model request Codex retries, and the
final error before ``turn.failed``, whose ``error.message`` is the failure (for an HTTP error,
the API's response body, ``{"error": {"message": ...}}``).
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

__all__ = ["CodexStream", "api_error_message"]

TOOL_ITEM_TYPES = ("command_execution", "mcp_tool_call")
RECONNECTING = re.compile(r"^Reconnecting\.\.\. \d+/\d+")
_API_FAILURE_PREFIXES = ("stream disconnected", "unexpected status", "exceeded retry limit")


def api_error_message(message: str) -> tuple[str, bool]:
    """``(text, from_api)``: the API's own message when ``message`` is an API error body
    (``{"error": {"message": ...}}``, possibly after a prefix such as ``unexpected status 400:``),
    else ``message`` itself; ``from_api`` says whether a model request failed."""
    start = message.find("{")
    if start >= 0:
        try:
            body, _ = json.JSONDecoder().raw_decode(message[start:])
        except json.JSONDecodeError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"], True
        if isinstance(error, str):
            return error, True
    return message, message.lower().startswith(_API_FAILURE_PREFIXES)


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


@dataclass
class CodexStream(JsonLineStream):
    """Accumulates one ``exec --json`` session; feed it lines with :meth:`feed`."""

    clock: RuntimeClock = field(default_factory=RuntimeClock)
    started: dict[str, float] = field(default_factory=dict)
    tool_calls: list[ToolCall] = field(default_factory=list)
    thread_id: str | None = None
    final_text: str | None = None
    turns_completed: int = 0
    turn_failures: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    """Every top-level ``error`` message (retries, and the last words before a failure)."""
    retries: int = 0
    """Failed model requests Codex retried (its ``Reconnecting... n/m`` notices)."""
    usage: dict[str, int] = field(default_factory=dict)

    def handle(self, event: dict[str, Any], arrived: float) -> None:
        kind = event.get("type")
        item = event.get("item")
        if kind == "thread.started":
            self.thread_id = event.get("thread_id") or self.thread_id
            self.clock.mark_ready(arrived)
        elif kind == "item.started" and isinstance(item, dict):
            self.started[str(item.get("id"))] = arrived
        elif kind == "item.completed" and isinstance(item, dict):
            self._completed(item, arrived)
        elif kind == "turn.completed":
            self.turns_completed += 1
            if self.final_text is None:
                self.clock.mark_answered(arrived)
            usage = event.get("usage")
            for name, value in (usage if isinstance(usage, dict) else {}).items():
                self.usage[name] = self.usage.get(name, 0) + _int(value)
        elif kind == "turn.failed":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            self.turn_failures.append(str(message or "turn failed"))
            self.clock.mark_answered(arrived)
        elif kind == "error":
            message = str(event.get("message") or "")
            self.notices.append(message)
            if RECONNECTING.match(message):
                self.retries += 1

    def _completed(self, item: Mapping[str, Any], arrived: float) -> None:
        item_type = item.get("type")
        if item_type == "agent_message" and isinstance(item.get("text"), str):
            self.final_text = item["text"]
            self.clock.mark_answered(arrived)
            return
        if item_type not in TOOL_ITEM_TYPES:
            return
        began = self.started.pop(str(item.get("id")), None)
        duration = (arrived - began) * 1000.0 if began is not None else None
        if item_type == "command_execution":
            output = item.get("aggregated_output")
            self.tool_calls.append(
                ToolCall(
                    name="command_execution",
                    arguments={"command": item.get("command")},
                    duration_ms=duration,
                    ok=item.get("status") != "failed" and item.get("exit_code") in (0, None),
                    output=output if isinstance(output, str) else None,
                )
            )
            return
        arguments = item.get("arguments")
        result = item.get("result")
        self.tool_calls.append(
            ToolCall(
                name=f"mcp__{item.get('server')}__{item.get('tool')}",
                arguments=arguments if isinstance(arguments, dict) else {},
                duration_ms=duration,
                ok=item.get("status") != "failed" and not item.get("error"),
                output=json.dumps(result) if result is not None else _error_text(item),
            )
        )

    def tokens(self) -> Tokens:
        """Codex's counts as :class:`Tokens` keeps them: each token once. Its ``input_tokens``
        holds the cached and cache-written tokens and its ``output_tokens`` the reasoning
        tokens; they are moved out."""
        cached = self.usage.get("cached_input_tokens", 0)
        written = self.usage.get("cache_write_input_tokens", 0)
        reasoning = self.usage.get("reasoning_output_tokens", 0)
        return Tokens(
            input=max(0, self.usage.get("input_tokens", 0) - cached - written),
            output=max(0, self.usage.get("output_tokens", 0) - reasoning),
            reasoning=reasoning,
            cache_read=cached,
            cache_write=written,
        )

    def failure(self) -> str | None:
        """The turn's failure as the API (or Codex) worded it, if the turn failed."""
        if not self.turn_failures:
            return None
        return api_error_message(self.turn_failures[-1])[0]

    def failed_requests(self) -> int:
        """Model requests that failed: each retried one, and the last one when the turn failed
        on a model API error."""
        last = self.turn_failures[-1] if self.turn_failures else None
        final = last is not None and (self.retries > 0 or api_error_message(last)[1])
        return self.retries + int(final)


def _error_text(item: Mapping[str, Any]) -> str | None:
    error = item.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return error if isinstance(error, str) else None
