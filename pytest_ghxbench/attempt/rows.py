"""Building metric rows from an item's outcome (and from faults that left no outcome), and
checking that an adapter's result can become one (:func:`result_problem`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pytest_ghxbench.api import RunResult, Tokens, ToolCall
from pytest_ghxbench.attempt.redact import Redactor
from pytest_ghxbench.records.models import SCHEMA_VERSION, ItemRecord
from pytest_ghxbench.records.row import RUNNER_ERROR

ASSERTION_FAILED = "assertion_failed"
MODE_VIOLATION = "mode_violation"
_ITEM_NAME = re.compile(r"^(?P<scenario>[^\[\]]+)\[(?P<mode>[^\[\]]+)-r(?P<rep>\d+)\]$")
_MAX_ERROR_MESSAGE = 2000


@dataclass(frozen=True)
class ItemIdentity:
    """What a row needs to know about the item it belongs to."""

    item_id: str
    run_id: str
    scenario_id: str
    scenario_set: str | None
    scenario_type: str
    mode: str
    iteration: int
    adapter: str
    backend: str | None
    git: Mapping[str, str | None]
    default_model: str | None


def item_name(scenario_id: str, mode: str, rep: int) -> str:
    return f"{scenario_id}[{mode}-r{rep}]"


def parse_item_name(nodeid: str) -> tuple[str, str, int] | None:
    """(scenario_id, mode, rep) from a node id like ``scenarios/x.yaml::pr-view-001[ghx-r2]``."""
    match = _ITEM_NAME.match(nodeid.rsplit("::", 1)[-1])
    if match is None:
        return None
    return match["scenario"], match["mode"], int(match["rep"])


def model_info(signature: str | None, mode: str, adapter: str) -> dict[str, Any]:
    if not signature:
        return {"provider_id": adapter, "model_id": "unknown", "mode": mode}
    provider, _, model = signature.partition("/")
    if not model:
        provider, model = adapter, provider
    return {"provider_id": provider, "model_id": model, "mode": mode}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _base(identity: ItemIdentity, external_retry_count: int) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "timestamp": _now(),
        "run_id": identity.run_id,
        "mode": identity.mode,
        "scenario_id": identity.scenario_id,
        "scenario_set": identity.scenario_set,
        "iteration": identity.iteration,
        "external_retry_count": external_retry_count,
        "git": {"repo": identity.git.get("repo"), "commit": identity.git.get("commit")},
        "item_id": identity.item_id,
        "adapter": identity.adapter,
        "backend": identity.backend,
        "scenario_type": identity.scenario_type,
    }


def _clip(message: str) -> str:
    return message if len(message) <= _MAX_ERROR_MESSAGE else message[:_MAX_ERROR_MESSAGE] + "…"


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _timing(result: RunResult | None, wall_ms: float) -> dict[str, float | None]:
    """The row's timing fields, one definition for every adapter (see :class:`RunResult`):
    latency runs from the runtime being ready to its final answer; startup before that."""
    startup = _number(result.startup_ms) if result is not None else None
    latency = _number(result.latency_ms) if result is not None else None
    if latency is None:
        latency = max(0.0, wall_ms - (startup or 0.0))
    return {
        "latency_ms_wall": latency,
        "startup_ms": startup if startup is not None else 0.0,
        "sdk_latency_ms": _number(result.sdk_latency_ms) if result is not None else None,
    }


_OPTIONAL_STR = ("final_text", "session_id", "model", "error")
# Durations in ms and money: a negative or non-finite one would count as a win in the gate.
_MEASURES = ("cost_usd", "latency_ms", "startup_ms", "sdk_latency_ms")


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _possible(value: float) -> bool:
    """Finite and >= 0 (an integer too large for a float is not finite either)."""
    try:
        return math.isfinite(float(value)) and value >= 0
    except OverflowError:
        return False


def _malformed(name: str, expected: str, value: object) -> str:
    # Names the type only: the value may hold a secret.
    return (
        f"adapter returned a malformed RunResult: {name} must be {expected}, "
        f"got {type(value).__name__}"
    )


def _impossible(name: str, value: float, rule: str = "must be finite and >= 0") -> str:
    try:
        shown = repr(float(value))
    except OverflowError:
        shown = f"<an integer of {int(value).bit_length()} bits>"
    return f"adapter returned an impossible {name}={shown}: {rule}"


def _tool_call_problem(where: str, call: Any) -> str | None:
    if not isinstance(call, ToolCall):
        return _malformed(where, "a ToolCall", call)
    if not isinstance(call.name, str):
        return _malformed(f"{where}.name", "a str", call.name)
    if not isinstance(call.arguments, Mapping):
        return _malformed(f"{where}.arguments", "a mapping", call.arguments)
    if not isinstance(call.ok, bool):
        return _malformed(f"{where}.ok", "a bool", call.ok)
    if call.output is not None and not isinstance(call.output, str):
        return _malformed(f"{where}.output", "a str or None", call.output)
    if call.duration_ms is not None and not _is_number(call.duration_ms):
        return _malformed(f"{where}.duration_ms", "a number or None", call.duration_ms)
    if call.duration_ms is not None and not _possible(call.duration_ms):
        return _impossible(f"{where}.duration_ms", call.duration_ms)
    return None


def _shape_problem(result: RunResult) -> str | None:
    """The first field of the wrong type."""
    for name in _OPTIONAL_STR:
        value = getattr(result, name)
        if value is not None and not isinstance(value, str):
            return _malformed(name, "a str or None", value)
    if not isinstance(result.tokens, Tokens):
        return _malformed("tokens", "a Tokens", result.tokens)
    if not isinstance(result.tool_calls, (list, tuple)):
        return _malformed("tool_calls", "a list or tuple of ToolCall", result.tool_calls)
    for index, call in enumerate(result.tool_calls):
        if (problem := _tool_call_problem(f"tool_calls[{index}]", call)) is not None:
            return problem
    for name in _MEASURES:
        value = getattr(result, name)
        if value is not None and not _is_number(value):
            return _malformed(name, "a number or None", value)
    if result.api_calls is not None and not _is_count(result.api_calls):
        return _malformed("api_calls", "a whole number or None", result.api_calls)
    if not _is_count(result.internal_retry_count):
        return _malformed("internal_retry_count", "a whole number", result.internal_retry_count)
    breakdown = result.timing_breakdown
    if breakdown is not None and not isinstance(breakdown, Mapping):
        return _malformed("timing_breakdown", "a mapping or None", breakdown)
    for key, value in (breakdown or {}).items():
        if not isinstance(key, str):
            return _malformed("timing_breakdown's keys", "str", key)
        if not _is_number(value):
            return _malformed(f"timing_breakdown[{key!r}]", "a number", value)
    return None


def _value_problem(result: RunResult) -> str | None:
    """The first number no measurement can have: negative, NaN or infinite."""
    for name in ("input", "output", "reasoning", "cache_read", "cache_write", "total"):
        value = getattr(result.tokens, name)
        if not _is_count(value):
            return _malformed(f"tokens.{name}", "a whole number", value)
        if value < 0:
            return _impossible(f"tokens.{name}", value, "must be a whole number >= 0")
    for name in _MEASURES:
        value = getattr(result, name)
        if value is not None and not _possible(value):
            return _impossible(name, value)
    for name in ("api_calls", "internal_retry_count"):
        value = getattr(result, name)
        if value is not None and value < 0:
            return _impossible(name, value, "must be >= 0")
    for key, value in (result.timing_breakdown or {}).items():
        if not _possible(value):
            return _impossible(f"timing_breakdown[{key!r}]", value)
    return None


MAX_TOKENS = 100_000_000
"""More tokens of one kind than any item can use (10^8)."""
MAX_COST_USD = 1000.0
"""More than any one item can cost."""
DEADLINE_SLACK_MS = 1000.0
"""A duration may exceed the item's ``timeout_ms`` by this much; the harness stops it there."""


