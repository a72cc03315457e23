"""Sandbox gaps in the text reports: one terminal line per mode with gaps (also from ``ghxbench
report``), and the summary.md section; nothing for modes, or summaries, without them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_ghxbench.cli.main import main
from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.render.gaps import gap_lines, gaps_markdown
from pytest_ghxbench.render.markdown import render_markdown
from tests.summaries import bare_summary

WHY = "its numbers may not transfer to GitHub"


def summary(**modes: dict[str, Any]) -> RunSummary:
    return bare_summary(modes=modes)


MCP = {
    "runs": 24,
    "sandbox_gap_items": 12,
    "sandbox_gaps": 31,
    "sandbox_gap_kinds": {"unmodelled_field": 27, "unserved_route": 2, "unsupported": 2},
}
GHX = {"runs": 24, "sandbox_gap_items": 0, "sandbox_gaps": 0, "sandbox_gap_kinds": {}}
ONE = {
    "runs": 1,
    "sandbox_gap_items": 1,
    "sandbox_gaps": 1,
    "sandbox_gap_kinds": {"unserved_route": 1},
}


def test_one_line_per_mode_with_gaps() -> None:
    assert gap_lines(summary(mcp=MCP, ghx=GHX, agent_direct=ONE)) == [
        "sandbox gaps: mcp 12 of 24 items (31 gaps: 2 unserved routes, 27 unmodelled fields,"
        f" 2 unsupported) — {WHY}",
        f"sandbox gaps: agent_direct 1 of 1 items (1 gap: 1 unserved route) — {WHY}",
    ]


@pytest.mark.parametrize(
    "document",
    [summary(ghx=GHX), summary(ghx={"runs": 3}), summary()],
    ids=["no gaps", "an older summary", "no modes"],
)
def test_nothing_without_gaps(document: RunSummary) -> None:
    assert gap_lines(document) == []
    assert gaps_markdown(document) == []


def test_a_summary_whose_modes_are_not_a_mapping_is_refused() -> None:
    document = summary().to_json_dict()
    with pytest.raises(ValidationError, match=r"(?m)^modes\n +Input should be a valid dictionary"):
        RunSummary.model_validate({**document, "modes": None})


def test_summary_md_has_a_section_after_the_modes() -> None:
    text = render_markdown(summary(mcp=MCP, ghx=GHX))
    assert (
        "| `mcp` | 12 of 24 | 31 gaps: 2 unserved routes, 27 unmodelled fields, 2 unsupported |"
        in text
    )
    assert text.index("### Modes") < text.index("### Where the sandbox diverged from GitHub")
    assert "`ghx` | 0" not in text


def test_ghxbench_report_prints_them_and_writes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = {
        "timestamp": "2026-03-03T10:00:00Z",
        "run_id": "r1",
        "scenario_id": "pr-view-001",
        "success": True,
        "output_valid": True,
    }
    gap = {"kind": "unserved_route", "detail": "GET /repos/{owner}/{repo}/deployments"}
    rows = [
        {**base, "mode": "agent_direct", "sandbox_gaps": [{**gap, "count": 3}]},
        {**base, "mode": "agent_direct", "iteration": 1},
        {**base, "mode": "ghx"},  # a row written before gaps were recorded
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "summary.json"
    assert main(["report", str(path), "--summary-json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    line = f"sandbox gaps: agent_direct 1 of 2 items (3 gaps: 3 unserved routes) — {WHY}"
    assert printed.index(line) == len(printed) - 2  # just before the verdict
    modes = json.loads(out.read_text())["modes"]
    assert (modes["agent_direct"]["sandbox_gap_items"], modes["agent_direct"]["sandbox_gaps"]) == (
        1,
        3,
    )
    assert (modes["ghx"]["sandbox_gap_items"], modes["ghx"]["sandbox_gaps"]) == (0, 0)
