"""The chat-completions tool-calling loop: ask, run the requested tools, repeat until an answer.

Usage is summed over turns and mapped to :class:`~pytest_ghxbench.api.Tokens`:
``input = prompt_tokens - cached_tokens``, ``cache_read = cached_tokens``,
``reasoning = reasoning_tokens``, ``output = completion_tokens - reasoning_tokens``; so
``Tokens.total == prompt_tokens + completion_tokens``.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import openai

from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import Tokens, ToolCall

__all__ = ["LoopLimits", "LoopOutcome", "ToolHost", "ToolReply", "retry_delay_s", "run_loop"]


@dataclass(frozen=True)
class ToolReply:
    """A tool's answer: the text the model sees and whether the call succeeded."""

    text: str
    ok: bool


class ToolHost(Protocol):
    """The tools one mode gives the model."""

    def definitions(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, arguments: Mapping[str, Any], timeout_s: float) -> ToolReply: ...


@dataclass(frozen=True)
class LoopLimits:
    max_turns: int = 20
    max_retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    request_timeout_s: float = 120.0


@dataclass
class LoopOutcome:
    final_text: str | None = None
    tokens: Tokens = field(default_factory=Tokens)
    tool_calls: list[ToolCall] = field(default_factory=list)
    api_calls: int = 0
    retries: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    model_ms: float = 0.0
    tool_ms: float = 0.0
    error: str | None = None


_RETRYABLE = (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError)


def retry_delay_s(error: Exception, attempt: int, limits: LoopLimits) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based): the server's ``Retry-After``
    (seconds or an HTTP date; ``retry-after-ms`` too) when given, else exponential backoff."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None) or {}
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    after = headers.get("retry-after")
    if after is not None:
        try:
            return max(0.0, float(after))
        except ValueError:
            parsed = email.utils.parsedate_to_datetime(after) if after.strip() else None
            if parsed is not None:
                return max(0.0, parsed.timestamp() - time.time())
    return float(min(limits.backoff_max_s, limits.backoff_base_s * 2 ** (attempt - 1)))


def _add_usage(tokens: Tokens, usage: Any) -> Tokens:
    if usage is None:
        return tokens
    prompt = usage.prompt_tokens or 0
    completion = usage.completion_tokens or 0
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    completion_details = getattr(usage, "completion_tokens_details", None)
    cached = (getattr(prompt_details, "cached_tokens", None) or 0) if prompt_details else 0
    reasoning = (
        (getattr(completion_details, "reasoning_tokens", None) or 0) if completion_details else 0
    )
    return Tokens(
        input=tokens.input + prompt - cached,
        output=tokens.output + completion - reasoning,
        reasoning=tokens.reasoning + reasoning,
        cache_read=tokens.cache_read + cached,
        cache_write=tokens.cache_write,
    )


def _parse_arguments(raw: str | None) -> dict[str, Any] | str:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        return f"error: the tool arguments are not valid JSON ({exc.msg}); send a JSON object"
    if not isinstance(value, dict):
        return "error: the tool arguments must be a JSON object"
    return value


def run_loop(
    client: openai.OpenAI,
    model: str,
    messages: list[dict[str, Any]],
    tools: ToolHost,
    deadline: float,
    limits: LoopLimits,
    sleep: Callable[[float], None] = time.sleep,
    clock: RuntimeClock | None = None,
) -> LoopOutcome:
    """Drive ``model`` until it answers without tool calls, ``max_turns`` model calls were
    made, or ``deadline`` (a :func:`time.monotonic` instant) passes. ``clock`` is marked ready
    at the first request (the tools are listed by then: an MCP server has started) and
    answered when the final answer arrives."""
    outcome = LoopOutcome(messages=messages)
    definitions = tools.definitions()
    if clock is not None:
        clock.mark_ready()
    for _turn in range(limits.max_turns):
        response = _create(client, model, messages, definitions, deadline, limits, outcome, sleep)
        if response is None:
            return outcome
        outcome.tokens = _add_usage(outcome.tokens, response.usage)
        if not response.choices:
            outcome.error = "the model returned no choices"
            return outcome
        message = response.choices[0].message
        calls = list(message.tool_calls or [])
        entry: dict[str, Any] = {"role": "assistant", "content": message.content}
        if calls:
            entry["tool_calls"] = [call.model_dump(exclude_none=True) for call in calls]
        messages.append(entry)
        if not calls:
            outcome.final_text = message.content or ""
            if clock is not None:
                clock.mark_answered()
            return outcome
        for call in calls:
            if time.monotonic() >= deadline:
                outcome.error = "timeout: the item deadline passed while tools were running"
                return outcome
            messages.append(_run_tool(call, tools, deadline, outcome))
    outcome.error = f"max turns reached: {limits.max_turns} model calls without a final answer"
    return outcome


def _run_tool(call: Any, tools: ToolHost, deadline: float, outcome: LoopOutcome) -> dict[str, Any]:
    function = getattr(call, "function", None)
    name = str(getattr(function, "name", "") or "")
    arguments = _parse_arguments(getattr(function, "arguments", None))
    started = time.monotonic()
    if isinstance(arguments, str):
        reply = ToolReply(arguments, ok=False)
        recorded: Mapping[str, Any] = {"raw": getattr(function, "arguments", None)}
    else:
        recorded = arguments
        reply = tools.call(name, arguments, max(0.0, deadline - time.monotonic()))
    elapsed = (time.monotonic() - started) * 1000.0
    outcome.tool_ms += elapsed
    outcome.tool_calls.append(
        ToolCall(name=name, arguments=recorded, duration_ms=elapsed, ok=reply.ok, output=reply.text)
    )
    return {"role": "tool", "tool_call_id": call.id, "content": reply.text}


def _create(
    client: openai.OpenAI,
    model: str,
    messages: Sequence[dict[str, Any]],
    definitions: list[dict[str, Any]],
    deadline: float,
    limits: LoopLimits,
    outcome: LoopOutcome,
    sleep: Callable[[float], None],
) -> Any:
    """One model call with retries; ``None`` (and ``outcome.error`` set) when it cannot succeed."""
    failures = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            outcome.error = "timeout: the item deadline passed before the model answered"
            return None
        started = time.monotonic()
        outcome.api_calls += 1
        try:
            kwargs: dict[str, Any] = {"tools": definitions} if definitions else {}
            return client.chat.completions.create(
                model=model,
                messages=list(messages),  # type: ignore[arg-type]
                timeout=min(limits.request_timeout_s, remaining),
                **kwargs,
            )
        except _RETRYABLE as exc:
            failures += 1
            if failures > limits.max_retries:
                outcome.error = f"API error after {limits.max_retries} retries: {_describe(exc)}"
                return None
            delay = retry_delay_s(exc, failures, limits)
            if time.monotonic() + delay >= deadline:
                outcome.error = f"timeout: no time left to retry after {_describe(exc)}"
                return None
            outcome.retries += 1
            sleep(delay)
        except openai.APIError as exc:
            outcome.error = f"API error: {_describe(exc)}"
            return None
        finally:
            outcome.model_ms += (time.monotonic() - started) * 1000.0


def _describe(error: Exception) -> str:
    status = getattr(error, "status_code", None)
    prefix = f"HTTP {status} " if status else ""
    return f"{prefix}{type(error).__name__}: {error}"
