"""Transcripts: what each attempt's agent was told, did and answered.

One JSONL file per process (``transcripts/<run_id>/<worker>.jsonl``), one record per attempt,
appended and flushed as the attempt ends; records carry ``item_id`` and ``attempt``, so
``grep`` or ``jq 'select(.item_id | test("pr-view-001"))'`` finds an item's attempts.
A file per process keeps xdist workers from contending and costs one open per session.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from pytest_ghxbench.run.redact import Redactor


class TranscriptWriter:
    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self._redactor = redactor
        self._handle: IO[str] | None = None
        self._lock = threading.Lock()

    def write(self, record: Mapping[str, Any], *, row_json: str | None = None) -> None:
        """Append one attempt's record; ``row_json`` (already redacted JSON) is added as the
        record's ``row`` without decoding and re-encoding it."""
        line = self._redactor.json(record)
        if row_json is not None:
            line = f'{line[:-1]},"row":{row_json}}}' if len(line) > 2 else f'{{"row":{row_json}}}'
        with self._lock:
            if self._handle is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._handle.write(line + "\n")
            self._handle.flush()

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None
