"""The ``sandbox`` backend: an embedded GitHub world, fresh for every item."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, seeded
from pytest_ghxbench.sandbox.shims import write_shims
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.sandbox.statefile import load_world, locked_state, save_world

__all__ = ["SANDBOX_ENV", "ProcessEnv", "SandboxBackend", "SandboxSession"]

SANDBOX_ENV = "GHXBENCH_SANDBOX"
"""Set to ``"1"`` in the environment the sandbox gives an agent's tools."""


class ProcessEnv(Mapping[str, str]):
    """The environment for an agent's own processes, built on first use.

    Reading it (e.g. ``{**os.environ, **request.env}``) writes the item's world to a state file
    and ``gh``/``ghx`` shims on a private ``PATH``; an adapter that works in process (the oracle)
    never reads it and pays nothing."""

    def __init__(self, session: SandboxSession) -> None:
        self._session = session
        self._env: dict[str, str] | None = None

    @property
    def materialized(self) -> bool:
        return self._env is not None

    def _values(self) -> dict[str, str]:
        if self._env is None:
            self._env = self._session.export_processes()
        return self._env

    def __getitem__(self, key: str) -> str:
        return self._values()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())


class SandboxSession:
    """One item's private world. ``run_task`` runs a capability on it (lenient input: unknown
    keys are ignored, as checkpoint inputs overlay a scenario's whole bound input).

    In process, adapters use :attr:`world`. Agents that run as processes get ``env`` (see
    :class:`ProcessEnv`): from then on the state file is where the world lives, and
    :attr:`world` and ``run_task`` read it back whenever a ``gh``/``ghx``/MCP call replaced it.
    Do not mix both in one item."""

    def __init__(self, world: World, item_id: str, workdir: Path) -> None:
        self._world = world
        self.item_id = item_id
        self.workdir = workdir
        self.state_path: Path | None = None
        self._state_version: tuple[int, int, int] | None = None
        self.env: Mapping[str, str] = ProcessEnv(self)

    @property
    def world(self) -> World:
        """The item's world, as the agent's processes last left it."""
        if self.state_path is not None and self._file_version() != self._state_version:
            with locked_state(self.state_path):
                self._world = load_world(self.state_path)
                self._state_version = self._file_version()
        return self._world

    def _file_version(self) -> tuple[int, int, int] | None:
        # Saves replace the file (new inode), so inode + size + mtime tell a new version apart
        # even within one tick of a coarse filesystem clock.
        assert self.state_path is not None
        try:
            st = os.stat(self.state_path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def export_processes(self) -> dict[str, str]:
        """Write the world to a state file and shims next to it; the env an agent needs."""
        self.state_path = self.workdir / "sandbox-state.json"
        save_world(self.state_path, self._world)
        self._state_version = self._file_version()
        return {SANDBOX_ENV: "1", **write_shims(self.workdir / "bin", self.state_path)}

    def run_task(self, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
        """The result envelope of capability ``task`` on this item's world."""
        world = self.world
        envelope = run_capability(world, task, input, strict=False)
        capability = get_capability(task)
        if self.state_path is not None and capability is not None and capability.mutates:
            with locked_state(self.state_path):
                save_world(self.state_path, world)
                self._state_version = self._file_version()
        return envelope

    def close(self) -> None:
        """Nothing to release: the world (and its state file, in the per-attempt working
        directory) is garbage once the item is done."""


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
