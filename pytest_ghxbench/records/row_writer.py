"""Writing rows as JSONL: one complete, durable line per row.

Each row is appended with a single ``write`` on a file opened with ``O_APPEND``, so a row is in
the file (and readable by another process) as soon as ``write`` returns, concurrent writers never
interleave lines, and a crash can at worst leave one partial last line, which the reader
(:mod:`pytest_ghxbench.records.jsonl`) reports instead of dropping silently. ``fsync`` follows on
a background thread.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from pytest_ghxbench.records.importers import describe_validation_error
from pytest_ghxbench.records.row import Row

__all__ = ["PartialWrite", "RowWriter", "write_all"]


def write_all(fd: int, data: bytes) -> None:
    """Append all of ``data`` to ``fd`` (opened with ``O_APPEND``), or none of it: one
    ``write`` in practice; a short write is finished, not dropped. When a later ``write``
    fails (a full disk: ``ENOSPC``), what this call wrote is cut off the file again before the
    ``OSError`` is raised, so the file never ends in a partial line; if even that fails, the
    error says so (``PartialWrite``)."""
    view = memoryview(data)
    done = 0
    try:
        while done < len(data):
            done += os.write(fd, view[done:])
    except OSError as exc:
        if done:
            try:
                os.ftruncate(fd, os.fstat(fd).st_size - done)
            except OSError:
                raise PartialWrite(exc.errno, exc.strerror, done) from exc
        raise


class PartialWrite(OSError):
    """A write that failed part way and could not be undone: the file ends in ``written``
    bytes of a line without its newline (the next writer ends that line first)."""

    def __init__(self, errno: int | None, strerror: str | None, written: int) -> None:
        super().__init__(errno, strerror)
        self.written = written


class RowWriter:
    """Appends rows to a JSONL file: one complete line per row, written when ``write`` returns.

    Each row is one ``os.write`` on an ``O_APPEND`` descriptor, so the line is in the file (and
    survives the process being killed) the moment ``write`` returns. ``fsync`` (surviving a
    machine crash) follows on a background thread that syncs everything written so far in one
    call (group commit), so a slow disk does not stall the benchmark; after each ``fsync`` the
    thread lets rows gather for at most ``sync_interval_s`` before the next one, so a burst of
    short items costs a few ``fsync`` calls instead of one per row (and the thread does not
    compete with the benchmark for the interpreter on every row). :meth:`sync` waits for it and
    :meth:`close` always syncs. Parent directories are created. Safe to share between threads.
    Usable as a context manager.
    """

    DEFAULT_SYNC_INTERVAL_S = 0.05

    def __init__(self, path: Path, *, sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S) -> None:
        self.path = Path(path)
        self._sync_interval_s = sync_interval_s
        self._urgent = threading.Event()  # set by sync()/close(): skip the gathering pause
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Condition()
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._written = 0
        self._synced = 0
        self._sync_error: OSError | None = None
        self._partial = False
        self._terminate_partial_last_line()
        self._syncer = threading.Thread(
            target=self._sync_loop, name="ghxbench-row-fsync", daemon=True
        )
        self._syncer.start()

    def _terminate_partial_last_line(self) -> None:
        # An earlier writer killed mid-line leaves a fragment without a newline; end it so the
        # next row starts on its own line instead of being glued to (and lost with) the fragment.
        size = self.path.stat().st_size
        if size == 0:
            return
        with self.path.open("rb") as existing:
            existing.seek(size - 1)
            if existing.read(1) != b"\n":
                self._write_all(b"\n")

    def _write_all(self, data: bytes) -> None:
        assert self._fd is not None
        write_all(self._fd, data)

    def _sync_loop(self) -> None:
        while True:
            with self._lock:
                while self._fd is not None and self._synced >= self._written:
                    self._lock.wait()
                if self._fd is None:
                    return
                fd, target = self._fd, self._written
            try:
                os.fsync(fd)
            except OSError as exc:  # reported by the next write/sync/close
                with self._lock:
                    self._sync_error = exc
            with self._lock:
                self._synced = max(self._synced, target)
                self._lock.notify_all()
            # Rows written meanwhile only update counters; they wait for the next round.
            if self._urgent.wait(self._sync_interval_s):
                self._urgent.clear()

    def write(self, row: Row | Mapping[str, Any]) -> None:
        """Append one row. A mapping is validated as a :class:`Row` first (``ValueError`` naming
        the field when it is not one)."""
        if not isinstance(row, Row):
            try:
                row = Row.model_validate(dict(row))
            except ValidationError as exc:
                raise ValueError(f"not a valid row: {describe_validation_error(exc)}") from None
        self.write_json_line(
            json.dumps(row.to_json_dict(), ensure_ascii=False, separators=(",", ":"))
        )

    def write_json_line(self, text: str) -> None:
        """Append one row already serialised as single-line JSON (the caller validated it)."""
        if "\n" in text:
            raise ValueError("a row must be a single line of JSON")
        data = (text + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                raise ValueError(f"RowWriter for {self.path} is closed")
            self._raise_sync_error()
            if self._partial:  # an earlier failed write left part of a line: end it first
                self._write_all(b"\n")
                self._partial = False
            try:
                self._write_all(data)
            except PartialWrite:
                self._partial = True
                raise
            self._written += 1
            self._lock.notify_all()

    def _raise_sync_error(self) -> None:
        if self._sync_error is not None:
            error, self._sync_error = self._sync_error, None
            raise error

    def sync(self) -> None:
        """Wait until every row written so far has been fsynced."""
        with self._lock:
            while self._fd is not None and self._synced < self._written:
                self._urgent.set()
                self._lock.wait()
            self._raise_sync_error()

    def close(self) -> None:
        """Sync and close the file; further writes raise ``ValueError``. Closing twice is
        harmless."""
        with self._lock:
            fd, self._fd = self._fd, None
            self._urgent.set()
            self._lock.notify_all()
        if fd is None:
            return
        self._syncer.join()
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        with self._lock:
            self._raise_sync_error()

    @property
    def closed(self) -> bool:
        return self._fd is None

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
