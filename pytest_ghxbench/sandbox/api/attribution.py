"""Which client made a request, and whether the item's mode offers it.

Every client of an item holds a token of its own (:meth:`.registry.WorldRegistry.client_token`),
and the real clients say who they are in ``User-Agent`` (``GitHub CLI 2.102.0``,
``github-mcp-server/0.12.1``, ``git/2.39.5``). A request whose token or user agent names a
client the item's mode does not offer (gh in an mcp item, say), or that comes from one item's
jail with another item's token, is refused (403) and recorded on the item's world: its row
becomes a ``mode_violation``, never a success.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path

from pytest_ghxbench.api import ModeSpec
from pytest_ghxbench.sandbox.api.registry import HARNESS, Slot, WorldRegistry

__all__ = ["MODE_CLIENTS", "check", "client_of_agent", "offered_clients", "request_tokens"]

MODE_CLIENTS: Mapping[str, frozenset[str]] = {
    "agent_direct": frozenset({"gh"}),
    "mcp": frozenset({"mcp"}),
    "ghx": frozenset({"ghx"}),
}
"""The GitHub client each built-in mode offers; git (the checkout) and the harness's own
requests are allowed in every mode, and modes not listed here are not checked."""
_EVERY_MODE = frozenset({HARNESS, "git"})
_NAMES = {"gh": "gh", "mcp": "github-mcp-server", "ghx": "ghx", "git": "git"}
_PROGRAMS = {"gh": "gh", "github-mcp-server": "mcp", "ghx": "ghx"}
"""A program's name -> the client its user agent names."""


def offered_clients(spec: ModeSpec) -> frozenset[str]:
    """The clients an item of ``spec``'s mode may make requests with: the one its token is
    issued to, and the real client its program is (a declared mode that runs GitHub's MCP
    server, narrowed, says ``github-mcp-server`` in its user agent)."""
    program = Path(spec.program or "").name if spec.kind == "cli" else Path(spec.command[0]).name
    known = _PROGRAMS.get(program)
    return frozenset({spec.client_id, *([known] if known else [])})


def client_of_agent(user_agent: str) -> str | None:
    """The client a ``User-Agent`` names, when it is one of the real clients'."""
    agent = user_agent.strip().lower()
    if agent.startswith("github cli"):
        return "gh"
    if agent.startswith("github-mcp-server"):
        return "mcp"
    if agent.startswith("git/"):
        return "git"
    return None


def request_tokens(authorization: str) -> list[str]:
    """The tokens an ``Authorization`` header may carry (``token T``, ``Bearer T``, Basic with
    the token as password or user name)."""
    scheme, _, value = authorization.strip().partition(" ")
    scheme = scheme.lower()
    if scheme in ("token", "bearer"):
        return [value.strip()] if value.strip() else []
    if scheme == "basic":
        try:
            user, _, password = base64.b64decode(value.strip()).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return []
        return [word for word in (password, user) if word]
    return []


def check(
    registry: WorldRegistry, headers: Mapping[str, str], what: str, item: Slot | None = None
) -> str | None:
    """Why the request ``what`` (``GET http://...``) with ``headers`` (lower-case names) must be
    refused, recording it on the item's world, or ``None``. ``item``: the world of the jail the
    request came from (``None``: not from a jail, so the token alone names the item)."""
    grant = next(
        (found for token in request_tokens(headers.get("authorization", "")) if
         (found := registry.grant(token)) is not None),
        None,
    )  # fmt: skip
    if grant is None:
        return None  # no token of any item: answered 401 as GitHub would
    slot, client = grant
    if item is not None and slot is not item:
        reason = f"{what}: refused: a token of another item was used from this item's jail"
        item.violations.append(reason)
        return reason
    offered = slot.offered if slot.offered is not None else MODE_CLIENTS.get(slot.mode or "")
    if offered is None:
        return None
    allowed = offered | _EVERY_MODE
    agent = client_of_agent(headers.get("user-agent", ""))
    foreign = next((c for c in (client, agent) if c is not None and c not in allowed), None)
    if foreign is None:
        return None
    own = ", ".join(sorted(_NAMES.get(c, c) for c in offered))
    reason = (
        f"{what}: refused: made by {_NAMES.get(foreign, foreign)}, which mode {slot.mode} does "
        f"not offer (its interface: {own})"
    )
    slot.violations.append(reason)
    return reason
