"""Turning an OpenCode session's messages into the numbers of a row.

A message is ``{"info": {...}, "parts": [...]}``. Assistant ``info`` carries ``tokens``
(``input``, ``output``, ``reasoning``, ``cache.read``, ``cache.write``), ``cost`` and ``time``
(``created``, ``completed``, epoch milliseconds). Parts of type ``text``, ``reasoning``
(``time.start``/``time.end``) and ``tool`` (``tool``, ``state.status/input/output``,
``state.time.start/end``) are what we read; other part types are ignored. A call of a tool the
agent was not offered is a ``tool`` part named ``invalid`` whose input names the tool; it is
recorded under that name, as a failed call. An assistant message whose model request failed
carries ``info.error`` (``{"name": "APIError", "data": {"message", "statusCode", ...}}``).

Every assistant message is one model request (OpenCode retries a failed request inside the same
message without recording it: :mod:`.events` counts those).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_ghxbench.api import Tokens, ToolCall

__all__ = ["MessageFormatError", "SessionSummary", "summarize", "timing_breakdown"]


class MessageFormatError(ValueError):
    """A message does not have the documented shape."""


@dataclass(frozen=True)
class SessionSummary:
    tokens: Tokens
    cost_usd: float
    tool_calls: tuple[ToolCall, ...]
    final_text: str | None
    api_calls: int
    model: str | None
    timing: dict[str, float]
    error: str | None
    sdk_latency_ms: float | None = None


@dataclass(frozen=True)
class _Span:
    kind: str  # "reasoning" or "tool"
    start: float
    end: float


def _number(value: Any, where: str) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MessageFormatError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MessageFormatError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _span(part: Mapping[str, Any], kind: str, where: str) -> _Span | None:
    time_source = (
        part.get("time") if kind == "reasoning" else _mapping(part.get("state"), where).get("time")
    )
    times = _mapping(time_source, f"{where}.time")
    if times.get("start") is None or times.get("end") is None:
        return None
    start = _number(times["start"], f"{where}.time.start")
    end = _number(times["end"], f"{where}.time.end")
    return _Span(kind, start, max(start, end))


def _tool_call(part: Mapping[str, Any], span: _Span | None, where: str) -> ToolCall:
    state = _mapping(part.get("state"), f"{where}.state")
    arguments = _mapping(state.get("input"), f"{where}.state.input")
    output = state.get("output", state.get("error"))
    name = str(part.get("tool") or "unknown")
    ok = state.get("status") == "completed"
    if name == "invalid" and isinstance(arguments.get("tool"), str):
        # OpenCode's stand-in for a tool the agent was not offered: a refused call
        name, ok = arguments["tool"], False
    return ToolCall(
        name=name,
        arguments=dict(arguments),
        duration_ms=None if span is None else span.end - span.start,
        ok=ok,
        output=None if output is None else str(output),
    )


def timing_breakdown(spans: Sequence[_Span], completed_ms: float | None) -> dict[str, float]:
    """Where the agent's time went, in ms: ``reasoning_ms`` (sum of reasoning parts),
    ``tool_ms`` (sum of tool parts), ``reasoning_to_tool_ms`` (for each tool call, the gap from
    the end of the reasoning that preceded it since the previous tool call, summed) and
    ``post_tool_ms`` (from the end of the last tool call to the last assistant message's
    completion; 0 without tool calls)."""
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    reasoning = sum(s.end - s.start for s in ordered if s.kind == "reasoning")
    tools = [s for s in ordered if s.kind == "tool"]
    gap = 0.0
    last_reasoning_end: float | None = None
    for span in ordered:
        if span.kind == "reasoning":
            last_reasoning_end = span.end
        else:
            if last_reasoning_end is not None and last_reasoning_end <= span.start:
                gap += span.start - last_reasoning_end
            last_reasoning_end = None
    post = 0.0
    if tools and completed_ms is not None:
        post = max(0.0, completed_ms - max(s.end for s in tools))
    return {
        "reasoning_ms": reasoning,
        "reasoning_to_tool_ms": gap,
        "tool_ms": sum(s.end - s.start for s in tools),
        "post_tool_ms": post,
    }


def summarize(messages: Any) -> SessionSummary:
    """Sum tokens and cost over assistant messages and collect tool calls, the final text
    (the text parts of the last assistant message) and the timing breakdown.

    Raises :class:`MessageFormatError` naming the message and field that is malformed."""
    if not isinstance(messages, list):
        raise MessageFormatError(
            f"message list: expected a JSON array, got {type(messages).__name__}"
        )
    counts = {"input": 0.0, "output": 0.0, "reasoning": 0.0, "read": 0.0, "write": 0.0}
    cost = 0.0
    calls: list[ToolCall] = []
    spans: list[_Span] = []
    final_text: str | None = None
    model: str | None = None
    error: str | None = None
    completed: float | None = None
    asked: float | None = None
    assistant_messages = 0
    for index, message in enumerate(messages):
        where = f"message {index}"
        entry = _mapping(message, where)
        info = _mapping(entry.get("info"), f"{where}.info")
        parts = entry.get("parts") or []
        if not isinstance(parts, list):
            raise MessageFormatError(f"{where}.parts: expected an array")
        if info.get("role") != "assistant":
            if info.get("role") == "user" and asked is None:
                user_time = _mapping(info.get("time"), f"{where}.info.time")
                if user_time.get("created") is not None:
                    asked = _number(user_time["created"], f"{where}.info.time.created")
            continue
        assistant_messages += 1
        tokens = _mapping(info.get("tokens"), f"{where}.info.tokens")
        cache = _mapping(tokens.get("cache"), f"{where}.info.tokens.cache")
        for key in ("input", "output", "reasoning"):
            counts[key] += _number(tokens.get(key), f"{where}.info.tokens.{key}")
        for key in ("read", "write"):
            counts[key] += _number(cache.get(key), f"{where}.info.tokens.cache.{key}")
        cost += _number(info.get("cost"), f"{where}.info.cost")
        times = _mapping(info.get("time"), f"{where}.info.time")
        if times.get("completed") is not None:
            completed = _number(times["completed"], f"{where}.info.time.completed")
        if info.get("providerID") and info.get("modelID"):
            model = f"{info['providerID']}/{info['modelID']}"
        if info.get("error"):
            error = _describe_error(info["error"])
        texts: list[str] = []
        for part_index, raw_part in enumerate(parts):
            part_where = f"{where}.parts[{part_index}]"
            part = _mapping(raw_part, part_where)
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif kind in ("reasoning", "tool"):
                span = _span(part, kind, part_where)
                if span is not None:
                    spans.append(span)
                if kind == "tool":
                    calls.append(_tool_call(part, span, part_where))
        if texts:
            final_text = "".join(texts)
    return SessionSummary(
        tokens=Tokens(
            input=int(counts["input"]),
            output=int(counts["output"]),
            reasoning=int(counts["reasoning"]),
            cache_read=int(counts["read"]),
            cache_write=int(counts["write"]),
        ),
        cost_usd=cost,
        tool_calls=tuple(calls),
        final_text=final_text,
        api_calls=assistant_messages,
        model=model,
        timing=timing_breakdown(spans, completed),
        error=error,
        sdk_latency_ms=None if asked is None or completed is None else max(0.0, completed - asked),
    )


def _describe_error(error: Any) -> str:
    """A message's error as a runner error: a model API error as ``API error: HTTP <status>:
    <the API's message>``, anything else as ``<name>: <message>``."""
    if isinstance(error, Mapping):
        name = str(error.get("name") or "error")
        data = error.get("data")
        message = data.get("message") if isinstance(data, Mapping) else None
        status = data.get("statusCode") if isinstance(data, Mapping) else None
        if name == "APIError":
            where = f"HTTP {status}: " if isinstance(status, int) else ""
            return f"API error: {where}{message or error}"
        return f"{name}: {message or error}"
    return str(error)
