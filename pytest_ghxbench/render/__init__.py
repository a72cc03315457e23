"""Rendering a summary: the terminal's lines, ``summary.md`` and ``report.html`` (:mod:`.html`)."""

from __future__ import annotations

from pytest_ghxbench.render.markdown import render_markdown
from pytest_ghxbench.render.terminal import checks_table, format_number, mode_table, verdict_line

__all__ = [
    "checks_table",
    "format_number",
    "mode_table",
    "render_markdown",
    "verdict_line",
]
