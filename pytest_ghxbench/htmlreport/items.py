"""Items and their transcripts, reduced to what the page shows (values formatted once, here).

The inputs are the on-disk JSON shapes, read leniently: a missing key, a ``null`` or a value of
the wrong type is shown as "—" (and left out of the plots), never an exception. A runner-error
row, for instance, has no ``cost`` or ``tool_calls`` key at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.htmlreport.formats import (
    as_int,
    as_number,
    as_text,
    fmt_cost,
    fmt_int,
    fmt_seconds,
)
from pytest_ghxbench.records.row import RUNNER_ERROR

__all__ = [
    "OUTCOME_LABELS",
    "AttemptView",
    "Checkpoint",
    "Clipped",
    "ItemView",
    "ToolCallView",
    "build_items",
    "mode_order",
]

OUTCOME_LABELS: dict[str, str] = {"pass": "pass", "fail": "fail", "runner_error": "runner error"}
UNKNOWN = "(unknown)"

# Display limits (characters): the transcripts file keeps everything; the page shows the start.
TOOL_TEXT_LIMIT = 4_000
LONG_TEXT_LIMIT = 20_000
REASON_LIMIT = 2_000  # the item table's reason (its transcript has the whole of it)


@dataclass(frozen=True)
class Clipped:
    """A text shown up to a limit: ``text`` is the shown start, ``total`` the full length."""

    text: str
    total: int

    @property
    def truncated(self) -> bool:
        return len(self.text) < self.total

    @classmethod
    def of(cls, value: Any, limit: int) -> Clipped | None:
        if value is None:
            return None
        if not isinstance(value, str):
            value = json.dumps(value, indent=2, ensure_ascii=False, default=str)
        return cls(value[:limit], len(value))


@dataclass(frozen=True)
class ToolCallView:
    name: str
    ok: bool | None
    duration: str
    arguments: Clipped | None
    output: Clipped | None


@dataclass(frozen=True)
class Checkpoint:
    name: str
    passed: bool | None
    detail: str


@dataclass(frozen=True)
class AttemptView:
    """One attempt (one transcript record) of an item."""

    attempt: str
    failure_kind: str | None
    verdict: str
    instructions: Clipped | None
    prompt: Clipped | None
    tool_calls: list[ToolCallView]
    final_text: Clipped | None
    usage: list[tuple[str, str]]
    failures: list[str]
    checkpoints: list[Checkpoint]
    runner_error: str | None
    traceback: Clipped | None
    thread_stacks: list[Clipped]
    has_adapter_transcript: bool


@dataclass
class ItemView:
    """One benchmark item: its row's measurements and its attempts' transcripts."""

    index: int
    item_id: str
    scenario: str
    mode: str
    rep: int | None
    outcome: str
    reason: str
    latency_ms: float | None
    tokens_active: float | None
    tool_calls: float | None
    cost_usd: float | None
    transcript_file: str | None = None
    has_row: bool = True
    attempts: list[AttemptView] = field(default_factory=list)

    @property
    def outcome_label(self) -> str:
        return OUTCOME_LABELS.get(self.outcome, self.outcome)

    @property
    def anchor(self) -> str:
        return f"item-{self.index}"

    @property
    def stable(self) -> bool:
        return self.outcome == "pass"

    @property
    def cells(self) -> tuple[str, str, str, str]:
        return (
            fmt_seconds(self.latency_ms),
            fmt_int(self.tokens_active),
            fmt_int(self.tool_calls),
            fmt_cost(self.cost_usd),
        )


def mode_order(modes: Iterable[str], preferred: Sequence[str] = ()) -> list[str]:
    """``modes`` without repeats: those in ``preferred`` first (in its order), then the rest
    in the built-in order (agent_direct, mcp, ghx), then alphabetically."""
    from pytest_ghxbench.metrics.summary import KNOWN_MODE_ORDER

    distinct = set(modes)
    ranked = [mode for mode in dict.fromkeys(preferred) if mode in distinct]
    rest = distinct - set(ranked)
    known = [mode for mode in KNOWN_MODE_ORDER if mode in rest]
    return [*ranked, *known, *sorted(rest - set(known))]


def row_outcome(row: Mapping[str, Any]) -> str:
    """``runner_error`` when the row's error is a runner error, ``pass`` when it succeeded with
    a valid output (the rows the efficiency gate counts), ``fail`` otherwise."""
    error = row.get("error")
    if isinstance(error, Mapping) and error.get("type") == RUNNER_ERROR:
        return "runner_error"
    if row.get("success") is True and row.get("output_valid") is True:
        return "pass"
    return "fail"


def active_tokens(row: Mapping[str, Any]) -> float | None:
    """``tokens.total - tokens.cache_read`` as the summary counts it (``None`` without a total)."""
    tokens = row.get("tokens")
    if not isinstance(tokens, Mapping):
        return None
    total = as_number(tokens.get("total"))
    if total is None:
        return None
    return total - (as_number(tokens.get("cache_read")) or 0.0)


def _reason(row: Mapping[str, Any], outcome: str) -> str:
    if outcome == "pass":
        return ""
    error = row.get("error")
    reason = ""
    if isinstance(error, Mapping) and as_text(error.get("message")):
        reason = str(error["message"])
    elif isinstance(row.get("failures"), list):
        reason = "; ".join(str(failure) for failure in row["failures"])
    return reason[:REASON_LIMIT]


def build_items(
    items: Sequence[Mapping[str, Any]],
    transcripts: Sequence[Mapping[str, Any]],
    modes: Sequence[str] = (),
) -> tuple[list[ItemView], list[ItemView]]:
    """The items (sorted by scenario, mode, repetition) and the transcripts whose item has no
    row (same shape, ``has_row`` False), each with its attempts in order."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for number, record in enumerate(transcripts):
        if not isinstance(record, Mapping):
            continue
        key = as_text(record.get("item_id")) or f"(transcript {number + 1} without an item id)"
        groups.setdefault(key, []).append(record)
    views: list[ItemView] = []
    for row in items:
        if isinstance(row, Mapping):
            views.append(_item(row, as_text(row.get("item_id")) or UNKNOWN))
    order = {mode: rank for rank, mode in enumerate(mode_order((v.mode for v in views), modes))}
    views.sort(key=lambda v: (v.scenario, order.get(v.mode, 0), v.rep or 0, v.item_id))
    seen: set[str] = set()
    for view in views:
        view.attempts = _attempts(groups.get(view.item_id, ()))
        seen.add(view.item_id)
    orphans: list[ItemView] = []
    for key, records in groups.items():
        if key in seen:
            continue
        last_row = records[-1].get("row")
        view = _item(last_row if isinstance(last_row, Mapping) else records[-1], key)
        view.has_row = False
        view.attempts = _attempts(records)
        orphans.append(view)
    for index, view in enumerate([*views, *orphans]):
        view.index = index
    return views, orphans


