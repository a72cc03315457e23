"""Rows on disk (JSONL writer, readers for ours and the TypeScript harness's) and summary
rendering (Markdown, terminal)."""

from __future__ import annotations

from pytest_ghxbench.report.importers import ReadProblem, normalize_ts_row, read_eval_csv
from pytest_ghxbench.report.jsonl import (
    DEFAULT_MODE_ALIASES,
    ReadResult,
    RowSourceError,
    RowWriter,
    read_rows,
)
from pytest_ghxbench.report.markdown import render_markdown
from pytest_ghxbench.report.terminal import checks_table, format_number, mode_table, verdict_line

__all__ = [
    "DEFAULT_MODE_ALIASES",
    "ReadProblem",
    "ReadResult",
    "RowSourceError",
    "RowWriter",
    "checks_table",
    "format_number",
    "mode_table",
    "normalize_ts_row",
    "read_eval_csv",
    "read_rows",
    "render_markdown",
    "verdict_line",
]
