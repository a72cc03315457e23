"""The ``sandbox`` backend: an embedded GitHub world, fresh for every item."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import run_capability
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, seeded
from pytest_ghxbench.sandbox.state import World

__all__ = ["SANDBOX_ENV", "SandboxBackend", "SandboxSession"]

SANDBOX_ENV = "GHXBENCH_SANDBOX"
"""Set to ``"1"`` in the environment the sandbox gives an agent's tools."""


class SandboxSession:
    """One item's private world. ``run_task`` runs a capability on it (lenient input: unknown
    keys are ignored, as checkpoint inputs overlay a scenario's whole bound input)."""

    def __init__(self, world: World, item_id: str, workdir: Path) -> None:
        self.world = world
        self.item_id = item_id
        self.workdir = workdir
        self.env: Mapping[str, str] = {SANDBOX_ENV: "1"}

    def run_task(self, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
        """The result envelope of capability ``task`` on this item's world."""
        return run_capability(self.world, task, input, strict=False)

    def close(self) -> None:
        """Nothing to release: the world is garbage once the item is done."""


class SandboxBackend:
    """The embedded default backend (``--ghx-backend=sandbox``), seeded from ``seed``."""

    name = "sandbox"

    def __init__(self, seed: Path = DEFAULT_SEED) -> None:
        self.seed = seed

    def manifest(self) -> dict[str, Any]:
        """The fixture manifest of the seed (a copy: callers may modify it)."""
        return copy.deepcopy(seeded(self.seed).manifest)

    def open_session(self, item_id: str, workdir: Path) -> SandboxSession:
        """A session on a fresh copy of the seeded world."""
        return SandboxSession(seeded(self.seed).fresh_world(), item_id, workdir)
