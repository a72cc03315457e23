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

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.api import Tokens
from pytest_ghxbench.options import Settings
from pytest_ghxbench.records.row import Row
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
class Spend:
    usd: float = 0.0
    tokens: int = 0

    def __add__(self, other: Spend) -> Spend:
        return Spend(self.usd + other.usd, self.tokens + other.tokens)

    @classmethod
    def of_row(cls, row: Row) -> Spend:
        return cls(float(row.cost), row.tokens.active)

    @classmethod
    def of_row_json(cls, payload: str) -> Spend:
        data = json.loads(payload)
        tokens = Tokens.model_validate(data.get("tokens") or {})
        return cls(float(data.get("cost") or 0.0), tokens.active)


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

    def spent(self, spend: Spend) -> str | None:
        """Why no item may start at ``spend``; ``None`` while it is below every limit."""
        if self.usd is not None and spend.usd >= self.usd - _USD_TOLERANCE:
            return (
                f"{REASON_PREFIX}{format_usd(spend.usd)} of --ghx-budget-usd={self.usd:g} "
                "spent before this item"
            )
        if self.tokens is not None and spend.tokens >= self.tokens:
            return (
                f"{REASON_PREFIX}{spend.tokens:,} active tokens of "
                f"--ghx-budget-tokens={self.tokens} spent before this item"
            )
        return None

    def block(self, spend: Spend, skipped_items: int) -> dict[str, Any]:
        """``summary["run"]["budget"]``."""
        return {
            "usd": self.usd,
            "tokens": self.tokens,
            "spent_usd": round(spend.usd, 6),
            "spent_tokens": spend.tokens,
            "exhausted": self.spent(spend) is not None,
            "skipped_items": skipped_items,
        }


class SpendLedger:
    """One xdist worker's spend, in a file of its own that the other workers read."""

    def __init__(self, directory: Path, name: str) -> None:
        self.path = directory / f"{name}.json"
        self.total = Spend()

    def add(self, spend: Spend) -> None:
        self.total += spend
        write_text_atomic(
            self.path,
            json.dumps({"usd": self.total.usd, "tokens": self.total.tokens}),
            durable=False,
        )


def read_spend(directory: Path) -> Spend:
    """The sum of every worker's file in ``directory`` (none yet: nothing spent)."""
    total = Spend()
    try:
        paths = sorted(directory.glob("*.json"))
    except OSError:
        return total
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            total += Spend(float(data["usd"]), int(data["tokens"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a worker's file is always whole (replaced atomically); never ours to fix
    return total


def remove_ledgers(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)
