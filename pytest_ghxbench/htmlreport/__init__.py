"""The per-run HTML report: one self-contained ``report.html`` for one benchmark run.

The page (verdict, gate checks, per-mode and per-scenario tables, plots drawn by matplotlib as
inline SVG, every item with its transcripts) opens offline: it references no remote resource and
its only script is the small filter script shipped next to the template. Everything taken from
the run (transcripts hold arbitrary text) is HTML-escaped by the template.

    from pytest_ghxbench.htmlreport import write_report
    write_report(run_dir / "report.html", summary, items, transcripts)
"""

from __future__ import annotations

from pytest_ghxbench.htmlreport.page import render_report, write_report

__all__ = ["render_report", "write_report"]
