"""``ghxbench sandbox mcp`` end to end, driven by the official MCP client over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from pytest_ghxbench.sandbox.dialects.mcp_tools import TOOLS

R = {"owner": "acme-labs", "repo": "tinykv"}


def _text(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    return str(content[0].text)


def test_real_client_lists_reads_and_comments(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    subprocess.run(
        [sys.executable, "-m", "pytest_ghxbench", "sandbox", "init", str(state)], check=True
    )
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pytest_ghxbench", "sandbox", "mcp"],
        env={"GHXBENCH_SANDBOX_STATE": str(state)},
    )

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == [t.name for t in TOOLS]
            got = await client.call_tool("issue_read", {"method": "get", **R, "issue_number": 3})
            assert not got.is_error and json.loads(_text(got))["number"] == 3
            added = await client.call_tool(
                "add_issue_comment", {**R, "issue_number": 3, "body": "Looking into it"}
            )
            assert not added.is_error, _text(added)
            comments = await client.call_tool(
                "issue_read", {"method": "get_comments", **R, "issue_number": 3}
            )
            assert [c["body"] for c in json.loads(_text(comments))] == ["Looking into it"]

    anyio.run(session)
    saved = json.loads(state.read_text())["world"]
    issue = next(i for i in saved["issues"] if i["number"] == 3)
    assert [c["body"] for c in issue["comments"]] == ["Looking into it"]
