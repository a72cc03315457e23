"""A minimal stand-in for GitHub's MCP server, for tests: one tool, ``issue_read``, that reads
an issue from the GitHub API named on the command line with the token the server was started
with (``GITHUB_PERSONAL_ACCESS_TOKEN``, as GitHub's server expects it).

    python mcp_issue_server.py <api_url>
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

# The backend's launcher starts this with a scrubbed environment (no PYTHONPATH): the client is
# this checkout's, whichever copy of the package the interpreter has installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError

TOOL = {
    "name": "issue_read",
    "description": "Read one issue.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "owner": {"type": "string"},
            "repo": {"type": "string"},
            "issue_number": {"type": "integer"},
        },
        "required": ["owner", "repo", "issue_number"],
    },
}


def main() -> None:
    client = GitHubClient(os.environ.get("GITHUB_PERSONAL_ACCESS_TOKEN", ""), sys.argv[1])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool.model_validate(TOOL)])

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        path = f"/repos/{args['owner']}/{args['repo']}/issues/{args['issue_number']}"
        try:
            issue = client.rest("GET", path)
        except GitHubError as exc:
            return types.CallToolResult(content=[types.TextContent(text=str(exc))], is_error=True)
        text = json.dumps({"number": issue["number"], "title": issue["title"]})
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=False)

    server = Server("issue-server", version="0.0.1", on_list_tools=list_tools, on_call_tool=call)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
