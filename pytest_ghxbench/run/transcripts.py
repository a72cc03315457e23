"""Transcripts: what each attempt's agent was told, did and answered.

One JSONL file per process (``transcripts/<run_id>/<worker>.jsonl``), one record per attempt,
appended with one write as the attempt ends; records carry ``item_id`` and ``attempt``, so
``grep`` or ``jq 'select(.item_id | test("pr-view-001"))'`` finds an item's attempts.
A file per process keeps xdist workers from contending and costs one open per session.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.report.row_writer import write_all
from pytest_ghxbench.run.redact import Redactor


class TranscriptWriter:
    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self._redactor = redactor
        self._fd: int | None = None
        self._lock = threading.Lock()

    def write(self, record: Mapping[str, Any], *, row_json: str | None = None) -> None:
        """Append one attempt's record; ``row_json`` (already redacted JSON) is added as the
        record's ``row`` without decoding and re-encoding it."""
        line = self._redactor.json(record)
        if row_json is not None:
            line = f'{line[:-1]},"row":{row_json}}}' if len(line) > 2 else f'{{"row":{row_json}}}'
        data = (line + "\n").encode("utf-8", "backslashreplace")
        with self._lock:
            if self._fd is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            write_all(self._fd, data)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
