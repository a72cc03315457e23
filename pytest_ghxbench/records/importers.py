"""Rows from other producers: the TypeScript ghx harness's JSONL rows and its per-run CSV.

The TypeScript harness names our ``agent_direct`` mode ``baseline`` (CSV) and our ``ghx`` mode
``ghx_router`` (older JSONL); its older rows carry ``retry_count`` instead of the internal and
external retry counts and have no ``scenario_set``. Everything is mapped onto :class:`Row` here,
and every cell or field that cannot be mapped becomes a :class:`ReadProblem` with its line.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_ghxbench.records.row import RUNNER_ERROR, Row

__all__ = ["ReadProblem", "describe_validation_error", "normalize_ts_row", "read_eval_csv"]


@dataclass
class ReadProblem:
    """A line of a rows file that could not be read as a row. ``line`` 0 means the whole file."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        if self.line <= 0:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


def normalize_ts_row(obj: Mapping[str, Any], aliases: Mapping[str, str]) -> dict[str, Any]:
    """Map a row of ours or of the TypeScript harness onto the current row field names.

    ``retry_count`` becomes ``external_retry_count`` (when the latter is absent), missing retry
    counts become 0, a missing ``scenario_set`` becomes ``None`` and the mode is renamed through
    ``aliases``. The input is not modified; unknown fields are kept.
    """
    row = dict(obj)
    if "retry_count" in row:
        legacy_retries = row.pop("retry_count")
        row.setdefault("external_retry_count", legacy_retries)
    row.setdefault("internal_retry_count", 0)
    row.setdefault("external_retry_count", 0)
    row.setdefault("scenario_set", None)
    mode = row.get("mode")
    if isinstance(mode, str):
        row["mode"] = aliases.get(mode, mode)
    return row


def describe_validation_error(error: ValidationError) -> str:
    """One line naming every offending field, e.g. ``missing field 'success'``."""
    parts: list[str] = []
    for detail in error.errors():
        field = ".".join(str(part) for part in detail["loc"]) or "row"
        if detail["type"] == "missing":
            parts.append(f"missing required field '{field}'")
        else:
            parts.append(f"field '{field}': {detail['msg']} (got {detail['input']!r})")
    return "; ".join(parts)


# --- the per-run CSV -----------------------------------------------------------------------

_REQUIRED_COLUMNS = ("run_id", "scenario_id", "mode", "success", "output_valid")
_RUN_ID_EPOCH_MS = re.compile(r"^run_(\d{13})$")


class _CellError(ValueError):
    def __init__(self, column: str, expected: str, raw: str) -> None:
        super().__init__(f"column '{column}': expected {expected}, got {raw!r}")