def _unmeasurable(result: RunResult, timeout_ms: float | None) -> str | None:
    """The first number no adapter can have measured for an item with ``timeout_ms``: a
    duration past its deadline (which the harness enforces), more than :data:`MAX_TOKENS`
    tokens of a kind, more than :data:`MAX_COST_USD`."""
    for name in ("input", "output", "reasoning", "cache_read", "cache_write", "total"):
        value = getattr(result.tokens, name)
        if value > MAX_TOKENS:
            return _impossible(f"tokens.{name}", value, f"more than {MAX_TOKENS:,} tokens")
    if result.cost_usd is not None and result.cost_usd > MAX_COST_USD:
        return _impossible(
            "cost_usd", result.cost_usd, f"more than ${MAX_COST_USD:,.0f} for one item"
        )
    if timeout_ms is None:
        return None
    limit = timeout_ms + DEADLINE_SLACK_MS
    rule = f"longer than the item's deadline (timeout_ms={timeout_ms:g}, + 1 s)"
    durations = [
        (name, getattr(result, name)) for name in ("latency_ms", "startup_ms", "sdk_latency_ms")
    ]
    durations += [
        (f"tool_calls[{i}].duration_ms", c.duration_ms) for i, c in enumerate(result.tool_calls)
    ]
    for name, value in durations:
        if value is not None and value > limit:
            return _impossible(name, value, rule)
    return None


