"""Summary rendering: the terminal's lines and ``summary.md``."""

from __future__ import annotations

from pytest_ghxbench.report.markdown import render_markdown
from pytest_ghxbench.report.terminal import checks_table, format_number, mode_table, verdict_line

__all__ = [
    "checks_table",
    "format_number",
    "mode_table",
    "render_markdown",
    "verdict_line",
]
