"""report.html's "Where the sandbox diverged from GitHub": every gap by mode, kind and detail with
its requests and items; "none" for a sandbox run without gaps; absent for real GitHub."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.render.html import render_report
from pytest_ghxbench.render.html.gaps import ITEMS_SHOWN
from tests.render.html.dom import Node, parse
from tests.summaries import bare_summary

ROUTE = {"kind": "unserved_route", "detail": "GET /repos/{owner}/{repo}/deployments"}


def row(mode: str, rep: int, *gaps: dict[str, Any]) -> dict[str, Any]:
    return {
        "item_id": f"scenarios/pr-view-001.yaml::pr-view-001[{mode}-r{rep}]",
        "run_id": "r1",
        "mode": mode,
        "scenario_id": "pr-view-001",
        "success": True,
        "output_valid": True,
        "sandbox_gaps": list(gaps),
    }


def page(items: list[dict[str, Any]], backend: str = "sandbox") -> Node:
    return parse(render_report(bare_summary(run={"run_id": "r1", "backend": backend}), items))


def table(section: Node) -> list[list[str]]:
    return [
        [cell.text for cell in tr.find_all("td")]
        for tr in section.by_id("gaps").find_all("tr", data_mode=True)
    ]


def test_gaps_are_grouped_by_mode_kind_and_detail_across_items() -> None:
    field = {"kind": "unmodelled_field", "detail": "Issue.isPinned", "count": 1}
    items = [
        row("mcp", 1, {**ROUTE, "count": 2}, field),
        row("mcp", 2, {**ROUTE, "count": 1}),
        row("agent_direct", 1, {"kind": "unsupported", "detail": "search qualifier review:",
                                "count": 1}),
        row("ghx", 1),
    ]  # fmt: skip
    assert table(page(items).by_id("gaps-section")) == [
        [
            "agent_direct", "unsupported", "search qualifier review:", "1",
            "pr-view-001[agent_direct-r1]",
        ],
        [
            "mcp", "unserved route", "GET /repos/{owner}/{repo}/deployments", "3",
            "pr-view-001[mcp-r1], pr-view-001[mcp-r2]",
        ],
        ["mcp", "unmodelled field", "Issue.isPinned", "1", "pr-view-001[mcp-r1]"],
    ]  # fmt: skip


def test_many_items_are_listed_up_to_a_limit_then_counted() -> None:
    items = [row("mcp", rep, {**ROUTE, "count": 1}) for rep in range(1, ITEMS_SHOWN + 4)]
    ((*_, listed),) = table(page(items).by_id("gaps-section"))
    assert listed.count("pr-view-001[mcp-r") == ITEMS_SHOWN
    assert listed.endswith(" and 3 more")


def test_a_sandbox_run_without_gaps_says_none() -> None:
    section = page([row("ghx", 1)]).by_id("gaps-section")
    assert "None: no item met a request" in section.by_id("gaps").text


def test_a_run_on_real_github_has_no_such_section() -> None:
    assert page([row("ghx", 1)], backend="github").find_all(id="gaps-section") == []
