"""Writing rows as JSONL, one durable line per row, and reading rows back from any producer.

The writer appends each row as one complete line with a single ``write`` on a file opened with
``O_APPEND``, then flushes and ``fsync``s, so a row is on disk (and readable by another process)
as soon as ``write`` returns, concurrent writers never interleave lines, and a crash can at worst
leave one partial last line, which the reader reports instead of dropping silently.
"""

from __future__ import annotations

import glob
import json
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from pytest_ghxbench.metrics.row import Row
from pytest_ghxbench.report.importers import (
    ReadProblem,
    describe_validation_error,
    normalize_ts_row,
    read_eval_csv,
)

__all__ = [
    "DEFAULT_MODE_ALIASES",
    "ReadProblem",
    "ReadResult",
    "RowSourceError",
    "RowWriter",
    "read_rows",
]

DEFAULT_MODE_ALIASES: Mapping[str, str] = {"baseline": "agent_direct", "ghx_router": "ghx"}
"""The TypeScript harness's names for our modes; applied by :func:`read_rows` by default."""

_GLOB_CHARACTERS = frozenset("*?[")
# Directories holding agent transcripts live beside the rows; their JSONL files are not rows.
_NOT_ROW_DIRECTORIES = frozenset({"transcripts"})


class RowWriter:
    """Appends rows to a JSONL file: one complete line per row, written when ``write`` returns.

    Each row is one ``os.write`` on an ``O_APPEND`` descriptor, so the line is in the file (and
    survives the process being killed) the moment ``write`` returns. ``fsync`` (surviving a
    machine crash) follows on a background thread that syncs everything written so far in one
    call (group commit), so a slow disk does not stall the benchmark; :meth:`sync` waits for it
    and :meth:`close` always syncs. Parent directories are created. Safe to share between
    threads. Usable as a context manager.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Condition()
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._written = 0
        self._synced = 0
        self._sync_error: OSError | None = None
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
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

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

    def write(self, row: Row | Mapping[str, Any]) -> None:
        """Append one row. A mapping is validated as a :class:`Row` first (``ValueError`` naming
        the field when it is not one)."""
        if not isinstance(row, Row):
            try:
                row = Row.model_validate(dict(row))
            except ValidationError as exc:
                raise ValueError(f"not a valid row: {describe_validation_error(exc)}") from None
        line = json.dumps(row.to_json_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
        data = line.encode("utf-8")
        with self._lock:
            if self._fd is None:
                raise ValueError(f"RowWriter for {self.path} is closed")
            self._raise_sync_error()
            self._write_all(data)
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
                self._lock.wait()
            self._raise_sync_error()

    def close(self) -> None:
        """Sync and close the file; further writes raise ``ValueError``. Closing twice is
        harmless."""
        with self._lock:
            fd, self._fd = self._fd, None
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


@dataclass
class ReadResult:
    """Rows read, the lines that could not be read, and every file that was looked at."""

    rows: list[Row] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


class RowSourceError(FileNotFoundError):
    """A path given to :func:`read_rows` does not exist, or a glob pattern matches no file."""


def _is_row_file(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in (".jsonl", ".csv")


def _files_under(directory: Path) -> list[Path]:
    found = []
    for candidate in directory.rglob("*"):
        relative_parts = candidate.relative_to(directory).parts[:-1]
        if _NOT_ROW_DIRECTORIES.intersection(relative_parts):
            continue
        if _is_row_file(candidate):
            found.append(candidate)
    return sorted(found)


def _expand(source: Path | str) -> list[Path]:
    path = Path(source)
    if path.is_dir():
        return _files_under(path)
    if path.exists():
        return [path]
    text = str(source)
    if _GLOB_CHARACTERS.intersection(text):
        matches = sorted(Path(match) for match in glob.glob(text, recursive=True))
        files: list[Path] = []
        for match in matches:
            files.extend(_files_under(match) if match.is_dir() else [match])
        if not files:
            raise RowSourceError(f"no files match the pattern {text!r}")
        return files
    raise RowSourceError(f"no such file or directory: {text}")


def _parse_jsonl_line(
    path: Path, number: int, raw: bytes, is_last: bool, aliases: Mapping[str, str]
) -> Row | ReadProblem:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ReadProblem(path, number, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        if is_last:
            message = f"truncated last line (no newline at end of file): {exc.msg}"
            return ReadProblem(path, number, message)
        return ReadProblem(path, number, f"invalid JSON: {exc.msg} at column {exc.colno}")
    if not isinstance(obj, dict):
        return ReadProblem(path, number, f"expected a JSON object, got {type(obj).__name__}")
    try:
        return Row.model_validate(normalize_ts_row(obj, aliases))
    except ValidationError as exc:
        return ReadProblem(path, number, describe_validation_error(exc))


def _read_jsonl(path: Path, aliases: Mapping[str, str], result: ReadResult) -> None:
    try:
        content = path.read_bytes()
    except OSError as exc:
        result.problems.append(ReadProblem(path, 0, f"cannot read file: {exc.strerror or exc}"))
        return
    lines = content.split(b"\n")
    ends_without_newline = bool(lines) and lines[-1] != b""
    if not ends_without_newline:
        lines.pop()  # the empty string after the final newline
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        is_last = ends_without_newline and index == len(lines) - 1
        parsed = _parse_jsonl_line(path, index + 1, raw, is_last, aliases)
        if isinstance(parsed, Row):
            result.rows.append(parsed)
        else:
            result.problems.append(parsed)


def read_rows(
    paths: Iterable[Path | str], *, mode_aliases: Mapping[str, str] | None = None
) -> ReadResult:
    """Read rows from JSONL and CSV files, directories of them, or glob patterns.

    A directory contributes every ``*.jsonl`` and ``*.csv`` beneath it (sorted), except those
    under a ``transcripts`` folder. Rows of the TypeScript harness are accepted (see
    :func:`normalize_ts_row`); modes are renamed through :data:`DEFAULT_MODE_ALIASES` updated
    with ``mode_aliases``. Lines that are not rows (bad JSON, not an object, a field missing or
    of the wrong type, a truncated last line) are returned as problems naming file and line;
    they never stop the reading. Raises :class:`RowSourceError` for a path that does not exist.
    """
    aliases = {**DEFAULT_MODE_ALIASES, **(mode_aliases or {})}
    files: list[Path] = []
    for source in paths:
        for file in _expand(source):
            if file not in files:
                files.append(file)
    result = ReadResult(files=files)
    for file in files:
        if file.suffix.lower() == ".csv":
            rows, problems = read_eval_csv(file, aliases)
            result.rows.extend(rows)
            result.problems.extend(problems)
        else:
            _read_jsonl(file, aliases, result)
    return result
