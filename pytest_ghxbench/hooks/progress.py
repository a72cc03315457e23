"""The live status line of a benchmark session, in the process that owns it.

``ghxbench 12/40 items | 123,456 active tokens | $0.42 | ETA 3m05s``: items done of the
items in the run, the active tokens and cost of the rows so far (against the budget when one is
set) and an estimate of the time left (items left x mean wall time per item so far / workers).

* In a terminal (a TTY, ``TERM`` not ``dumb``) the line is transient: it is drawn at the end of
  the current line after each item (and when an item starts) and erased before pytest, xdist or
  any plugin writes anything through the terminal reporter, so dots, ``-v`` lines, ``[gw0]``
  lines and the summary are exactly what they would be without it. It is drawn only where it
  fits on the line, never wrapping.
* Elsewhere (CI logs, pipes) and with ``-s`` (output of the items goes to the terminal
  directly), a plain line ``ghxbench progress: ...`` is written after another ~10% of the
  items is done, at most every :data:`PLAIN_EVERY_S` seconds, and only where pytest itself ends
  a line (after its newline, before what follows), so it never lands inside a row of result
  characters and never splits a file's line.
* ``-qq`` (or quieter) silences it.
"""

from __future__ import annotations

import math
import os
import time
from typing import IO, Any

import pytest

from pytest_ghxbench.attempt.rows import parse_item_name
from pytest_ghxbench.hooks.budget import Budget, format_usd
from pytest_ghxbench.hooks.recorder import RowRecorder

_ERASE_LINE_END = "\x1b[K"
PLAIN_EVERY_S = 30.0
"""Seconds between two plain progress lines at least (a CI log of a long run stays short)."""
_MIN_WIDTH = 24  # narrower than this, the line is not drawn at all


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


class _StatusFile:
    """The terminal reporter's file, with a transient status at the end of the current line:
    any write erases it first (back to where it started, then clear to the end of the
    line)."""

    def __init__(self, real: IO[str]) -> None:
        self.real = real
        self.shown = ""
        self._drawn = 0

    def write(self, text: str) -> int:
        if text:
            self.erase()
        return self.real.write(text)

    def flush(self) -> None:
        self.real.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def erase(self) -> None:
        if self._drawn:
            self.real.write(f"\x1b[{self._drawn}D{_ERASE_LINE_END}")
            self._drawn = 0
            self.shown = ""

    def draw(self, text: str) -> None:
        if text == self.shown:
            return
        self.erase()
        self.real.write(text)
        self.real.flush()
        self._drawn = len(text)
        self.shown = text


class _LineFile:
    """The terminal reporter's file, with a plain line waiting for pytest's next newline: it is
    written right after that newline, on a line of its own."""

    def __init__(self, real: IO[str]) -> None:
        self.real = real
        self.pending: str | None = None

    def write(self, text: str) -> int:
        if self.pending is not None and "\n" in text:
            head, _, tail = text.rpartition("\n")
            self.real.write(f"{head}\n{self.pending}\n")
            self.pending = None
            self.real.write(tail)
            return len(text)
        return self.real.write(text)

    def flush(self) -> None:
        self.real.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class Progress:
    """Counts the items as their reports arrive and shows the status line."""

    def __init__(self, config: pytest.Config, recorder: RowRecorder, budget: Budget | None):
        self.config = config
        self.recorder = recorder
        self.budget = budget
        self.done: set[str] = set()
        self.seconds = 0.0
        self.workers: set[str] = set()
        self._reporter: Any = None
        self._file: _StatusFile | None = None
        self._plain: _LineFile | None = None
        self._next_plain = 0
        self._last_plain = -math.inf

    # -- what is counted ------------------------------------------------------------------

    def on_report(self, report: pytest.TestReport) -> bool:
        """Count the report; whether it finished an item."""
        if parse_item_name(report.nodeid) is None:
            return False
        self.seconds += float(report.duration or 0.0)
        outcome, when = str(report.outcome), str(report.when)
        if outcome == "rerun":
            return False
        finished = when in ("call", "???") or (when == "setup" and not report.passed)
        if finished and report.nodeid not in self.done:
            self.done.add(report.nodeid)
            return True
        return False

    def status(self, label: str = "ghxbench", *, compact: bool = False) -> str:
        total = self.recorder.expected_items
        done = len(self.done)
        spend = self.recorder.spend
        parts = [f"{label} {done}/{total if total is not None else '?'} items"]
        tokens = f"{spend.active_tokens:,} {'tok' if compact else 'active tokens'}"
        usd = format_usd(spend.cost_usd)
        if self.budget is not None and self.budget.tokens is not None:
            tokens += f" of {self.budget.tokens:,}"
        if self.budget is not None and self.budget.usd is not None:
            usd += f" of {format_usd(self.budget.usd)}"
        parts += [tokens, usd]
        if total is not None and done and total > done:
            workers = max(1, len(self.workers))
            eta = (total - done) * (self.seconds / done) / workers
            parts.append(f"ETA {format_duration(eta)}")
        return " | ".join(parts)

    # -- where it is shown ----------------------------------------------------------------

    def start(self) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or self.config.get_verbosity() <= -2:
            return
        self._reporter = reporter
        capture = getattr(self.config.option, "capture", "fd")
        writer = getattr(reporter, "_tw", None)
        real = getattr(writer, "_file", None)
        live = (
            bool(reporter.isatty)
            and os.environ.get("TERM") != "dumb"
            and capture not in ("no", "tee-sys")
        )
        if real is None:
            return
        if live:
            self._file = _StatusFile(real)
            writer._file = self._file  # type: ignore[union-attr]
        else:
            self._plain = _LineFile(real)
            writer._file = self._plain  # type: ignore[union-attr]

    def stop(self) -> None:
        """The session is over: the live line goes; a plain line still waiting is written
        after the newline that ends pytest's last row (the wrapper stays until unconfigure)."""
        status_file = self._file
        self._file = None
        if status_file is not None:
            status_file.erase()
            status_file.flush()
            self._restore(status_file)

    def unconfigure(self) -> None:
        self.stop()
        plain, self._plain = self._plain, None
        if plain is not None:
            self._restore(plain)

    def _restore(self, wrapper: _StatusFile | _LineFile) -> None:
        writer = self._reporter._tw
        if writer._file is wrapper:  # not replaced since by someone else
            writer._file = wrapper.real

    def show(self) -> None:
        """After an item is done: redraw the live line, or a plain line at the next 10%."""
        if self._reporter is None:
            return
        if self._file is not None:
            self.redraw()
            return
        total = self.recorder.expected_items
        done = len(self.done)
        step = max(1, math.ceil(total / 10)) if total else 1
        if self._next_plain == 0:
            self._next_plain = step
        now = time.monotonic()
        due = done >= self._next_plain or done == total
        if due and (now - self._last_plain >= PLAIN_EVERY_S or done == total):
            self._next_plain = (done // step + 1) * step
            self._last_plain = now
            line = self.status("ghxbench progress:")
            if self._plain is not None:
                self._plain.pending = line
            else:  # -s: pytest's output and the items' share the terminal; a line of its own
                self._reporter.write_line(line)

    def redraw(self) -> None:
        if self._file is None:
            return
        writer = self._reporter._tw
        room = writer.fullwidth - writer.width_of_current_line - len(" [100%]") - 2
        if room < _MIN_WIDTH:
            return
        text = self.status(compact=True)
        if len(text) > room:
            text = text[: room - 3] + "..."
        self._file.draw(" " + text)
