"""Reading rows back from JSONL (ours and the TypeScript harness's) and its CSV export.

Every malformed line is reported with its file and line number and counted, never dropped
silently; rows are written by :class:`~pytest_ghxbench.records.row_writer.RowWriter`
(re-exported here).
"""

from __future__ import annotations

import gc
import glob
import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError
from pydantic_core import from_json

from pytest_ghxbench import bounded_json
from pytest_ghxbench.records.importers import (
    ReadProblem,
    describe_validation_error,
    normalize_ts_row,
    read_eval_csv,
)
from pytest_ghxbench.records.row import Row, RowRecord, plain_row_validator
from pytest_ghxbench.records.row_writer import RowWriter

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


class _Repeats:
    """Rows already read, by (run_id, item_id): a copy of a rows file in the same directory
    tree must not count its rows twice. A repeat within one file replaces the earlier row
    (the session's rule: an item's last report wins); a repeat from another file is left out,
    and each pair of files gets one warning."""

    def __init__(self) -> None:
        self.file = Path()
        self._first: dict[tuple[str, str], tuple[Path, int]] = {}
        self._repeats: dict[tuple[Path, Path], int] = {}

    def place(self, run_id: Any, item_id: Any, position: int) -> int | None:
        """Where the row goes: ``position`` (a new row), an earlier row's position (it
        replaces it), or None (left out)."""
        if not isinstance(item_id, str) or not item_id:
            return position  # rows without an item id (the TypeScript harness's) are all kept
        key = (str(run_id), item_id)
        first = self._first.setdefault(key, (self.file, position))
        if first[1] == position:
            return position
        if first[0] == self.file:
            return first[1]
        pair = (first[0], self.file)
        self._repeats[pair] = self._repeats.get(pair, 0) + 1
        return None

    def warnings(self) -> list[str]:
        return [
            f"{again}: {count} row(s) repeat rows of {first} (same run_id and item_id); "
            "each is counted once"
            for (first, again), count in self._repeats.items()
        ]


def _put(items: list[Any], position: int | None, item: Any) -> None:
    if position is None:
        return
    if position == len(items):
        items.append(item)
    else:
        items[position] = item


@dataclass
class ReadResult:
    """Rows read, the lines that could not be read, and every file that was looked at;
    ``warnings``: rows left out as repeats of rows of another file."""

    rows: list[Row] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    repeats: _Repeats = field(default_factory=_Repeats, repr=False)

    def add_row(self, row: Row) -> None:
        item_id = (row.model_extra or {}).get("item_id")
        _put(self.rows, self.repeats.place(row.run_id, item_id, len(self.rows)), row)


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
            # bounded: a line nested thousands deep is a problem, not a RecursionError
            obj = bounded_json.loads(text)
        except json.JSONDecodeError as exc:
            if is_last and not isinstance(exc, bounded_json.BoundedJSONError):
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
    warnings: list[str] = field(default_factory=list)
    repeats: _Repeats = field(default_factory=_Repeats, repr=False)

    def _add(self, item_id: Any, record: RowRecord, run_fields: RunFields) -> None:
        position = self.repeats.place(run_fields.run_id, item_id, len(self.records))
        _put(self.records, position, record)
        _put(self.run_fields, position, run_fields)

    def add_row(self, row: Row) -> None:
        item_id = (row.model_extra or {}).get("item_id")
        self._add(item_id, RowRecord.of_row(row), RunFields.of_row(row))

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
        commit = row["git"]["commit"]
        fields = RunFields(row["run_id"], commit, row.get("adapter"), row.get("backend"))
        self._add(row.get("item_id"), RowRecord.of_plain(row), fields)
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
            result.repeats.file = file
            if file.suffix.lower() == ".csv":
                rows, problems = read_eval_csv(file, aliases)
                for row in rows:
                    result.add_row(row)
                result.problems.extend(problems)
            else:
                _read_jsonl(file, aliases, result)
    result.warnings = result.repeats.warnings()


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
