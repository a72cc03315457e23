"""The chat recording Gemini CLI writes for each session.

``$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 characters
of the session id>.jsonl`` (Gemini CLI 0.61.0): its first line is the session's metadata
(``sessionId``, ``startTime``, ``kind: "main"``); then one JSON object per line, either a
message or an update (``{"$set": ...}``). A message has an ``id`` and a ``type``; each completed
model response of the conversation is a ``gemini`` message with its ``tokens`` (``input``: the
prompt, cached tokens included; ``output``; ``cached``; ``thoughts``; ``tool``; ``total``) and
``model``, written as the response completes and written again (same ``id``) once its tool
calls ran. A request that failed leaves no message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.api import Tokens

__all__ = ["Recording", "read_recording"]


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


@dataclass
class Recording:
    """What one session's chat recording says."""

    path: Path
    usage: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    """Each completed model response's ``tokens``, by message id (the last record wins)."""

    @property
    def responses(self) -> int:
        """Completed model responses of the conversation."""
        return len(self.usage)

    def tokens(self) -> Tokens:
        """The responses' usage summed, as a row's tokens (thoughts as ``reasoning``, tool-use
        prompt tokens as input)."""
        prompt = sum(_int(u.get("input")) for u in self.usage.values())
        cached = sum(_int(u.get("cached")) for u in self.usage.values())
        tool = sum(_int(u.get("tool")) for u in self.usage.values())
        return Tokens(
            input=max(0, prompt - cached) + tool,
            output=sum(_int(u.get("output")) for u in self.usage.values()),
            reasoning=sum(_int(u.get("thoughts")) for u in self.usage.values()),
            cache_read=cached,
        )


def _records(path: Path) -> list[dict[str, Any]]:
    records = []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a kill
        if isinstance(record, dict):
            records.append(record)
    return records


def read_recording(home: Path, session_id: str | None) -> Recording | None:
    """The recording of session ``session_id`` under the ``GEMINI_CLI_HOME`` ``home``, or
    ``None`` when there is none (no session id, no file, another session's file)."""
    if not session_id:
        return None
    pattern = f"session-*-{session_id[:8]}.jsonl"
    for path in sorted((home / ".gemini" / "tmp").glob(f"*/chats/{pattern}")):
        records = _records(path)
        if not records or records[0].get("sessionId") != session_id:
            continue
        recording = Recording(path)
        for record in records[1:]:
            tokens = record.get("tokens")
            if record.get("type") == "gemini" and isinstance(tokens, dict):
                recording.usage[str(record.get("id"))] = tokens
        return recording
    return None
