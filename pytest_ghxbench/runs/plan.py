"""The plan of a run: the benchmark items it is to produce rows for.

When collection has finished (after ``-k``, ``-m``, ``--deselect``, ``--lf``, ``--sw`` and
``--scenario-set`` have deselected what they deselect), the selected scenario items are the
**plan**; its digest identifies it across machines. A ``--ghx-shard`` session then keeps only
its share of the plan, and a ``--ghx-resume`` session only the items its run still needs. The
plan, its digest and the shard are recorded in ``run.json``, and the run's completeness is
counted against the share (a merged run: against the whole plan).

Under xdist the controller collects nothing: each worker computes the plan (all compute the
same) and leaves it in the run directory for the controller (:func:`hand_over`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.records.store import write_text_atomic
from pytest_ghxbench.runs.shard import split_plan
from pytest_ghxbench.shard_spec import ShardSpec

__all__ = ["HANDOFF", "Plan", "hand_over", "make_plan", "plan_digest", "take_over"]

HANDOFF = ".plan.json"


def plan_digest(items: Iterable[str]) -> str:
    """``sha256:<hex>`` of the plan's item ids (sorted: the digest names the selection, not
    the order pytest collected it in)."""
    text = "\n".join(sorted(items))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Plan:
    items: tuple[str, ...]
    """The whole selection, unsharded, in collection order."""
    shard: ShardSpec | None = None
    balanced_by: str | None = None
    """``timeouts`` or ``durations of <run dir>`` (sharded plans only)."""
    share: tuple[str, ...] = field(default=())
    """The items this run is to produce rows for: its shard's, or the whole plan."""

    @property
    def digest(self) -> str:
        return plan_digest(self.items)

    def spec_fields(self) -> dict[str, Any]:
        """The ``plan``, ``plan_digest`` and ``shard`` fields of ``run.json``."""
        shard = None
        if self.shard is not None:
            shard = {
                "index": self.shard.index,
                "count": self.shard.count,
                "balanced_by": self.balanced_by,
                "items": list(self.share),
            }
        return {"plan": list(self.items), "plan_digest": self.digest, "shard": shard}

    @classmethod
    def of_spec_fields(cls, data: Mapping[str, Any]) -> Plan:
        items = tuple(str(item) for item in data.get("plan") or ())
        shard = data.get("shard")
        if not isinstance(shard, Mapping):
            return cls(items, share=items)
        return cls(
            items,
            ShardSpec(int(shard["index"]), int(shard["count"])),
            shard.get("balanced_by"),
            tuple(str(item) for item in shard.get("items") or ()),
        )


def make_plan(
    selected: Sequence[str],
    shard: ShardSpec | None,
    weight: Callable[[str], float],
    balanced_by: str,
) -> Plan:
    """The plan of ``selected`` items and, for a shard, its share."""
    items = tuple(selected)
    if shard is None:
        return Plan(items, share=items)
    share = split_plan(items, shard.count, weight)[shard.index - 1]
    return Plan(items, shard, balanced_by, tuple(share))


def hand_over(run_dir: Path, plan: Plan) -> None:
    """An xdist worker leaves its plan for the controller (every worker writes the same)."""
    write_text_atomic(run_dir / HANDOFF, json.dumps(plan.spec_fields()), durable=False)


def take_over(run_dir: Path) -> Plan | None:
    """The controller reads the plan a worker left; ``None`` when there is none (yet)."""
    try:
        data = json.loads((run_dir / HANDOFF).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Plan.of_spec_fields(data) if isinstance(data, dict) else None