def _item(row: Mapping[str, Any], item_id: str) -> ItemView:
    outcome = row_outcome(row)
    return ItemView(
        index=0,
        item_id=item_id,
        scenario=as_text(row.get("scenario_id")) or UNKNOWN,
        mode=as_text(row.get("mode")) or UNKNOWN,
        rep=as_int(row.get("iteration")),
        outcome=outcome,
        reason=_reason(row, outcome),
        latency_ms=as_number(row.get("latency_ms_wall")),
        tokens_active=active_tokens(row),
        tool_calls=as_number(row.get("tool_calls")),
        cost_usd=as_number(row.get("cost")),
        transcript_file=_transcript_file(row.get("transcript")),
    )


def _transcript_file(pointer: Any) -> str | None:
    """The file (relative to the run directory) a row's ``transcript`` pointer names."""
    return as_text(pointer.get("file")) if isinstance(pointer, Mapping) else None


def _attempts(records: Iterable[Mapping[str, Any]]) -> list[AttemptView]:
    ordered = sorted(records, key=lambda record: as_int(record.get("attempt")) or 0)
    return [_attempt(record) for record in ordered]


def _attempt(record: Mapping[str, Any]) -> AttemptView:
    verdict = record.get("verdict")
    verdict = verdict if isinstance(verdict, Mapping) else {}
    failures = verdict.get("failures")
    checkpoints = verdict.get("checkpoints")
    stacks = record.get("thread_stacks")
    adapter_transcript = record.get("adapter_transcript")  # large (tool schemas): not shown
    attempt = as_int(record.get("attempt"))
    runner_error = record.get("runner_error")
    return AttemptView(
        attempt="?" if attempt is None else str(attempt),
        failure_kind=as_text(record.get("failure_kind")),
        verdict=_verdict_text(verdict, runner_error),
        instructions=Clipped.of(record.get("instructions"), LONG_TEXT_LIMIT),
        prompt=Clipped.of(record.get("prompt"), LONG_TEXT_LIMIT),
        tool_calls=[_tool_call(call) for call in _list(record.get("tool_calls"))],
        final_text=Clipped.of(record.get("final_text"), LONG_TEXT_LIMIT),
        usage=_usage(record.get("row")),
        failures=[str(failure) for failure in _list(failures)],
        checkpoints=[_checkpoint(checkpoint) for checkpoint in _list(checkpoints)],
        runner_error=None if runner_error is None else str(runner_error),
        traceback=Clipped.of(record.get("traceback"), LONG_TEXT_LIMIT),
        thread_stacks=[
            clipped
            for stack in _list(stacks)
            if (clipped := Clipped.of(stack, LONG_TEXT_LIMIT)) is not None
        ],
        has_adapter_transcript=adapter_transcript not in (None, "", [], {}),
    )


