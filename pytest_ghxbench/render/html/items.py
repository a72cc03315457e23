"""The run's items (one per row), reduced to what the page shows (values formatted once, here).

The rows are read leniently: a missing key, a ``null`` or a value of the wrong type is shown as
"—" (and left out of the plots), never an exception. A runner-error row, for instance, has no
``cost`` or ``tool_calls`` key at all.

The page does not hold the transcripts: each item links to its transcript records in the run
directory (:attr:`ItemView.transcript_href`), which ``ghxbench view`` serves and the page's
script shows on demand.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from pytest_ghxbench.records.row import RUNNER_ERROR
from pytest_ghxbench.render.html.formats import (
    as_int,
    as_number,
    as_text,
    fmt_cost,
    fmt_int,
    fmt_seconds,
)

__all__ = [
    "OUTCOME_LABELS",
    "ItemView",
    "build_items",
    "failed_items",
    "item_rows",
    "mode_order",
]

OUTCOME_LABELS: dict[str, str] = {"pass": "pass", "fail": "fail", "runner_error": "runner error"}
UNKNOWN = "(unknown)"

# Display limits (characters): the row and the transcript keep everything.
REASON_LIMIT = 1_000  # a failed item's reason in the failed-items table
SHORT_REASON_LIMIT = 120  # the item table's reason column
FAILURES_SHOWN = 200  # failed items listed with their reasons; the item table has them all


@dataclass
class ItemView:
    """One benchmark item: its row's measurements and where its transcript is."""

    index: int
    item_id: str
    scenario: str
    mode: str
    rep: int | None
    outcome: str
    error_type: str | None
    reason: str
    latency_ms: float | None
    tokens_active: float | None
    tool_calls: float | None
    cost_usd: float | None
    transcript_file: str | None = None

    @property
    def name(self) -> str:
        """The item id without its file: ``pr-view-001[ghx-r1]``."""
        return self.item_id.rsplit("::", 1)[-1]

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
    def short_reason(self) -> str:
        if len(self.reason) <= SHORT_REASON_LIMIT:
            return self.reason
        return self.reason[: SHORT_REASON_LIMIT - 1] + "…"

    @property
    def transcript_href(self) -> str | None:
        """The item's transcript records, relative to the report (both live in the run
        directory): its transcripts file with the item as a query, which ``ghxbench view``
        answers with that item's records only (a plain file server, with the whole file)."""
        if self.transcript_file is None:
            return None
        return f"{_quoted_path(self.transcript_file)}?item={quote(self.item_id, safe='')}"

    @property
    def link(self) -> Markup:
        """The item's name, linking to its transcript records when it has some."""
        name = escape(self.name)
        href = self.transcript_href
        if href is None:
            return Markup(f'<span class="muted" title="no transcript recorded">{name}</span>')
        return Markup(f'<a class="open-transcript" href="{escape(href)}">{name}</a>')

    @property
    def cells(self) -> tuple[str, str, str, str]:
        return (
            fmt_seconds(self.latency_ms),
            fmt_int(self.tokens_active),
            fmt_int(self.tool_calls),
            fmt_cost(self.cost_usd),
        )


@functools.lru_cache(maxsize=64)
def _quoted_path(path: str) -> str:
    return quote(path)  # a run has a transcripts file per process, shared by its items


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
    if len(reason) > REASON_LIMIT:
        reason = reason[: REASON_LIMIT - 1] + "…"
    return reason


def build_items(items: Sequence[Mapping[str, Any]], modes: Sequence[str] = ()) -> list[ItemView]:
    """The items, sorted by scenario, mode (``modes`` first) and repetition."""
    views = [
        _item(row, as_text(row.get("item_id")) or UNKNOWN)
        for row in items
        if isinstance(row, Mapping)
    ]
    order = {mode: rank for rank, mode in enumerate(mode_order((v.mode for v in views), modes))}
    views.sort(key=lambda v: (v.scenario, order.get(v.mode, 0), v.rep or 0, v.item_id))
    for index, view in enumerate(views):
        view.index = index
    return views


def item_rows(views: Sequence[ItemView]) -> Markup:
    """The item table's rows: one per item, written here rather than by the template because
    a run has thousands (the template engine costs several times as much per row). Every
    value is escaped; the table's columns are item, scenario, mode, repetition, outcome,
    latency, active tokens, tool calls, cost and the start of the reason."""
    rows = []
    for view in views:
        item_id, mode, scenario = escape(view.item_id), escape(view.mode), escape(view.scenario)
        outcome = escape(view.outcome)
        latency, tokens, calls, cost = (escape(cell) for cell in view.cells)
        rep = "—" if view.rep is None else view.rep
        rows.append(
            f'<tr id="{view.anchor}" data-item-id="{item_id}" data-mode="{mode}" '
            f'data-scenario="{scenario}" data-outcome="{outcome}"><td>{view.link}</td>'
            f"<td>{scenario}</td><td>{mode}</td><td>{rep}</td>"
            f'<td><span class="outcome {outcome}">{escape(view.outcome_label)}</span></td>'
            f"<td>{latency}</td><td>{tokens}</td><td>{calls}</td><td>{cost}</td>"
            f"<td>{escape(view.short_reason)}</td></tr>\n"
        )
    return Markup("".join(rows))


def failed_items(views: Sequence[ItemView]) -> tuple[list[ItemView], int]:
    """The first :data:`FAILURES_SHOWN` items that did not pass, and how many more there are."""
    failed = [view for view in views if view.outcome != "pass"]
    return failed[:FAILURES_SHOWN], max(0, len(failed) - FAILURES_SHOWN)


def _item(row: Mapping[str, Any], item_id: str) -> ItemView:
    outcome = row_outcome(row)
    error = row.get("error")
    pointer = row.get("transcript")
    return ItemView(
        index=0,
        item_id=item_id,
        scenario=as_text(row.get("scenario_id")) or UNKNOWN,
        mode=as_text(row.get("mode")) or UNKNOWN,
        rep=as_int(row.get("iteration")),
        outcome=outcome,
        error_type=as_text(error.get("type")) if isinstance(error, Mapping) else None,
        reason=_reason(row, outcome),
        latency_ms=as_number(row.get("latency_ms_wall")),
        tokens_active=active_tokens(row),
        tool_calls=as_number(row.get("tool_calls")),
        cost_usd=as_number(row.get("cost")),
        transcript_file=_relative_file(pointer.get("file"))
        if isinstance(pointer, Mapping)
        else None,
    )


def _relative_file(value: Any) -> str | None:
    """A row's transcript file if it is a plain path inside the run directory (the link must
    never lead out of it: no absolute path, no ``..``, no ``//host``)."""
    text = as_text(value)
    if text is None or text.startswith("/") or "\\" in text:
        return None
    parts = text.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return text
