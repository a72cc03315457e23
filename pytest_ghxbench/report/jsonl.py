"""Writing rows as JSONL, one durable line per row, and reading rows back from any producer.

The writer appends each row as one complete line with a single ``write`` on a file opened with
``O_APPEND``, then flushes and ``fsync``s, so a row is on disk (and readable by another process)
as soon as ``write`` returns, concurrent writers never interleave lines, and a crash can at worst
leave one partial last line, which the reader reports instead of dropping silently.
"""

from __future__ import annotations

import gc
import glob
import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

from pydantic import ValidationError
from pydantic_core import from_json

from pytest_ghxbench.metrics.row import Row, RowRecord, plain_row_validator
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
    "RecordsResult",
    "RowSourceError",
    "RowWriter",
    "RunFields",
    "garbage_collection_paused",
    "read_row_records",
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


@dataclass
class ReadResult:
    """Rows read, the lines that could not be read, and every file that was looked at."""

    rows: list[Row] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def add_row(self, row: Row) -> None:
        self.rows.append(row)


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


def _json_object(
    path: Path, number: int, raw: bytes, is_last: bool
) -> dict[str, Any] | ReadProblem:
    """The JSON object on one line, or the :class:`ReadProblem` saying why there is none."""
    try:
        # pydantic's JSON parser gives the same value as json.loads wherever it succeeds, in a
        # third of the time; where it fails, json.loads decides, so the messages stay its own.
        obj = from_json(raw)
    except ValueError:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            reason = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
            return ReadProblem(path, number, reason)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            if is_last:
                message = f"truncated last line (no newline at end of file): {exc.msg}"
                return ReadProblem(path, number, message)
            return ReadProblem(path, number, f"invalid JSON: {exc.msg} at column {exc.colno}")
    if not isinstance(obj, dict):
        return ReadProblem(path, number, f"expected a JSON object, got {type(obj).__name__}")
    return obj


def _parse_jsonl_line(
    path: Path, number: int, raw: bytes, is_last: bool, aliases: Mapping[str, str]
) -> Row | ReadProblem:
    obj = _json_object(path, number, raw, is_last)
    if isinstance(obj, ReadProblem):
        return obj
    try:
        return Row.model_validate(normalize_ts_row(obj, aliases))
    except ValidationError as exc:
        return ReadProblem(path, number, describe_validation_error(exc))


@contextmanager
def garbage_collection_paused() -> Iterator[None]:
    """Turn Python's cyclic garbage collector off for the block (and back on if it was on).

    Reading rows allocates millions of long-lived objects and no reference cycles; left on,
    the collector rescans them again and again and more than doubles the reading time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class RunFields(NamedTuple):
    """The fields of one row that describe its run rather than its outcome."""

    run_id: str
    commit: str | None
    adapter: Any
    backend: Any

    @classmethod
    def of_row(cls, row: Row) -> RunFields:
        extra = row.model_extra or {}
        return cls(row.run_id, row.git.commit, extra.get("adapter"), extra.get("backend"))


@dataclass
class RecordsResult:
    """Rows reduced to what a summary needs, the lines that are not rows, and the files read.

    ``records[i]`` and ``run_fields[i]`` describe the same row.
    """

    records: list[RowRecord] = field(default_factory=list)
    run_fields: list[RunFields] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def add_row(self, row: Row) -> None:
        self.records.append(RowRecord.of_row(row))
        self.run_fields.append(RunFields.of_row(row))

    def add_plain_json(self, line: bytes, aliases: Mapping[str, str]) -> bool:
        """Add the row on ``line`` if :func:`plain_row_validator` accepts it as it is."""
        try:
            row = plain_row_validator().validate_json(line)
        except ValueError:
            return False
        if "retry_count" in row:  # a legacy row: normalize_ts_row's business
            return False
        mode = row["mode"]
        row["mode"] = aliases.get(mode, mode)
        self.records.append(RowRecord.of_plain(row))
        commit = row["git"]["commit"]
        self.run_fields.append(
            RunFields(row["run_id"], commit, row.get("adapter"), row.get("backend"))
        )
        return True


def _read_jsonl(path: Path, aliases: Mapping[str, str], result: ReadResult | RecordsResult) -> None:
    try:
        content = path.read_bytes()
    except OSError as exc:
        result.problems.append(ReadProblem(path, 0, f"cannot read file: {exc.strerror or exc}"))
        return
    lines = content.split(b"\n")
    ends_without_newline = lines[-1] != b""
    if not ends_without_newline:
        lines.pop()  # the empty string after the final newline
    last = len(lines) - 1
    add_plain_json = result.add_plain_json if isinstance(result, RecordsResult) else None
    for index, raw in enumerate(lines):
        if not raw or raw.isspace():  # isspace() is strip()'s whitespace, without a copy
            continue
        # What the fast path rejects may still be a Row after Row's conversions (or a problem).
        if add_plain_json is not None and add_plain_json(raw, aliases):
            continue
        is_last = ends_without_newline and index == last
        parsed = _parse_jsonl_line(path, index + 1, raw, is_last, aliases)
        if isinstance(parsed, Row):
            result.add_row(parsed)
        else:
            result.problems.append(parsed)


def _read(
    paths: Iterable[Path | str],
    mode_aliases: Mapping[str, str] | None,
    result: ReadResult | RecordsResult,
) -> None:
    aliases = {**DEFAULT_MODE_ALIASES, **(mode_aliases or {})}
    for source in paths:
        for file in _expand(source):
            if file not in result.files:
                result.files.append(file)
    with garbage_collection_paused():
        for file in result.files:
            if file.suffix.lower() == ".csv":
                rows, problems = read_eval_csv(file, aliases)
                for row in rows:
                    result.add_row(row)
                result.problems.extend(problems)
            else:
                _read_jsonl(file, aliases, result)


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
    result = ReadResult()
    _read(paths, mode_aliases, result)
    return result


def read_row_records(
    paths: Iterable[Path | str], *, mode_aliases: Mapping[str, str] | None = None
) -> RecordsResult:
    """:func:`read_rows` reduced to :class:`RowRecord` and :class:`RunFields`: several times
    faster on large files, and what ``ghxbench report`` reads.

    Same files, same rows in the same order, same problems. A line in exact JSON types goes
    from bytes to record without a :class:`Row` (see :func:`plain_row_validator`); any other
    line takes :func:`read_rows`'s path, so conversions and messages are the same.
    """
    result = RecordsResult()
    _read(paths, mode_aliases, result)
    return result
