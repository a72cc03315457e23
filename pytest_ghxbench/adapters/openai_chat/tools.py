"""The tools per mode: one ``bash`` tool (a kind cli mode: its program, e.g. ``gh`` in
agent_direct) or an MCP server's."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from pytest_ghxbench.adapters.bash_tool import DEFAULT_TIMEOUT_S, BashTool
from pytest_ghxbench.adapters.openai_chat.loop import ToolReply
from pytest_ghxbench.adapters.oracle.transcript import bash_tool, function_tool
from pytest_ghxbench.api import BUILTIN_MODE_SPECS, ModeSpec

__all__ = ["BINARIES", "BashHost", "McpHost"]

BINARIES: Mapping[str, str] = {"agent_direct": "gh", "ghx": "ghx"}


class BashHost:
    """The ``bash`` tool of a kind cli mode, described with its program's usage."""

    def __init__(self, tool: BashTool, spec: ModeSpec | None = None) -> None:
        self.tool = tool
        self.spec = spec or BUILTIN_MODE_SPECS["ghx" if tool.binary == "ghx" else "agent_direct"]

    def definitions(self) -> list[dict[str, Any]]:
        from pytest_ghxbench.adapters.cli_usage import cli_usage

        return [bash_tool(cli_usage(self.spec))]

    def call(self, name: str, arguments: Mapping[str, Any], timeout_s: float) -> ToolReply:
        if name != "bash":
            return ToolReply(f"error: unknown tool {name!r}; the only tool is 'bash'", ok=False)
        command = arguments.get("command")
        if not isinstance(command, str):
            return ToolReply("error: 'command' must be a string", ok=False)
        outcome = self.tool.run(command, timeout_s=timeout_s)
        return ToolReply(outcome.output, ok=outcome.ok)


class McpHost:
    """An MCP server over stdio, driven by the official client from synchronous code: the
    client's async context runs in a background event loop (an anyio blocking portal)."""

    def __init__(
        self,
        command: Sequence[str],
        env: Mapping[str, str],
        cwd: Path | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        log: Path | None = None,
    ) -> None:
        """Start the server; its stderr goes to ``log`` when given (else the harness's)."""
        from anyio.from_thread import start_blocking_portal
        from mcp import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        self.timeout_s = timeout_s
        self._stack = contextlib.ExitStack()
        try:
            portal = self._stack.enter_context(start_blocking_portal())
            params = StdioServerParameters(
                command=command[0], args=list(command[1:]), env=dict(env), cwd=cwd
            )
            errlog = sys.stderr
            if log is not None:
                errlog = self._stack.enter_context(log.open("a", encoding="utf-8"))
            read, write = self._stack.enter_context(
                portal.wrap_async_context_manager(stdio_client(params, errlog=errlog))
            )
            self._session = self._stack.enter_context(
                portal.wrap_async_context_manager(ClientSession(read, write))
            )
            self._portal = portal
            started = portal.call(self._session.initialize)
            listed = portal.call(self._session.list_tools)
        except BaseException:
            self._stack.close()
            raise
        self._definitions = [
            function_tool(tool.name, tool.description or "", tool.input_schema)
            for tool in listed.tools
        ]
        self.tool_names = frozenset(tool.name for tool in listed.tools)
        self.input_schemas: dict[str, Any] = {t.name: t.input_schema for t in listed.tools}
        """Each tool's ``inputSchema``, as the server lists it."""
        info = started.server_info
        self.server_info = (info.name or Path(command[0]).name, info.version or "unknown")
        """``(name, version)`` as the server says in ``initialize``."""

    def definitions(self) -> list[dict[str, Any]]:
        return list(self._definitions)

    def call(self, name: str, arguments: Mapping[str, Any], timeout_s: float) -> ToolReply:
        timeout_s = min(timeout_s, self.timeout_s)

        async def invoke() -> Any:
            with anyio.fail_after(max(timeout_s, 0.001)):
                return await self._session.call_tool(name, dict(arguments))

        try:
            result = self._portal.call(invoke)
        except TimeoutError:
            return ToolReply(f"error: the tool call timed out after {timeout_s:.3g} s", ok=False)
        except Exception as exc:  # a protocol error is the model's to see, not a crash
            return ToolReply(f"error: {type(exc).__name__}: {exc}", ok=False)
        parts = []
        for item in result.content:
            text = getattr(item, "text", None)
            parts.append(text if isinstance(text, str) else json.dumps(item.model_dump()))
        return ToolReply("\n".join(parts), ok=not result.is_error)

    def close(self) -> None:
        self._stack.close()
