"""What every MCP plan is made of: the call and plan types, :class:`NoTool`, and reading a
capability's input into tool arguments and a tool's output back.

:mod:`.mcp_plans` holds the plans and their refusals; :mod:`.mcp_plans_code` the plans on code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping
from typing import Any

from pytest_ghxbench.sandbox.state import World

__all__ = ["McpCall", "McpPlan", "NoTool", "Planner", "args_of", "repo_of", "shown"]


class NoTool(Exception):
    """The server has no tool for this; the message completes "<server> cannot perform <task>:
    it ...", e.g. "has no tool that deletes an issue"."""


McpCall = tuple[str, dict[str, Any]]
McpPlan = Generator[McpCall, str, None]
"""Yields tool calls; each ``send`` hands back the text the previous call printed."""
Planner = Callable[[Mapping[str, Any], World], McpPlan]


def repo_of(input: Mapping[str, Any], world: World) -> dict[str, Any]:
    """``owner``/``repo`` as the input names them (else the world's repository)."""
    repo = world.repository
    return {"owner": input.get("owner", repo.owner), "repo": input.get("name", repo.name)}


def args_of(input: Mapping[str, Any], fixed: Mapping[str, Any]) -> dict[str, Any]:
    """``fixed``, where a string value ``"=key"`` stands for the input's ``key`` (left out when
    the input has none)."""
    arguments = {}
    for name, value in fixed.items():
        if not (isinstance(value, str) and value.startswith("=")):
            arguments[name] = value
        elif input.get(value[1:]) is not None:
            arguments[name] = input[value[1:]]
    return arguments


def shown(text: str, what: str) -> Any:
    """The JSON a tool printed; :class:`NoTool` when it printed something else."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise NoTool(f"printed no {what} the plan can read: {text[:200]}") from None
