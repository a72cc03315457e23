"""The rollout Codex files for each thread under ``$CODEX_HOME/sessions/YYYY/MM/DD/``.

``codex exec --json`` says nothing per model request, and its ``item.started`` for a command
arrives after Codex has set the command up (0.1 to 0.2 s after the model's call). The rollout
(one JSON object per line, each with an ISO ``timestamp``) has both:

- a ``token_usage_record`` entry per completed model response;
- a ``response_item`` ``function_call`` (with ``call_id``) when the model's call is received,
  and an ``event_msg`` ``item_completed`` whose ``item.id`` is that ``call_id`` and which carries
  ``completed_at_ms`` (Unix milliseconds) when its result is ready;
- an ``event_msg`` ``task_complete`` per turn with Codex's own ``duration_ms``.

With ``--ephemeral`` there is no rollout; the adapter then reports no request count and keeps
the stream's tool durations.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["Rollout", "read_rollout"]


@dataclass
class Rollout:
    """What one thread's rollout says."""

    responses: int = 0
    """Completed model responses."""
    tool_ms: list[float] = field(default_factory=list)
    """For each tool call, in order: from the model's call being received to its result."""
    duration_ms: float | None = None
    """Codex's own duration of the thread's turns (``task_complete``), if it reported any."""


def _files(home: Path, thread_id: str, since: float) -> list[Path]:
    sessions = home / "sessions"
    pattern = f"rollout-*{thread_id}.jsonl"
    days = {time.strftime("%Y/%m/%d", time.localtime(t)) for t in (since, time.time())}
    found = [path for day in sorted(days) for path in (sessions / day).glob(pattern)]
    return found or sorted(sessions.glob(f"*/*/*/{pattern}"))


def _unix_ms(stamp: Any) -> float | None:
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000.0
    except ValueError:
        return None


def _entries(path: Path) -> list[dict[str, Any]]:
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def read_rollout(home: Path, thread_id: str | None, since: float) -> Rollout | None:
    """The rollout of ``thread_id`` under ``home``, or ``None`` when there is none. ``since``
    is the wall-clock start of the run (rollouts are filed by local date)."""
    if not thread_id:
        return None
    files = _files(home, thread_id, since)
    if not files:
        return None
    rollout = Rollout()
    called: dict[str, float] = {}
    try:
        entries = [entry for path in files for entry in _entries(path)]
    except OSError:
        return None
    for entry in entries:
        kind = entry.get("type")
        payload = entry.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        if kind == "token_usage_record":
            rollout.responses += 1
        elif kind == "response_item" and payload.get("type") == "function_call":
            at = _unix_ms(entry.get("timestamp"))
            if at is not None and isinstance(payload.get("call_id"), str):
                called[payload["call_id"]] = at
        elif kind == "event_msg" and payload.get("type") == "task_complete":
            duration = payload.get("duration_ms")
            if isinstance(duration, (int, float)) and not isinstance(duration, bool):
                rollout.duration_ms = (rollout.duration_ms or 0.0) + float(duration)
        elif kind == "event_msg" and payload.get("type") == "item_completed":
            item = payload.get("item")
            call_id = item.get("id") if isinstance(item, dict) else None
            done = payload.get("completed_at_ms")
            if call_id in called and isinstance(done, (int, float)):
                rollout.tool_ms.append(max(0.0, float(done) - called.pop(call_id)))
    return rollout
