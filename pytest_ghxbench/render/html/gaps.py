"""The page's "Where the sandbox diverged from GitHub" section: every sandbox gap of the run's
rows (``sandbox_gaps``), by mode, kind and detail, with how many requests met it and in which
items (linked to their rows in the item table)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.render.gaps import KIND_NAMES, gap_lines
from pytest_ghxbench.render.html.formats import as_int, as_text
from pytest_ghxbench.render.html.items import ItemView

__all__ = ["GapRow", "GapSection", "gap_section"]

ITEMS_SHOWN = 12
"""Items listed per gap; the rest are counted."""


@dataclass
class GapRow:
    mode: str
    kind: str
    kind_label: str
    detail: str
    count: int = 0
    items: list[tuple[str, str]] = field(default_factory=list)
    """``(item name, anchor of its row in the item table)`` of the first :data:`ITEMS_SHOWN`
    items."""
    more: int = 0
    """Items beyond those listed."""


@dataclass(frozen=True)
class GapSection:
    lines: list[str]
    """One sentence per mode with gaps (as the terminal prints it)."""
    rows: list[GapRow]


def _entries(row: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    gaps = row.get("sandbox_gaps")
    found = []
    for gap in gaps if isinstance(gaps, list) else ():
        if isinstance(gap, Mapping):
            kind, detail = as_text(gap.get("kind")), as_text(gap.get("detail"))
            count = as_int(gap.get("count"))
            if kind and detail and count:
                found.append((kind, detail, count))
    return found


def gap_section(
    summary: RunSummary,
    items: Sequence[Mapping[str, Any]],
    views: Sequence[ItemView],
    modes: Sequence[str],
) -> GapSection | None:
    """The section's content; None when there is nothing to say (no row has a gap and the run
    is not the sandbox's, e.g. real GitHub)."""
    places = {view.item_id: (view.index, view.anchor) for view in views}
    grouped: dict[tuple[str, str, str], GapRow] = {}
    met: dict[tuple[str, str, str], list[tuple[int, str, str]]] = {}
    for row in items:
        if not isinstance(row, Mapping):
            continue
        mode = as_text(row.get("mode")) or "(unknown)"
        item_id = as_text(row.get("item_id")) or ""
        index, anchor = places.get(item_id, (len(places), ""))
        for kind, detail, count in _entries(row):
            key = (mode, kind, detail)
            if key not in grouped:
                label = KIND_NAMES.get(kind, (kind, kind))[0]
                grouped[key] = GapRow(mode, kind, label, detail)
            grouped[key].count += count
            met.setdefault(key, []).append((index, item_id.rsplit("::", 1)[-1], anchor))
    for key, entry in grouped.items():
        ordered = sorted(met[key])  # as the page lists the items
        entry.items = [(name, anchor) for _, name, anchor in ordered[:ITEMS_SHOWN]]
        entry.more = len(ordered) - len(entry.items)
    if not grouped and summary.run.get("backend") != "sandbox":
        return None
    mode_rank = {mode: rank for rank, mode in enumerate(modes)}
    kind_rank = {kind: rank for rank, kind in enumerate(KIND_NAMES)}
    rows = sorted(
        grouped.values(),
        key=lambda r: (
            mode_rank.get(r.mode, len(mode_rank)),
            r.mode,
            kind_rank.get(r.kind, len(kind_rank)),
            -r.count,
            r.detail,
        ),
    )
    return GapSection(gap_lines(summary), rows)
