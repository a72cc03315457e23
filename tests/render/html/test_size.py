"""report.html stays small however many items a run has: a 2,000-item run (the real default
run's rows, repeated, a fifth of them failed with long reasons) gives a page of at most 2 MB
that still shows the verdict, the gate checks, the tables and the plots."""

from __future__ import annotations

import copy
from typing import Any

from pytest_ghxbench.metrics.profiles import build_profiles
from pytest_ghxbench.metrics.summary import build_summary
from pytest_ghxbench.records.row import Row
from pytest_ghxbench.render.html import render_report
from pytest_ghxbench.render.html.items import FAILURES_SHOWN
from tests.render.html.conftest import RunFiles
from tests.render.html.dom import parse

ITEMS = 2_000
MAX_BYTES = 2_000_000
REASON = "assertions.required_data_fields: expected data.items[0].author.login, got null; " * 6


def many_items(run: RunFiles, count: int) -> list[dict[str, Any]]:
    """``count`` rows made from the run's rows: more repetitions of the same scenarios."""
    rows = []
    for number in range(count):
        row = copy.deepcopy(run.items[number % len(run.items)])
        rep = number // len(run.items) + 1
        row["iteration"] = rep
        row["item_id"] = f"{row['item_id'].rsplit('[', 1)[0]}[{row['mode']}-r{rep}]"
        if number % 5 == 3:
            row.update(success=False, error={"type": "assertion_failed", "message": REASON})
        rows.append(row)
    return rows


def test_a_2000_item_report_is_at_most_2_mb_and_shows_everything(default_run: RunFiles) -> None:
    items = many_items(default_run, ITEMS)
    summary = build_summary(
        [Row.model_validate(item) for item in items],
        profile=build_profiles()["verify_pr"],
        baseline="agent_direct",
        candidate="ghx",
        run_info=default_run.summary.run,
        resamples=200,
    )
    html = render_report(summary, items)
    size = len(html.encode("utf-8"))
    assert size <= MAX_BYTES, f"report.html of {ITEMS:,} items is {size:,} bytes"

    page = parse(html)
    assert page.by_id("verdict").attrs["data-status"] in {"passed", "failed"}
    checks = page.by_id("checks").find_all("tr", data_check=True)
    assert len(checks) == len(summary.gate.checks) > 0
    modes = page.by_id("modes").find_all("tr", data_mode=True)
    assert [row.attrs["data-mode"] for row in modes] == ["agent_direct", "mcp", "ghx"]
    scenarios = page.by_id("scenarios").find_all("tr", data_scenario=True)
    assert len(scenarios) == len(summary.scenarios)
    assert len(page.by_id("items").find_all("tr", data_mode=True)) == ITEMS
    assert page.by_id("visible-count").text == f"{ITEMS}"
    failed = page.by_id("failures").find_all("tr", data_item_id=True)
    assert len(failed) == FAILURES_SHOWN  # the first ones, with their reasons
    assert f"And {ITEMS // 5 - FAILURES_SHOWN:,} more" in page.by_id("failures-section").text
    assert REASON.strip() in failed[0].text
    for figure in page.by_id("plots").find_all("figure"):
        assert len(figure.find_all("svg")) == 1, figure.attrs["data-plot"]
