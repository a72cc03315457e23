"""Harness errors: what the session itself failed to do (write a transcript, a row, the summary).

They are never the agent's fault: the item keeps its outcome and is not retried. But a run that
lost records is not a clean pass either: each distinct failure is shown once (file and OS
error, with how many writes it hit), the verdict names them, and the exit status is 1.

An xdist worker's failures travel to the controller on the item's report
(:data:`HARNESS_ATTR`, plain builtins), like the row does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["HARNESS_ATTR", "HarnessErrors"]

HARNESS_ATTR = "ghxbench_harness_errors"


class HarnessErrors:
    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, str], int] = {}

    def add(self, what: str, file: str, error: str, count: int = 1) -> None:
        key = (what, file, error)
        self._counts[key] = self._counts.get(key, 0) + count

    def add_all(self, failures: Iterable[Mapping[str, Any]]) -> None:
        for failure in failures:
            self.add(str(failure["what"]), str(failure["file"]), str(failure["error"]))

    def __bool__(self) -> bool:
        return bool(self._counts)

    def count(self, what: str) -> int:
        return sum(n for (kind, _, _), n in self._counts.items() if kind == what)

    def lines(self) -> list[str]:
        """One line per distinct failure: ``harness error: 3 row(s) not written to
        .../rows.jsonl: [Errno 28] No space left on device``."""
        return [
            f"harness error: {n} {what}(s) not written to {file}: {error}"
            for (what, file, error), n in self._counts.items()
        ]

    def note(self) -> str:
        """For the verdict: ``harness error: 3 row(s), 1 transcript record(s) not written``."""
        if not self._counts:
            return ""
        kinds = dict.fromkeys(what for what, _, _ in self._counts)
        counts = ", ".join(f"{self.count(what)} {what}(s)" for what in kinds)
        return f"harness error: {counts} not written"
