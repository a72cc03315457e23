"""``render_report`` and ``write_report``: the page from the template, written atomically."""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.records.store import write_text_atomic
from pytest_ghxbench.render.html.formats import as_text, fmt_value
from pytest_ghxbench.render.html.gaps import gap_section
from pytest_ghxbench.render.html.intervals import forest_data
from pytest_ghxbench.render.html.items import (
    OUTCOME_LABELS,
    build_items,
    failed_items,
    item_rows,
    mode_order,
)
from pytest_ghxbench.render.html.plots import (
    Plot,
    distributions_plot,
    forest_plot,
    success_plot,
)
from pytest_ghxbench.render.html.tables import (
    check_rows,
    comparison_table,
    efficiency_lines,
    mode_table,
    run_fields,
    scenario_table,
    verdict,
)

__all__ = ["render_report", "write_report"]

_PACKAGE = "pytest_ghxbench.render.html"


@functools.cache
def _asset(name: str) -> str:
    return resources.files(_PACKAGE).joinpath("assets").joinpath(name).read_text(encoding="utf-8")


@functools.cache
def _template() -> jinja2.Template:
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: _asset(name)),
        autoescape=True,  # every value from the run is text to show, never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return environment.get_template("report.html.j2")


def _script_hash(script: str) -> str:
    """The CSP source that lets the page's own script (and no other) run."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def render_report(
    summary: RunSummary,
    items: Sequence[Mapping[str, Any]],
    *,
    comparison: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> str:
    """The self-contained HTML page of one run.

    ``summary`` is the run's summary and ``items`` its rows (one per benchmark item) as parsed
    JSON; ``comparison``, when given, a run-over-run comparison to show as a table.
    The transcripts are not read: each item links to its records in the run directory.
    Missing or malformed parts are shown as missing (plots say "no data"), never raised.
    """
    return render_context(page_context(summary, items, comparison, title))


def render_context(context: Mapping[str, Any]) -> str:
    """The page from a :func:`page_context`."""
    return _template().render(context)


def page_context(
    summary: RunSummary,
    items: Sequence[Mapping[str, Any]],
    comparison: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """Everything the template shows, computed and formatted (plots drawn)."""
    run = summary.run
    summary_modes = list(summary.modes)
    views = build_items(items, summary_modes)
    modes = mode_order([*summary_modes, *(view.mode for view in views)], summary_modes)
    item_modes = mode_order({view.mode for view in views}, modes)
    run_id = as_text(run.get("run_id")) or next(
        (as_text(row.get("run_id")) for row in items if isinstance(row, Mapping)), None
    )
    plots: list[Plot] = [
        forest_plot(forest_data(summary, views)),
        distributions_plot(views, item_modes),
        success_plot(views, item_modes),
    ]
    script = _asset("report.js")
    failures, more_failures = failed_items(views)
    outcome_counts = {outcome: 0 for outcome in OUTCOME_LABELS}
    for view in views:
        outcome_counts[view.outcome] = outcome_counts.get(view.outcome, 0) + 1
    context = {
        "title": title or f"ghxbench run {run_id or '(unknown run)'}",
        "generated_at": fmt_value(summary.generated_at),
        "run_fields": run_fields(summary),
        "verdict": verdict(summary),
        "efficiency": efficiency_lines(summary),
        "checks": check_rows(summary),
        "modes": mode_table(summary, modes),
        "gaps": gap_section(summary, items, views, modes),
        "scenarios": scenario_table(summary, views, modes),
        "comparison": comparison_table(comparison) if comparison is not None else None,
        "plots": plots,
        "items": views,
        "item_rows": item_rows(views),
        "failures": failures,
        "more_failures": more_failures,
        "run_id": run_id or "",
        "filter_modes": item_modes,
        "filter_scenarios": sorted({view.scenario for view in views}),
        "filter_outcomes": [
            (outcome, OUTCOME_LABELS.get(outcome, outcome), count)
            for outcome, count in outcome_counts.items()
        ],
        "css": Markup(_asset("report.css")),
        "script": Markup(script),
        "script_hash": _script_hash(script),
    }
    return context


def write_report(
    path: Path,
    summary: RunSummary,
    items: Sequence[Mapping[str, Any]],
    *,
    comparison: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> Path:
    """Render the page and write it to ``path`` atomically (see
    :func:`~pytest_ghxbench.records.store.write_text_atomic`), so a reader never sees a
    half-written report."""
    html = render_report(summary, items, comparison=comparison, title=title)
    path = Path(path)
    write_text_atomic(path, html)
    return path
