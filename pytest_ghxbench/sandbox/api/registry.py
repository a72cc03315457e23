"""Which world a request acts on: one slot per item, found by the item's token.

One server serves many items (every item of a pytest session, or of an xdist worker); each item
registers its own world and gets a fresh token, and a request acts on the world its token
names, under that world's lock, so an item never sees another's state.

A world can also have a git-only token (:meth:`WorldRegistry.git_token`): git's smart-HTTP
endpoints accept it, the REST and GraphQL APIs refuse it (``Bad credentials``), so a shell that
must not call the API (an mcp item's) can still clone and push.

Each client of an item gets a token of its own (:meth:`WorldRegistry.client_token`: ``gh``,
``mcp``, ``ghx``; git's is the git-only one), held where only that client reads it, so the
server knows which client made a request (:mod:`.attribution`). The token :meth:`register`
returns is the harness's own (checkpoints, expected answers)."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.state import World

__all__ = ["HARNESS", "TOKEN_PREFIX", "Slot", "WorldRegistry"]

TOKEN_PREFIX = "ghs_sbx"
"""Sandbox tokens look like GitHub installation tokens (``ghs_...``), so clients that check the
prefix accept them, and are recognisable as the sandbox's in any log."""
HARNESS = "harness"
"""The client name of the token :meth:`WorldRegistry.register` returns."""
GIT = "git"


@dataclass
class Slot:
    """One item's world, its lock and what was asked of it."""

    world: World
    label: str
    lock: threading.RLock = field(default_factory=threading.RLock)
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    """``(method, url, status)`` of every API and git request on this world, in order."""
    git_only: str | None = None
    """The world's git-only token, once made."""
    mode: str | None = None
    """The item's mode: which clients may act on this world (:mod:`.attribution`)."""
    offered: frozenset[str] | None = None
    """The clients the item's mode offers (its token's client, and the real clients its
    program is, by user agent); ``None``: the built-in mode's, by name."""
    tokens: dict[str, str] = field(default_factory=dict)
    """Client name -> the token made for that client."""
    violations: list[str] = field(default_factory=list)
    """Requests refused because a client foreign to the item's mode (or another item) made
    them, one line each."""
    gaps: GapLog = field(default_factory=GapLog)
    """Where the answers to those requests diverged from GitHub's
    (:mod:`pytest_ghxbench.sandbox.gaps`)."""

    @contextmanager
    def held(self) -> Iterator[World]:
        """The world, under its lock; what the block records as gaps counts as one request's."""
        with self.lock, request_scope(self.gaps):
            yield self.world


class WorldRegistry:
    """Token -> :class:`Slot`; thread-safe."""

    def __init__(self) -> None:
        self._slots: dict[str, Slot] = {}
        self._git: dict[str, Slot] = {}
        self._clients: dict[str, str] = {}
        self._lock = threading.Lock()

    def register(
        self,
        world: World,
        label: str = "",
        mode: str | None = None,
        offered: frozenset[str] | None = None,
    ) -> tuple[str, Slot]:
        """A new token for ``world``; the caller unregisters it when the item is done."""
        token = _new_token()
        slot = Slot(world, label, mode=mode, offered=offered)
        with self._lock:
            self._slots[token] = slot
        return token, slot

    def client_token(self, slot: Slot, client: str) -> str:
        """The token of ``client`` (``gh``, ``mcp``, ``ghx``, a declared mode's name, or
        ``git`` for the git-only one) for ``slot``'s world, made on first call; withdrawn
        with the world's token."""
        if client == GIT:
            return self.git_token(slot)
        with self._lock:
            token = slot.tokens.get(client)
            if token is None:
                token = slot.tokens[client] = _new_token()
                self._slots[token] = slot
                self._clients[token] = client
            return token

    def grant(self, token: str) -> tuple[Slot, str] | None:
        """``(slot, client)`` of any token: an API token, a client's or the git-only one."""
        with self._lock:
            slot = self._slots.get(token)
            if slot is not None:
                return slot, self._clients.get(token, HARNESS)
            slot = self._git.get(token)
            return (slot, GIT) if slot is not None else None

    def git_token(self, slot: Slot) -> str:
        """The git-only token of ``slot``'s world (made on first call); withdrawn with the
        world's token."""
        with self._lock:
            if slot.git_only is None:
                slot.git_only = _new_token()
                self._git[slot.git_only] = slot
                slot.tokens[GIT] = slot.git_only
            return slot.git_only

    def unregister(self, token: str) -> None:
        with self._lock:
            slot = self._slots.pop(token, None)
            if slot is None:
                return
            for other in slot.tokens.values():
                self._slots.pop(other, None)
                self._git.pop(other, None)
                self._clients.pop(other, None)

    def get(self, token: str) -> Slot | None:
        """The world an API token names (None for git-only and unknown tokens)."""
        with self._lock:
            return self._slots.get(token)

    def get_for_git(self, token: str) -> Slot | None:
        """The world a token names for git: an API token or a git-only one."""
        with self._lock:
            return self._slots.get(token) or self._git.get(token)

    def slots(self) -> list[Slot]:
        """Every registered slot, at the time of the call."""
        with self._lock:
            return list(self._slots.values())


def _new_token() -> str:
    return f"{TOKEN_PREFIX}_{secrets.token_hex(16)}"
