"""Whether every selected benchmark item produced a row, and if not, why.

A run that stopped early (``-x``, ``--maxfail``, an interrupt, xdist giving up on crashing
workers, the budget) has a gate computed over the rows that exist, which can pass while most of
the benchmark never ran. The session therefore counts the items it selected (after ``-k``,
``-m``, ``--lf`` and other deselection) against the rows it recorded; any item with neither a
row nor a skip of its own makes the run incomplete, which is never a pass.

An item skipped on purpose (``pytest.mark.skip``/``skipif`` from a conftest, ``pytest.skip`` in
a fixture, a scenario whose fixture resources the manifest lacks) is counted as skipped, not
missing: its skip reason is in pytest's own summary (``-rs``) and the run stays complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Completeness", "StopReasons"]

_SHOWN_MISSING = 5


@dataclass
class StopReasons:
    """What the session saw that can leave items unrun."""

    stopped: str | None = None
    """pytest's own reason for stopping (``stopping after 1 failures``, an interrupt)."""
    crashed_workers: int = 0
    """xdist workers that died (a crashed item still gets a row; items never started do not)."""
    unselected: int = 0
    """Items a resumed run needs that the resuming session did not select."""

    def on_interrupt(self, message: str) -> None:
        message = message.strip()
        # pytest's Interrupted carries its reason; a bare KeyboardInterrupt (Ctrl-C) none
        self.stopped = message if message and message != "KeyboardInterrupt" else "interrupted"

    def on_session_end(self, shouldfail: Any, shouldstop: Any) -> None:
        if self.stopped is not None:
            return
        for flag in (shouldfail, shouldstop):
            if flag:
                self.stopped = flag if isinstance(flag, str) else "stopped early"
                return


@dataclass
class Completeness:
    expected: int
    ran: int
    skipped: int = 0
    budget_skipped: int = 0
    missing: list[str] = field(default_factory=list)
    """Items with neither a row nor a skip of their own (budget-skipped ones included)."""
    reason: str = ""
    skipped_ids: list[str] = field(default_factory=list)
    """The items skipped on purpose (a merge counts them as not missing)."""

    @classmethod
    def of(
        cls,
        *,
        expected: Iterable[str] | None,
        expected_count: int | None,
        rows: Iterable[str],
        skipped: Iterable[str],
        budget_skipped: Iterable[str],
        why: StopReasons,
    ) -> Completeness:
        ran, skips, budget = set(rows), set(skipped), set(budget_skipped)
        skips -= ran
        budget -= ran
        if expected is not None:
            wanted = list(expected)
            missing = [i for i in wanted if i not in ran and i not in skips]
            total = max(len(wanted), len(ran | skips | budget))
        else:  # the items are known only by count (or not at all: collection never finished)
            missing = sorted(budget)
            total = max(expected_count or 0, len(ran | skips | budget))
            missing += [""] * max(0, total - len(ran | skips | budget))
        result = cls(
            expected=total,
            ran=len(ran),
            skipped=len(skips),
            budget_skipped=len(budget),
            missing=missing,
            skipped_ids=sorted(skips),
        )
        result.reason = result._why(why)
        return result

    @property
    def complete(self) -> bool:
        return not self.missing

    def _why(self, why: StopReasons) -> str:
        if self.complete:
            return ""
        reasons = []
        if self.budget_skipped:
            reasons.append("budget exhausted")
        unexplained = len(self.missing) - self.budget_skipped
        if why.unselected:
            reasons.append(
                f"{why.unselected} item(s) the resumed run needs were not selected by this session "
                "(resume with the options the run was started with)"
            )
            unexplained -= why.unselected
        if unexplained > 0:
            if why.stopped:
                reasons.append(why.stopped)
            elif why.crashed_workers:
                reasons.append(
                    f"{why.crashed_workers} xdist worker(s) crashed and were not all replaced "
                    "(--max-worker-restart)"
                )
            else:
                reasons.append(f"{unexplained} item(s) produced no row")
        return "; ".join(reasons)

    def note(self) -> str:
        """``incomplete: 3 of 8 items ran (budget exhausted)``, or "" for a complete run."""
        if self.complete:
            return ""
        skipped = f"; {self.skipped} skipped" if self.skipped else ""
        return f"incomplete: {self.ran} of {self.expected} items ran ({self.reason}{skipped})"

    def missing_names(self) -> Sequence[str]:
        """A few of the missing items, by node id (for the terminal)."""
        return [name for name in self.missing if name][:_SHOWN_MISSING]

    def block(self) -> dict[str, Any]:
        """``run.completeness`` of ``summary.json`` (``records.models.RunCompleteness``)."""
        return {
            "expected_items": self.expected,
            "ran_items": self.ran,
            "skipped_items": self.skipped,
            "missing_items": len(self.missing),
            "reason": self.reason,
            "complete": self.complete,
            "skipped_ids": list(self.skipped_ids),
        }
