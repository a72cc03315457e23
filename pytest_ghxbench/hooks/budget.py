"""Spending limits: ``--ghx-budget-usd`` and ``--ghx-budget-tokens`` stop starting new items once
the run has spent that much.

The spend is the sum, over the rows produced so far, of ``cost`` and of active tokens (``total``
minus ``cache_read``). An item that may not start is skipped in its setup with the reason, gets
no row, and the run is incomplete (:mod:`pytest_ghxbench.hooks.session_end`).

Where the spend is known when an item is about to start:

* One process (no xdist): the process records every row itself, right after the item's call
  phase and before the next item's setup. The check is exact: no item starts once the spend
  has reached a limit; the item that crosses it is the last one.
* xdist: a row is produced in a worker. The worker adds its spend to its own small file
  (``<run dir>/.spend/<worker>-<pid>.json``, replaced atomically, one writer per file) as soon
  as the row exists, before the report leaves for the controller, and every worker sums all
  the files before starting an item. No item starts once the spend *written* reached a limit.
  The slack is the items already running when the limit is crossed: each of the other workers
  may be in the middle of one item, which finishes and is counted. So the run spends at most
  one item per worker beyond the item that crossed the limit, and never starts one after it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.api import Usage
from pytest_ghxbench.options import Settings
from pytest_ghxbench.records.store import write_text_atomic

SPEND_DIR = ".spend"
REASON_PREFIX = "ghxbench budget: "
# A report attribute (it travels from an xdist worker) naming why the item did not start.
BUDGET_ATTR = "ghxbench_budget_skip"
BUDGET_SKIP_KEY = pytest.StashKey[str]()
# Costs are sums of floats: 0.7 + 0.1 must reach a budget of 0.8.
_USD_TOLERANCE = 1e-9


def format_usd(value: float) -> str:
    """``$0.50``, ``$0.0125``: two decimals at least, four at most."""
    whole, _, fraction = f"{value:,.4f}".partition(".")
    return f"${whole}.{fraction.rstrip('0').ljust(2, '0')}"


@dataclass(frozen=True)
class Budget:
    usd: float | None = None
    tokens: int | None = None

    @classmethod
    def of(cls, settings: Settings) -> Budget | None:
        # read by name: the options are declared in option_specs/options (Settings.budget_usd,
        # Settings.budget_tokens, validated > 0); a build without them has no budget
        usd: float | None = getattr(settings, "budget_usd", None)
        tokens: int | None = getattr(settings, "budget_tokens", None)
        if usd is None and tokens is None:
            return None
        return cls(usd, tokens)

    def spent(self, spend: Usage) -> str | None:
        """Why no item may start at ``spend``; ``None`` while it is below every limit."""
        if self.usd is not None and spend.cost_usd >= self.usd - _USD_TOLERANCE:
            return (
                f"{REASON_PREFIX}{format_usd(spend.cost_usd)} of --ghx-budget-usd={self.usd:g} "
                "spent before this item"
            )
        if self.tokens is not None and spend.active_tokens >= self.tokens:
            return (
                f"{REASON_PREFIX}{spend.active_tokens:,} active tokens of "
                f"--ghx-budget-tokens={self.tokens} spent before this item"
            )
        return None

    def block(self, spend: Usage, skipped_items: int) -> dict[str, Any]:
        """``summary["run"]["budget"]``."""
        return {
            "usd": self.usd,
            "tokens": self.tokens,
            "spent_usd": round(spend.cost_usd, 6),
            "spent_tokens": spend.active_tokens,
            "exhausted": self.spent(spend) is not None,
            "skipped_items": skipped_items,
        }


class SpendLedger:
    """One xdist worker's spend, in a file of its own that the other workers read."""

    def __init__(self, directory: Path, name: str) -> None:
        self.path = directory / f"{name}.json"
        self.total = Usage()

    def add(self, usage: Usage) -> None:
        self.total += usage
        write_text_atomic(self.path, self.total.model_dump_json(), durable=False)


def read_spend(directory: Path) -> Usage:
    """The sum of every worker's file in ``directory`` (none yet: nothing spent)."""
    total = Usage()
    try:
        paths = sorted(directory.glob("*.json"))
    except OSError:
        return total
    for path in paths:
        try:
            total += Usage.model_validate_json(path.read_bytes())
        except (OSError, ValueError):
            continue  # a worker's file is always whole (replaced atomically); never ours to fix
    return total


def remove_ledgers(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)
