"""The one latency definition every adapter reports (``docs/metrics.md``, "Latency").

A runtime is *started* (a process spawned, a server started, an MCP server launched), becomes
*ready* and receives the prompt, and some time later gives its *final answer*. The row's
``startup_ms`` is started → ready; ``latency_ms_wall`` is ready → final answer. Both are read
off :func:`time.monotonic`, the clock
:func:`~pytest_ghxbench.adapters.agent_process.run_agent_process` stamps every stdout line
with, so an adapter marks the arrival time of the event that means "ready" (Claude Code's
``system``/``init``, Codex's ``thread.started``) or "answered".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pytest_ghxbench.api import RunResult

__all__ = ["RuntimeClock"]


@dataclass
class RuntimeClock:
    """Start, ready and answer instants of one item's runtime (monotonic seconds)."""

    started: float = field(default_factory=time.monotonic)
    ready: float | None = None
    answered: float | None = None

    def mark_ready(self, at: float | None = None) -> None:
        """The runtime is ready and has the prompt (the first mark wins)."""
        if self.ready is None:
            self.ready = time.monotonic() if at is None else at

    def mark_answered(self, at: float | None = None) -> None:
        """The runtime gave its final answer (the last mark wins: a later answer replaces an
        earlier one)."""
        self.answered = time.monotonic() if at is None else at

    def startup_ms(self) -> float | None:
        """Started → ready, or ``None`` when the runtime never became ready."""
        return None if self.ready is None else max(0.0, (self.ready - self.started) * 1000.0)

    def latency_ms(self, now: float | None = None) -> float | None:
        """Ready → final answer; without an answer (a crash, a timeout), ready → ``now``."""
        if self.ready is None:
            return None
        end = self.answered
        if end is None:
            end = time.monotonic() if now is None else now
        return max(0.0, (end - self.ready) * 1000.0)

    def apply(self, result: RunResult) -> RunResult:
        """Set ``result.startup_ms`` and ``result.latency_ms`` from the marks. When the runtime
        never became ready, both stay unset and the harness counts the whole run as latency."""
        result.startup_ms = self.startup_ms()
        result.latency_ms = self.latency_ms()
        return result
