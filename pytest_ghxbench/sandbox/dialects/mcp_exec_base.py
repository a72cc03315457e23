"""Shared machinery of the MCP tool handlers: one call's context, failures, REST-style ids.

A handler is ``handler(call, args) -> result``: ``args`` are the tool's validated arguments,
``result`` is what the GitHub MCP server would put in the tool's text content (an object or list
rendered as JSON, or a plain string). Handlers reach the world through capabilities
(:meth:`ToolCall.run`), so validation and error messages stay the capabilities'; where the MCP
server has an operation no capability covers, the handler reads or edits the world directly and
says so with :meth:`ToolCall.touched`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from pytest_ghxbench.sandbox.capabilities.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.state import Issue, World

__all__ = [
    "Handler",
    "Routes",
    "ToolCall",
    "ToolFailure",
    "database_id",
    "issue_by_database_id",
    "paged",
    "user",
]


class ToolFailure(Exception):
    """A tool call that fails: ``message`` is the text the agent sees (``is_error`` true)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class ToolCall:
    """One tool call in progress: the world, what it ran and whether it changed anything."""

    world: World
    action: str
    """What the tool does, for error texts: ``failed to {action}: ...``."""
    capability_ids: list[str] = field(default_factory=list)
    mutated: bool = False

    @property
    def repo(self) -> dict[str, str]:
        """The ``owner``/``name`` pair capabilities take for the world's repository."""
        return {"owner": self.world.repository.owner, "name": self.world.repository.name}

    def run(self, capability_id: str, input: Mapping[str, Any]) -> Any:
        """Run a capability strictly; its data, or :class:`ToolFailure` with its error."""
        envelope = run_capability(self.world, capability_id, input, strict=True)
        self.capability_ids.append(capability_id)
        if not envelope["ok"]:
            raise ToolFailure(f"failed to {self.action}: {envelope['error']['message']}")
        cap = get_capability(capability_id)
        if cap is not None and cap.mutates:
            self.mutated = True
        return envelope["data"]

    def fail(self, message: str) -> ToolFailure:
        """A failure worded like the server's (``failed to get issue: ...``)."""
        return ToolFailure(f"failed to {self.action}: {message}")

    def touched(self) -> None:
        """Record a change made to the world without a capability."""
        self.mutated = True


Handler: TypeAlias = Callable[[ToolCall, dict[str, Any]], Any]
Routes: TypeAlias = dict[tuple[str, str | None], tuple[str, Handler]]
"""(tool, method) -> (action for error texts, handler)."""


def database_id(node: str) -> int:
    """A stable REST database id for an object the world only knows by node id."""
    return int.from_bytes(hashlib.sha256(node.encode()).digest()[:4], "big") + 1_000_000_000


def issue_by_database_id(world: World, number_or_id: int) -> Issue | None:
    """The issue whose REST id is ``number_or_id``."""
    return next((i for i in world.issues if database_id(i.node_id) == number_or_id), None)


def user(login: str | None) -> dict[str, Any] | None:
    """A minimal REST user object."""
    if not login:
        return None
    return {"login": login, "html_url": f"https://github.com/{login}"}


def paged(items: list[Any], args: Mapping[str, Any]) -> list[Any]:
    """The REST page ``page`` (from 1) of ``perPage`` (default 30) items."""
    size = int(args.get("perPage") or 30)
    number = int(args.get("page") or 1)
    return items[(number - 1) * size : number * size]


def fetch_all(call: ToolCall, capability_id: str, input: Mapping[str, Any]) -> list[Any]:
    """Every item of a paged capability list, following its cursors."""
    items: list[Any] = []
    after: str | None = None
    while True:
        page_input = {**input, "first": 100}
        if after is not None:
            page_input["after"] = after
        data = call.run(capability_id, page_input)
        items.extend(data["items"])
        if not data["pageInfo"]["hasNextPage"]:
            return items
        after = data["pageInfo"]["endCursor"]
