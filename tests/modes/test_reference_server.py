"""The reference GitHub MCP server from npm (``@modelcontextprotocol/server-github``) as a
declared mode, run by the oracle on the shipped read scenarios, jailed.

It is another server than GitHub's: it calls ``https://api.github.com`` itself (ignoring the
proxy variables; the jail leads GitHub's names to the item's gate), and its tools share some of
GitHub's server's names but not their arguments. Where the oracle's plans (written for GitHub's
server) fit its tools, the items pass; everywhere else the answer is the honest UNSUPPORTED
naming the server as it names itself. Nothing is a runner error, and nothing passes on a call
the server did not take.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import pytest_ghxbench.sandbox.api.tls  # noqa: F401  (see tests/agent_clis/harness.py)
from tests.agent_clis.harness import agent_cli
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.timeout(900)

PASSING = {
    "issue-view-001",
    "repo-view-001",
    "repo-file-get-missing-001",
    "repo-commits-compare-001",
}


def test_the_reference_server_runs_the_read_scenarios(pytester: pytest.Pytester) -> None:
    server = agent_cli("mcp-server-github")
    pytester.makepyprojecttoml(
        f'[tool.ghxbench.modes.mcp_ref]\nkind = "mcp"\ncommand = [{json.dumps(server)}]\n'
    )
    (pytester.path / "scenarios").symlink_to(REPO_ROOT / "scenarios")
    result = pytester.runpytest_subprocess(
        "--ghx-mode=mcp_ref", "-m", "read", "-p", "no:cacheprovider", "scenarios", timeout=800
    )
    if os.environ.get("GHXBENCH_REQUIRE_JAIL") == "1":
        assert "ghxbench: isolation: jail (" in result.stdout.str()
    (rows_file,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/rows.jsonl")
    rows = [json.loads(line) for line in rows_file.read_text().splitlines()]
    assert len(rows) >= 30, result.outlines[-30:]
    passed = {row["scenario_id"] for row in rows if row["success"]}
    assert passed == PASSING, result.outlines[-60:]
    # the attempt each row reports (a busy machine may have rerun an item)
    final: dict[str, dict[str, object]] = {}
    records = [
        record
        for path in rows_file.parent.glob("transcripts/*.jsonl")
        for record in map(json.loads, path.read_text().splitlines())
    ]
    for record in sorted(records, key=lambda record: int(record["attempt"])):
        final[record["item_id"]] = record
    for row in rows:
        assert row["error"] is None or row["error"]["type"] != "runner_error", row
        assert not row.get("mode_violation"), row
        if not row["success"]:
            error = json.loads(str(final[row["item_id"]]["final_text"]))["error"]
            assert error["code"] == "UNSUPPORTED", error
            assert error["message"].startswith("github-mcp-server 0.6.2 (mode mcp_ref) cannot"), (
                error
            )
    (spec,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/run.json")
    found = json.loads(spec.read_text())["interfaces"]["mcp_ref"]
    assert (found["client"], found["version"], found["tools"]) == ("github-mcp-server", "0.6.2", 26)
    # its requests reached the sandbox through the jail's GitHub names, as the item's client
    assert Path(server).exists()
