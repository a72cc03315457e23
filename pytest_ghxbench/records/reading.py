"""Reading a run directory back: its item records, transcripts and completeness (rendering its
HTML report from them is :mod:`pytest_ghxbench.htmlreport.run_report`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_ghxbench import bounded_json
from pytest_ghxbench.records.store import RunDir

__all__ = ["read_items", "read_transcripts", "unfinished_runs"]


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
