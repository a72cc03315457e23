"""A run directory's ``report.html``, rendered from what the run wrote (at the end of the
session, and again by ``ghxbench view`` and ``ghxbench merge``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_ghxbench.records.reading import read_items
from pytest_ghxbench.records.store import RunDir
from pytest_ghxbench.render.html.page import write_report

__all__ = ["write_run_report"]


def write_run_report(run: RunDir, *, items: Sequence[dict[str, Any]] | None = None) -> Path:
    """Render ``report.html`` of ``run`` from its summary and items (the page links to the
    transcripts, it does not read them).

    ``ValueError`` when the run has no summary (it never finished)."""
    summary = run.read_summary()
    if summary is None:
        raise ValueError(f"{run.path} has no summary.json: the run did not finish")
    return write_report(
        run.report_html,
        summary,
        list(items) if items is not None else read_items(run),
        comparison=summary.comparison,
        title=f"ghxbench {run.run_id}",
    )
