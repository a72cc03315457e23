"""Reading a run directory back: its item records, transcripts and completeness, and finding one
item's transcript records (what ``ghxbench view`` answers when the report asks for them).
Rendering its HTML report from them is :mod:`pytest_ghxbench.render.html.run_report`."""

from __future__ import annotations

import json
import mmap
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic_core import to_json

from pytest_ghxbench import bounded_json
from pytest_ghxbench.records.store import RunDir

__all__ = [
    "item_transcript",
    "read_items",
    "read_transcripts",
    "unfinished_runs",
]


def _json_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file; a line that is not one (a run killed mid-write leaves
    at most a partial last line) is left out: the report shows what was written."""
    found: list[dict[str, Any]] = []
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return found
    with handle:
        for raw in handle:
            if not raw.strip():
                continue
            try:
                # bounded: a line nested thousands deep is left out, not a RecursionError
                value = bounded_json.loads(raw)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


def read_items(run: RunDir) -> list[dict[str, Any]]:
    """The run's item records as written (JSON objects), in the order items finished."""
    return _json_lines(run.rows_path)


def read_transcripts(run: RunDir) -> list[dict[str, Any]]:
    """Every attempt's transcript record of the run, from all processes' files."""
    records: list[dict[str, Any]] = []
    for path in run.transcript_files():
        records.extend(_json_lines(path))
    return records


def item_transcript(run: RunDir, item_id: str) -> bytes:
    """The JSONL lines (as written) of every transcript record of ``item_id``, from all of the
    run's transcript files, in file order: its attempts, without reading anyone else's.

    A record is one line that starts with its ``item_id`` (the writer puts it first), so the
    lines are found by searching the mapped files for that start, at the speed of a byte
    search; a file written otherwise (spaces, escapes) is read line by line instead."""
    starts = {
        b'{"item_id":' + encoded
        for encoded in (
            to_json(item_id),
            json.dumps(item_id).encode("ascii"),
            json.dumps(item_id, ensure_ascii=False).encode("utf-8", "backslashreplace"),
        )
    }
    found: list[bytes] = []
    for path in run.transcript_files():
        try:
            with (
                path.open("rb") as handle,
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
            ):
                if data[: len(_COMPACT)] == _COMPACT:  # as the writer writes: search
                    lines = [line for start in starts for line in _lines_starting(data, start)]
                else:
                    lines = list(_lines_of_item(data, item_id))
        except (OSError, ValueError):  # an empty file cannot be mapped; one that went away
            continue
        found.extend(line for line, _ in sorted(lines, key=lambda line: line[1]))
    return b"".join(line + b"\n" for line in found)


def _lines_starting(data: mmap.mmap, start: bytes) -> Iterator[tuple[bytes, int]]:
    """The lines of ``data`` that start with ``start``, with their offsets."""
    offset = 0 if data[: len(start)] == start else data.find(b"\n" + start)
    while offset != -1:
        if data[offset : offset + 1] == b"\n":
            offset += 1
        end = data.find(b"\n", offset)
        end = len(data) if end == -1 else end
        yield data[offset:end], offset
        offset = data.find(b"\n" + start, end)


_COMPACT = b'{"item_id":"'
_ITEM_ID = re.compile(rb'\{\s*"item_id"\s*:\s*("(?:[^"\\]|\\.)*")')


def _lines_of_item(data: mmap.mmap, item_id: str) -> Iterator[tuple[bytes, int]]:
    """The lines of ``data`` whose record's first key is ``item_id`` with that value."""
    offset = 0
    for line in iter(data.readline, b""):
        match = _ITEM_ID.match(line)
        if match:
            try:
                if json.loads(match[1]) == item_id:
                    yield line.rstrip(b"\r\n"), offset
            except ValueError:
                pass
        offset += len(line)


def unfinished_runs(files: Sequence[Path]) -> tuple[list[str], dict[str, Any] | None]:
    """Why the rows of the runs read are not a whole run each: a run that recorded itself
    incomplete, or one that never finished (no summary.json); and the completeness block of
    the one run read, if it recorded one."""
    warnings: list[str] = []
    blocks = []
    for file in files:
        run = RunDir(file.parent)
        if file.name != run.rows_path.name or not run.spec_path.is_file():
            continue  # a rows file outside a run directory: nothing says what it should hold
        try:
            recorded = run.read_summary()
        except ValueError as exc:
            warnings.append(f"run {run.run_id}: its summary.json cannot be read: {exc}")
            continue
        if recorded is None:
            warnings.append(
                f"run {run.run_id} did not finish (no summary.json): "
                "its rows may not be all of its items"
            )
            continue
        harness_errors = recorded.run.get("harness_errors") or []
        if harness_errors:
            warnings.append(f"run {run.run_id} lost records: {'; '.join(harness_errors)}")
        completeness = recorded.completeness
        if completeness is None:
            continue
        blocks.append(completeness.model_dump())
        if not completeness.complete:
            warnings.append(
                f"run {run.run_id} is incomplete: {completeness.ran_items} of "
                f"{completeness.expected_items} items ran ({completeness.reason})"
            )
    return warnings, blocks[0] if len(files) == 1 and blocks else None
