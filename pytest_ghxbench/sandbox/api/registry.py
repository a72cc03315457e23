"""Which world a request acts on: one slot per item, found by the item's token.

One server serves many items (every item of a pytest session, or of an xdist worker); each item
registers its own world and gets a fresh token, and a request acts on the world its token
names, under that world's lock, so an item never sees another's state."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.state import World

__all__ = ["TOKEN_PREFIX", "Slot", "WorldRegistry"]

TOKEN_PREFIX = "ghs_sbx"
"""Sandbox tokens look like GitHub installation tokens (``ghs_...``), so clients that check the
prefix accept them, and are recognisable as the sandbox's in any log."""


@dataclass
class Slot:
    """One item's world, its lock and what was asked of it."""

    world: World
    label: str
    lock: threading.RLock = field(default_factory=threading.RLock)
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    """``(method, url, status)`` of every API request on this world, in order."""
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
        self._lock = threading.Lock()

    def register(self, world: World, label: str = "") -> tuple[str, Slot]:
        """A new token for ``world``; the caller unregisters it when the item is done."""
        token = f"{TOKEN_PREFIX}_{secrets.token_hex(16)}"
        slot = Slot(world, label)
        with self._lock:
            self._slots[token] = slot
        return token, slot

    def unregister(self, token: str) -> None:
        with self._lock:
            self._slots.pop(token, None)

    def get(self, token: str) -> Slot | None:
        with self._lock:
            return self._slots.get(token)
