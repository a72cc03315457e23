"""The cost check's value is the smallest per-scenario reduction, and says so wherever shown."""

from __future__ import annotations

import re

from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.render.html.tables import check_rows
from pytest_ghxbench.render.markdown import render_markdown
from pytest_ghxbench.render.terminal import checks_table


def _with_cost(summary: RunSummary, value: float | None) -> RunSummary:
    data = summary.model_copy(deep=True)
    for check in data.gate.checks:
        if check.name == "efficiency_cost_reduction":
            check.value = value
    return data


def test_the_cost_check_reads_as_a_minimum_in_terminal_markdown_and_html(
    summary: RunSummary,
) -> None:
    data = _with_cost(summary, 0.7)
    (terminal,) = [line for line in checks_table(data) if "efficiency_cost_reduction" in line]
    assert re.search(r"efficiency_cost_reduction\s+min 0\.7%\s+>=\s+10\.0%", terminal)
    (markdown,) = [
        line
        for line in render_markdown(data).splitlines()
        if line.startswith("| `efficiency_cost_reduction`")
    ]
    assert "| min 0.7% |" in markdown.replace("  ", " ")
    (html,) = [row for row in check_rows(data) if row["name"] == "efficiency_cost_reduction"]
    assert html["value"].startswith("min 0.7")
    # the other checks are not minimums
    assert not any(" min " in line for line in checks_table(data) if "cost" not in line)


def test_a_missing_cost_value_is_not_called_a_minimum(summary: RunSummary) -> None:
    data = _with_cost(summary, None)
    (terminal,) = [line for line in checks_table(data) if "efficiency_cost_reduction" in line]
    assert "min" not in terminal
