"""OpenAI chat completions as GitHub Copilot CLI calls them (its default BYOK wire API), for
:class:`~tests.agent_clis.scripted.ScriptedModel`.

The streaming format is :class:`~tests.agent_clis.dialect_chat.ChatCompletions`' (Copilot asks
for ``stream: true`` with ``stream_options.include_usage``); what differs is how Copilot names
tools: its shell tool is ``bash`` (arguments ``command``, ``description``, ...), and an MCP
server's tools are offered as ``<server>-<tool>`` (``mcp-get_pull_request`` for a server
registered as ``mcp``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.agent_clis.dialect_chat import ChatCompletions
from tests.agent_clis.scripted import Action, McpCall

__all__ = ["SHELL_TOOL", "CopilotChat", "mcp_tool_name"]

SHELL_TOOL = "bash"


def mcp_tool_name(server: str, tool: str) -> str:
    """What Copilot calls the tool ``tool`` of the MCP server registered as ``server``."""
    return f"{server}-{tool}"


class CopilotChat(ChatCompletions):
    """Chat completions with Copilot's tool names."""

    name = "copilot-chat"

    def __init__(self) -> None:
        super().__init__(shell_tool=SHELL_TOOL)

    def _tool(self, action: Action, offered: list[str]) -> tuple[str, Mapping[str, Any]]:
        if isinstance(action, McpCall):
            suffix = f"-{action.tool}"
            name = next((n for n in offered if n.endswith(suffix)), None)
            if name is not None:
                return name, dict(action.arguments)
        return super()._tool(action, offered)