def _verdict_text(verdict: Mapping[str, Any], runner_error: Any) -> str:
    if runner_error is not None:
        return "runner error"
    if not verdict:
        return "no verdict"
    parts = [
        "success" if verdict.get("success") is True else "no success",
        "valid output" if verdict.get("output_valid") is True else "invalid output",
    ]
    return ", ".join(parts)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _tool_call(call: Any) -> ToolCallView:
    if not isinstance(call, Mapping):
        return ToolCallView(UNKNOWN, None, "—", Clipped.of(call, TOOL_TEXT_LIMIT), None)
    ok = call.get("ok")
    return ToolCallView(
        name=as_text(call.get("name")) or UNKNOWN,
        ok=ok if isinstance(ok, bool) else None,
        duration=fmt_seconds(as_number(call.get("duration_ms"))),
        arguments=Clipped.of(call.get("arguments"), TOOL_TEXT_LIMIT),
        output=Clipped.of(call.get("output"), TOOL_TEXT_LIMIT),
    )


def _checkpoint(checkpoint: Any) -> Checkpoint:
    if not isinstance(checkpoint, Mapping):
        return Checkpoint(str(checkpoint), None, "")
    passed = checkpoint.get("passed")
    return Checkpoint(
        name=as_text(checkpoint.get("name")) or UNKNOWN,
        passed=passed if isinstance(passed, bool) else None,
        detail=as_text(checkpoint.get("detail")) or "",
    )


def _usage(row: Any) -> list[tuple[str, str]]:
    """Tokens, cost and latency of the attempt's row, as label/value pairs."""
    if not isinstance(row, Mapping):
        return []
    usage: list[tuple[str, str]] = []
    tokens = row.get("tokens")
    if isinstance(tokens, Mapping):
        for key in ("input", "output", "reasoning", "cache_read", "cache_write", "total"):
            if key in tokens:
                usage.append((f"tokens {key.replace('_', ' ')}", fmt_int(tokens.get(key))))
        usage.append(("tokens active", fmt_int(active_tokens(row))))
    usage.append(("cost", fmt_cost(as_number(row.get("cost")))))
    usage.append(("latency", fmt_seconds(as_number(row.get("latency_ms_wall")))))
    usage.append(("tool calls", fmt_int(row.get("tool_calls"))))
    usage.append(("api calls", fmt_int(row.get("api_calls"))))
    return usage