def result_problem(result: Any, timeout_ms: float | None = None) -> str | None:
    """Why an adapter's return value cannot become a row, in one line, or None: not a
    :class:`RunResult`, a field of the wrong type (named with its type, never its value, which
    may hold a secret), an impossible number (negative, NaN or infinite), or one it cannot have
    measured for an item with ``timeout_ms`` (see :func:`_unmeasurable`)."""
    if not isinstance(result, RunResult):
        return f"adapter returned {type(result).__name__}, expected pytest_ghxbench.RunResult"
    # An adapter that reports its own error (e.g. its agent stopped at the deadline, after the
    # kill's grace) makes a runner-error row anyway; its durations are what it measured.
    deadline = timeout_ms if not result.error else None
    return _shape_problem(result) or _value_problem(result) or _unmeasurable(result, deadline)


def outcome_data(
    identity: ItemIdentity,
    *,
    result: RunResult,
    wall_ms: float,
    success: bool,
    output_valid: bool,
    failures: Sequence[str],
    checkpoints: Sequence[Mapping[str, Any]],
    external_retry_count: int,
    cost_usd: float,
) -> dict[str, Any]:
    """The row of an attempt that ran, as JSON-ready data (see :func:`finish_row`)."""
    error = {"type": ASSERTION_FAILED, "message": _clip("; ".join(failures))} if failures else None
    return dict(
        **_base(identity, external_retry_count),
        session_id=result.session_id,
        success=success,
        output_valid=output_valid,
        **_timing(result, wall_ms),
        timing_breakdown=dict(result.timing_breakdown) if result.timing_breakdown else None,
        tokens=result.tokens.model_dump(),
        cost=cost_usd,
        tool_calls=len(result.tool_calls),
        api_calls=result.api_calls or 0,
        internal_retry_count=result.internal_retry_count,
        model=model_info(result.model or identity.default_model, identity.mode, identity.adapter),
        error=error,
        failures=list(failures),
        checkpoints=[dict(c) for c in checkpoints],
    )


def runner_error_data(
    identity: ItemIdentity,
    message: str,
    *,
    wall_ms: float = 0.0,
    external_retry_count: int = 0,
    result: RunResult | None = None,
) -> dict[str, Any]:
    """The row of an item whose agent could not run to completion (exception, crash, timeout).
    Tokens the agent reported before failing still count."""
    tokens = result.tokens if result is not None and isinstance(result.tokens, Tokens) else None
    return dict(
        **_base(identity, external_retry_count),
        session_id=result.session_id if result is not None else None,
        success=False,
        output_valid=False,
        **_timing(result, wall_ms),
        tokens=(tokens or Tokens()).model_dump(),
        # Requests the runtime made before it failed were made (and maybe paid for).
        api_calls=_count(result.api_calls) if result is not None else 0,
        internal_retry_count=_count(result.internal_retry_count) if result is not None else 0,
        model=model_info(identity.default_model, identity.mode, identity.adapter),
        error={"type": RUNNER_ERROR, "message": _clip(message)},
        failures=[_clip(message)],
        checkpoints=[],
    )


def mark_mode_violation(data: dict[str, Any], violations: Sequence[str]) -> str:
    """Make the row data of an item whose agent used a client its mode does not offer (or
    another item's token) a failed ``mode_violation``, whatever else happened; the message."""
    shown = [*violations[:3], *([f"and {len(violations) - 3} more"] if len(violations) > 3 else [])]
    message = _clip("mode violation: " + "; ".join(shown))
    data["success"] = False
    data["error"] = {"type": MODE_VIOLATION, "message": message}
    data["failures"] = [message, *data.get("failures", [])]
    return message


def finish_row(data: Mapping[str, Any], redactor: Redactor) -> tuple[ItemRecord, str]:
    """Redact the row data and validate it into an :class:`ItemRecord`, in one pass over its
    JSON. Returns the record and its JSON text (what travels to the controller and into the
    file)."""
    text = redactor.json(data)
    return ItemRecord.model_validate_json(text), text
