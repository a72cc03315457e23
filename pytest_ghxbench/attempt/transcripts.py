"""Transcripts: what each attempt's agent was told, did and answered.

One JSONL file per process (``transcripts/<run_id>/<worker>.jsonl``), one record per attempt,
appended with one write as the attempt ends; records carry ``item_id`` and ``attempt``, so
``grep`` or ``jq 'select(.item_id | test("pr-view-001"))'`` finds an item's attempts.
A file per process keeps xdist workers from contending and costs one open per session.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ghxbench.api import RunRequest, RunResult, ToolCall
from pytest_ghxbench.attempt.redact import Redactor
from pytest_ghxbench.records.row_writer import write_all

if TYPE_CHECKING:
    from pytest_ghxbench.attempt.judge import Judgement

_TEXT_LIMIT = 1_000_000


def transcript_record(
    request: RunRequest,
    result: RunResult | None,
    judgement: Judgement | None,
    error: str | None,
    *,
    kind: str | None = None,
    traceback: str | None = None,
    thread_stacks: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """One attempt's record. ``final_text`` is ``null`` when there is no answer; ``traceback``
    holds an adapter exception's (or a backstop timeout's) traceback from the adapter's
    ``run`` down; ``failure_kind`` is the retry policy's kind of the failure."""
    final_text: Any = result.final_text if result is not None else None
    if isinstance(final_text, str) and len(final_text) > _TEXT_LIMIT:
        final_text = final_text[:_TEXT_LIMIT] + f"\n…[truncated, {len(final_text)} chars]"
    elif final_text is not None and not isinstance(final_text, str):
        final_text = repr(final_text)  # the wrong type, as the runner error describes it
    calls: Sequence[Any] = result.tool_calls if result is not None else ()
    return {
        "item_id": request.item_id,
        "mode": request.mode,
        "iteration": request.iteration,
        "attempt": request.attempt,
        "instructions": request.instructions,
        "prompt": request.prompt,
        "final_text": final_text,
        "tool_calls": [
            {
                "name": c.name,
                "arguments": dict(c.arguments),
                "duration_ms": c.duration_ms,
                "ok": c.ok,
                "output": c.output,
            }
            for c in calls
            if isinstance(c, ToolCall)
        ],
        "adapter_transcript": _jsonable(result.transcript) if result is not None else None,
        "judgement": None
        if judgement is None
        else {
            "success": judgement.success,
            "output_valid": judgement.output_valid,
            "failures": judgement.failures,
            "checkpoints": judgement.checkpoints,
        },
        "runner_error": error,
        "failure_kind": kind,
        "traceback": traceback,
        "thread_stacks": [{"thread": title, "stack": stack} for title, stack in thread_stacks],
    }


def describe_error(exc: BaseException) -> str:
    """``[Errno 28] No space left on device``; other exceptions as ``Type: message``."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"[Errno {exc.errno}] {exc.strerror}"
    return f"{type(exc).__name__}: {exc}"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


class TranscriptWriter:
    """Appends attempts' records to one file. A record that cannot be written (a full disk, an
    unusable directory) is the harness's fault, not the agent's: :meth:`write` never raises,
    so the attempt keeps its outcome and is not retried (a real agent would be paid twice);
    the failure waits in :meth:`take_failures` for the session to report it."""

    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self._redactor = redactor
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._failures: list[dict[str, str]] = []

    def write(self, record: Mapping[str, Any], *, row_json: str | None = None) -> bool:
        """Append one attempt's record; ``row_json`` (already redacted JSON) is added as the
        record's ``row`` without decoding and re-encoding it. False when it was not written."""
        try:
            line = self._redactor.json(record)
            if row_json is not None:
                line = (
                    f'{line[:-1]},"row":{row_json}}}' if len(line) > 2 else f'{{"row":{row_json}}}'
                )
            data = (line + "\n").encode("utf-8", "backslashreplace")
            with self._lock:
                if self._fd is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                write_all(self._fd, data)
            return True
        except Exception as exc:
            failure = {
                "what": "transcript record",
                "file": str(self.path),
                "error": self._redactor.text(describe_error(exc)),
            }
            with self._lock:
                self._failures.append(failure)
            return False

    def take_failures(self) -> list[dict[str, str]]:
        """The writes that failed since the last call (``what``, ``file``, ``error``)."""
        with self._lock:
            failures, self._failures = self._failures, []
        return failures

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
