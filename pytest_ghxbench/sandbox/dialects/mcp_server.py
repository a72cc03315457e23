"""``ghxbench sandbox mcp``: the sandbox's MCP tools served over stdio with the official SDK.

``tools/list`` answers exactly :func:`tools_list_payload`; ``tools/call`` runs
:func:`call_tool` on the state file named by ``GHXBENCH_SANDBOX_STATE``, holding the state's
lock from loading the world to saving it, and saving only when the call changed the world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from pytest_ghxbench.sandbox.dialects.mcp_exec import ToolOutcome, call_tool
from pytest_ghxbench.sandbox.dialects.mcp_tools import tools_list_payload
from pytest_ghxbench.sandbox.statefile import load_world, locked_state, save_world

__all__ = ["build_server", "call_on_state", "serve_stdio"]


def call_on_state(state: Path, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
    """Run one tool on the world stored at ``state``, saving it when the call mutated it."""
    with locked_state(state):
        world = load_world(state)
        outcome = call_tool(world, name, arguments or {})
        if outcome.mutated:
            save_world(state, world)
    return outcome


def build_server(state: Path) -> Server[Any]:
    """An MCP server whose tools act on the sandbox state at ``state``."""
    tools = [types.Tool.model_validate(entry) for entry in tools_list_payload()]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        outcome = await anyio.to_thread.run_sync(
            call_on_state, state, params.name, params.arguments
        )
        return types.CallToolResult(
            content=[types.TextContent(text=outcome.text)], is_error=outcome.is_error
        )

    return Server("ghxbench-sandbox", version="0.1.0", on_list_tools=list_tools, on_call_tool=call)


def serve_stdio(state: Path) -> None:
    """Serve the sandbox's MCP tools on stdin/stdout until the client closes the stream."""
    server = build_server(state)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