def _parse_bool(column: str, raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise _CellError(column, "true or false", raw)


def _parse_float(column: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise _CellError(column, "a number", raw) from None
    if not math.isfinite(value):
        raise _CellError(column, "a finite number", raw)
    return value


def _parse_int(column: str, raw: str) -> int:
    value = _parse_float(column, raw)
    if not value.is_integer():
        raise _CellError(column, "a whole number", raw)
    return int(value)


# A negative duration, cost or count would count as a win in the gate: such a record is a
# problem with its line, never a row.
def _parse_measure(column: str, raw: str) -> float:
    value = _parse_float(column, raw)
    if value < 0:
        raise _CellError(column, "a number >= 0", raw)
    return value


def _parse_count(column: str, raw: str) -> int:
    value = _parse_int(column, raw)
    if value < 0:
        raise _CellError(column, "a whole number >= 0", raw)
    return value


class _CsvRecord:
    """Typed access to one CSV record; empty or absent optional cells give the default."""

    def __init__(self, record: Mapping[str, str | None]) -> None:
        self._record = record
        self.used: set[str] = set()

    def peek(self, column: str) -> str:
        """The cell's text without consuming it (it is still kept as an extra field)."""
        return (self._record.get(column) or "").strip()

    def raw(self, column: str) -> str:
        self.used.add(column)
        return self.peek(column)

    def required(self, column: str) -> str:
        value = self.raw(column)
        if not value:
            raise ValueError(f"column '{column}' is empty")
        return value

    def optional(self, column: str, parse: Callable[[str, str], Any], default: Any) -> Any:
        value = self.raw(column)
        return parse(column, value) if value else default

    def leftovers(self) -> Iterator[tuple[str, str]]:
        for column, value in self._record.items():
            if column and column not in self.used and value is not None:
                yield column, value.strip()


def _timestamp_for(record: _CsvRecord, run_id: str) -> str:
    explicit = record.raw("timestamp")
    if explicit:
        return explicit
    # The CSV has no per-row time; the harness's run ids embed the run's start (epoch ms).
    match = _RUN_ID_EPOCH_MS.match(run_id)
    if not match:
        return ""
    started = datetime.fromtimestamp(int(match.group(1)) / 1000, tz=timezone.utc)
    return started.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _model_for(signature: str) -> dict[str, Any]:
    provider, slash, model = signature.partition("/")
    if not slash:
        return {"provider_id": "unknown", "model_id": signature or "unknown", "mode": None}
    return {"provider_id": provider, "model_id": model, "mode": None}


def _error_for(record: _CsvRecord) -> dict[str, str] | None:
    error_type = record.raw("error_type")
    if error_type:
        return {"type": error_type, "message": record.raw("error_message")}
    # The harness marks an agent session that crashed or never started with this reason.
    if record.peek("completion_reason").lower() == "error":
        return {
            "type": RUNNER_ERROR,
            "message": "agent session ended with completion_reason 'error'",
        }
    return None


def _guess_extra(value: str) -> Any:
    if value == "":
        return None
    for parse in (int, float):
        try:
            return parse(value)
        except ValueError:
            continue
    return value


def _csv_row(record: _CsvRecord, aliases: Mapping[str, str]) -> dict[str, Any]:
    run_id = record.required("run_id")
    mode = record.required("mode")
    retries = record.optional("external_retry_count", _parse_count, None)
    if retries is None:
        retries = record.optional("retry_count", _parse_count, 0)
    row: dict[str, Any] = {
        "timestamp": _timestamp_for(record, run_id),
        "run_id": run_id,
        "mode": aliases.get(mode, mode),
        "scenario_id": record.required("scenario_id"),
        "scenario_set": record.raw("scenario_set") or None,
        "iteration": record.optional("iteration", _parse_int, 0),
        "session_id": record.raw("session_id") or None,
        "success": _parse_bool("success", record.required("success")),
        "output_valid": _parse_bool("output_valid", record.required("output_valid")),
        "latency_ms_wall": record.optional("timing_wall_ms", _parse_measure, 0.0),
        "tokens": {
            name: record.optional(f"tokens_{name}", _parse_count, 0)
            for name in ("input", "output", "reasoning", "cache_read", "cache_write", "total")
        },
        "cost": record.optional("cost_total_usd", _parse_measure, 0.0),
        "tool_calls": record.optional("tool_calls_total", _parse_count, 0),
        "api_calls": record.optional("agent_turns", _parse_count, 0),
        "internal_retry_count": record.optional("internal_retry_count", _parse_count, 0),
        "external_retry_count": retries,
        "model": _model_for(record.raw("model")),
        "error": _error_for(record),
    }
    for column, value in record.leftovers():
        row.setdefault(column, _guess_extra(value))
    return row


def read_eval_csv(path: Path, aliases: Mapping[str, str]) -> tuple[list[Row], list[ReadProblem]]:
    """Read the TypeScript harness's per-run CSV (``results.csv``) into rows.

    Columns map as: ``timing_wall_ms`` → ``latency_ms_wall``, ``tokens_*`` → ``tokens``,
    ``tool_calls_total`` → ``tool_calls``, ``cost_total_usd`` → ``cost``, ``agent_turns`` →
    ``api_calls``, ``model`` ("provider/model") → ``model``; a ``completion_reason`` of
    ``error`` is a runner error. Other columns are kept as extra fields. A record with a bad
    cell becomes a problem with its line number; the other records are still read.
    """
    problems: list[ReadProblem] = []
    rows: list[Row] = []
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        return [], [ReadProblem(path, 0, f"cannot read file: {exc.strerror or exc}")]
    with handle:
        reader = csv.DictReader(handle)
        try:
            header = reader.fieldnames or []
        except (csv.Error, UnicodeDecodeError) as exc:
            return [], [ReadProblem(path, 1, f"unreadable CSV header: {exc}")]
        missing = [column for column in _REQUIRED_COLUMNS if column not in header]
        if missing:
            names = ", ".join(repr(column) for column in missing)
            return [], [ReadProblem(path, 1, f"CSV header lacks required column(s) {names}")]
        while True:
            try:
                record = next(reader)
            except StopIteration:
                break
            except (csv.Error, UnicodeDecodeError) as exc:
                problems.append(ReadProblem(path, reader.line_num, f"unreadable CSV record: {exc}"))
                break
            line = reader.line_num
            if None in record:
                problems.append(ReadProblem(path, line, "more cells than header columns"))
                continue
            try:
                rows.append(Row.model_validate(_csv_row(_CsvRecord(record), aliases)))
            except ValidationError as exc:
                problems.append(ReadProblem(path, line, describe_validation_error(exc)))
            except ValueError as exc:
                problems.append(ReadProblem(path, line, str(exc)))
    return rows, problems
