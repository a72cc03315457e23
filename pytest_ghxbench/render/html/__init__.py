"""The per-run HTML report: one small, self-contained ``report.html`` for one benchmark run.

The page (verdict, gate checks, per-mode and per-scenario tables, failed items with their
reasons, the item table and a few plots drawn as small inline SVG from summary statistics)
opens offline: it references no remote resource and its only script is the one shipped next to
the template. It does not hold the transcripts: each item links to its records in the run's
``transcripts/`` files, which ``ghxbench view`` serves on loopback and the page's script shows
on demand, so the page stays small and cheap to write however many items the run has.
Everything taken from the run is HTML-escaped by the template (and set as text by the script).

    from pytest_ghxbench.render.html import write_report
    write_report(run_dir / "report.html", summary, items)
"""

from __future__ import annotations

from pytest_ghxbench.render.html.page import render_report, write_report

__all__ = ["render_report", "write_report"]
