"""GitHub's MCP server: a case's step is ``{tool, arguments}``, called on the real server that
the item's launcher (``GHXBENCH_MCP_COMMAND``) starts; one server per step, stopped after it.

``exit`` is 1 when the tool's result has ``isError``, or when the server answers the call with
a JSON-RPC error instead of a result (the server does when a tool's handler fails outright,
e.g. on some of GitHub's 4xx answers), else 0. ``output`` is the text of the first content
item, then the text of any further items (an embedded text resource: a file's contents), one
per line; ``json`` is the first item's text parsed. A JSON-RPC error's output is its message.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
from cases import CaseTimeout, Outcome, parse_json, time_left
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from pytest_ghxbench.adapters.process import mcp_server_command, scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxSession


def _texts(content: list[Any]) -> list[str]:
    """The text of each content item (a text item's, or an embedded resource's)."""
    texts = []
    for item in content:
        text = getattr(item, "text", None)
        if text is None:
            text = getattr(getattr(item, "resource", None), "text", None)
        texts.append(text if isinstance(text, str) else "")
    return texts


def _outcome(result: Any) -> Outcome:
    texts = _texts(list(getattr(result, "content", None) or []))
    first = texts[0] if texts else ""
    failed = bool(getattr(result, "is_error", False))
    return Outcome(1 if failed else 0, "\n".join(texts), parse_json(first))


async def _call(params: StdioServerParameters, tool: str, arguments: dict[str, Any]) -> Outcome:
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):  # noqa: SIM117
            async with ClientSession(read, write) as client:
                await client.initialize()
                try:
                    result = await client.call_tool(tool, arguments)
                except MCPError as error:
                    return Outcome(1, str(error), None)
                return _outcome(result)


def run_step(step: Any, session: SandboxSession) -> Outcome:
    env = scrubbed_env(dict(session.env))
    command, args, extra = mcp_server_command(env)
    params = StdioServerParameters(command=command, args=args, env={**env, **extra})
    tool, arguments = step["tool"], dict(step.get("arguments") or {})

    async def bounded() -> Outcome:
        with anyio.fail_after(time_left()):
            return await _call(params, tool, arguments)

    try:
        return anyio.run(bounded)
    except TimeoutError:
        raise CaseTimeout(f"the MCP call {tool} ran past the case's time") from None
