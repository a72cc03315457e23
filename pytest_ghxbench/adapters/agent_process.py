"""Running a CLI agent as a child process: streamed stdout, a hard deadline, no survivors.

:func:`run_agent_process` starts the agent in a new process group, hands every stdout line to a
callback as it arrives (with its arrival time), and on the deadline terminates the whole group
(SIGTERM, then SIGKILL). It never raises for what the agent prints: a callback that fails on a
line records a parse problem and the run continues. A signal handler (pytest-timeout's backstop)
stops the agent with :func:`stop_agent_process` instead of raising into the wait; an exception
that does arrive still takes the whole group with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.process import redact
from pytest_ghxbench.isolation.jail import jail_failure

__all__ = [
    "JsonLineStream",
    "ProcessOutcome",
    "no_result_message",
    "process_transcript",
    "run_agent_process",
    "stop_agent_process",
    "timeout_message",
]

_STDERR_TAIL_CHARS = 4000
_TERM_GRACE_S = 2.0
_STOP_MARGIN_S = 5.0  # beyond the grace: reaping, joining the readers, building the result
_POLL_S = 0.1
_EXIT_WAIT_S = 0.5
_READER = "ghxbench-agent-output"

LineHandler = Callable[[str, float], None]


@dataclass
class ProcessOutcome:
    """How the process ended. ``elapsed_ms`` is wall time from spawn to the end of output."""

    returncode: int | None
    timed_out: bool
    elapsed_ms: float
    stderr_tail: str
    pgid: int
    problems: list[str] = field(default_factory=list)
    stopped_by: str | None = None
    """Who stopped the agent before its own deadline (see :func:`stop_agent_process`)."""

    def describe_exit(self) -> str:
        """``"exited with status N"`` or ``"was killed by SIGNAME"``."""
        code = self.returncode
        if code is not None and code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with status {code}"


def _kill_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _await_group_exit(pgid: int, timeout_s: float) -> None:
    # Killed members linger as zombies until their new parent (init) reaps them.
    end = time.monotonic() + timeout_s
    while _group_alive(pgid) and time.monotonic() < end:
        time.sleep(0.01)


def _pump_stdout(stream: Iterable[bytes], lines: queue.Queue[tuple[str, float] | None]) -> None:
    try:
        for raw in stream:
            lines.put((raw.decode("utf-8", errors="replace").rstrip("\r\n"), time.monotonic()))
    finally:
        lines.put(None)


def _pump_stderr(stream: Iterable[bytes], tail: deque[str]) -> None:
    for raw in stream:
        tail.append(raw.decode("utf-8", errors="replace"))


@dataclass
class _Run:
    """The agent process the main thread is waiting on, as a signal handler sees it."""

    deadline: float
    stopped_by: str | None = None
    terminating: bool = False
    deferred: bool = False


_main_run: _Run | None = None


def stop_agent_process(reason: str) -> float | None:
    """Ask the agent process the main thread is running to stop now, as at its deadline.

    For a signal handler (pytest-timeout's backstop): raising into :func:`run_agent_process`
    would lose the usage and transcript gathered so far, and could cut the grace between
    SIGTERM and SIGKILL short. Returns how many seconds the process group may still need to
    end (the caller re-arms its timer for that long), or ``None`` when there is nothing to
    stop, or when it was already asked once (the caller then raises: the item must end).
    """
    run = _main_run
    if run is None or run.deferred:
        return None
    run.deferred = True
    if not run.terminating:
        run.stopped_by = reason
        run.deadline = min(run.deadline, time.monotonic())
    return _TERM_GRACE_S + _STOP_MARGIN_S


def _terminate(process: subprocess.Popen[bytes], pgid: int, run: _Run) -> None:
    """SIGTERM to the group, then SIGKILL once it is gone or the grace is over; the SIGKILL
    also goes when something interrupts the grace (the process group never outlives it)."""
    run.terminating = True
    try:
        _kill_group(pgid, signal.SIGTERM)
        end = time.monotonic() + _TERM_GRACE_S
        while time.monotonic() < end and _group_alive(pgid):
            if process.poll() is not None and not _group_alive(pgid):
                break
            time.sleep(0.02)
    finally:
        _kill_group(pgid, signal.SIGKILL)


def _read_until_exit(
    process: subprocess.Popen[bytes],
    pgid: int,
    lines: queue.Queue[tuple[str, float] | None],
    on_line: LineHandler,
    run: _Run,
    problems: list[str],
) -> bool:
    """Hand stdout lines to ``on_line`` until the agent exits; whether it ran past
    ``run.deadline`` (which a signal handler may move, see :func:`stop_agent_process`)."""
    closed_at: float | None = None
    while True:
        if closed_at is not None:  # the agent closed stdout; wait (a little past the deadline)
            if process.poll() is not None:
                return False
            if time.monotonic() >= max(run.deadline, closed_at + _EXIT_WAIT_S):
                return True
            time.sleep(0.02)
            continue
        if time.monotonic() >= run.deadline:
            return True
        try:
            entry = lines.get(timeout=_POLL_S)
        except queue.Empty:
            if process.poll() is not None:
                # The agent exited but something it started still holds stdout open.
                _kill_group(pgid, signal.SIGKILL)
            continue
        if entry is None:
            closed_at = time.monotonic()
            continue
        line, arrived = entry
        try:
            on_line(line, arrived)
        except Exception as exc:  # a parser bug on one line must not lose the whole run
            problems.append(f"line handler failed on {line[:200]!r}: {type(exc).__name__}: {exc}")


def run_agent_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    deadline: float,
    on_line: LineHandler,
    stdin_text: str | None = None,
) -> ProcessOutcome:
    """Run ``argv`` until it exits or the :func:`time.monotonic` ``deadline`` passes.

    ``on_line(line, arrived_at)`` gets each stdout line (without the newline) and its monotonic
    arrival time. On timeout, or when :func:`stop_agent_process` asks, the whole process group
    gets SIGTERM, then SIGKILL after a grace period, and the outcome says ``timed_out`` (what
    was read so far was handed to ``on_line``). Whatever happens, an exception included, no
    process of the group survives the call. Raises ``OSError`` only when the executable cannot
    be started.
    """
    global _main_run
    started = time.monotonic()
    process = subprocess.Popen(
        list(argv),
        cwd=str(cwd),
        env=dict(env),
        stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    pgid = process.pid  # start_new_session: the child leads its own group
    run = _Run(deadline)
    in_main = threading.current_thread() is threading.main_thread()
    outer = _main_run
    if in_main:
        _main_run = run
    try:
        assert process.stdout is not None and process.stderr is not None
        lines: queue.Queue[tuple[str, float] | None] = queue.Queue()
        tail: deque[str] = deque(maxlen=200)
        readers = [
            threading.Thread(
                target=_pump_stdout, args=(process.stdout, lines), name=_READER, daemon=True
            ),
            threading.Thread(
                target=_pump_stderr, args=(process.stderr, tail), name=_READER, daemon=True
            ),
        ]
        for reader in readers:
            reader.start()
        if stdin_text is not None and process.stdin is not None:
            try:
                process.stdin.write(stdin_text.encode("utf-8"))
                process.stdin.close()
            except BrokenPipeError:
                pass
        problems: list[str] = []
        timed_out = _read_until_exit(process, pgid, lines, on_line, run, problems)
        if timed_out:
            _terminate(process, pgid, run)
        returncode: int | None = process.wait()
        run.terminating = True  # nothing left to stop; a backstop now waits for the rest
        # Helpers the agent left behind (e.g. a daemonised MCP server) go with it.
        _kill_group(pgid, signal.SIGKILL)
        _await_group_exit(pgid, timeout_s=0.5)
        for reader in readers:
            reader.join(timeout=1.0)
    finally:
        if in_main:
            _main_run = outer
        # Also when something interrupted the wait (Ctrl-C, a backstop that raised).
        _kill_group(pgid, signal.SIGKILL)
    elapsed_ms = (time.monotonic() - started) * 1000.0
    stderr_tail = "".join(tail)[-_STDERR_TAIL_CHARS:]
    return ProcessOutcome(
        returncode, timed_out, elapsed_ms, stderr_tail, pgid, problems, run.stopped_by
    )


@dataclass
class JsonLineStream:
    """An agent process's stdout read as JSON lines: each object is kept in ``events`` and
    given to :meth:`handle` (which a runtime's stream overrides), every other non-blank line is
    kept in ``garbage``. ``feed`` is what :func:`run_agent_process` calls per line."""

    events: list[Any] = field(default_factory=list)
    garbage: list[str] = field(default_factory=list)

    def feed(self, line: str, arrived: float) -> None:
        """Parse one stdout line that arrived at ``arrived`` (:func:`time.monotonic`)."""
        if not line.strip():
            return
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            event = None
        if not isinstance(event, dict):
            self.garbage.append(line)
            return
        self.events.append(event)
        self.handle(event, arrived)

    def handle(self, event: dict[str, Any], arrived: float) -> None:
        """Take in one event object (nothing here)."""


def process_transcript(
    argv: Sequence[str],
    version: str | None,
    events: object,
    garbage: Sequence[str],
    outcome: ProcessOutcome,
    secrets: Sequence[str],
) -> dict[str, object]:
    """What a CLI runtime's item leaves in its transcript, with every secret value redacted."""
    return {
        "argv": [redact(a, secrets) for a in argv],
        "runtime_version": version,
        "events": json.loads(redact(json.dumps(events), secrets)),
        "garbage_lines": [redact(g, secrets) for g in garbage],
        "parse_problems": outcome.problems,
        "stderr_tail": redact(outcome.stderr_tail, secrets),
        "exit": outcome.describe_exit(),
    }


def timeout_message(runtime: str, outcome: ProcessOutcome) -> str:
    when = f"when {outcome.stopped_by} stopped it" if outcome.stopped_by else "at the item deadline"
    return (
        f"{runtime}: timeout: still running {when} "
        f"({outcome.elapsed_ms / 1000:.1f}s); process group killed"
    )


def no_result_message(
    runtime: str, outcome: ProcessOutcome, unparseable: int, secrets: Sequence[str]
) -> str:
    """Why ``runtime``'s process ended without its result event: its jail did not start
    (bubblewrap's or the bridge's own words), or how it exited, with the end of its stderr."""
    jail = jail_failure(outcome.stderr_tail)
    if jail is not None:
        return f"{runtime}: {jail}"
    detail = redact(outcome.stderr_tail.strip()[-500:], secrets)
    garbage = f"; {unparseable} unparseable line(s)" if unparseable else ""
    return f"{runtime} {outcome.describe_exit()} without a result event{garbage}" + (
        f": {detail}" if detail else ""
    )
