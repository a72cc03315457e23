"""The ``sandbox`` backend: an embedded GitHub world, fresh for every item, served to the real
clients by a loopback API server (:mod:`pytest_ghxbench.sandbox.api`)."""

from __future__ import annotations

import atexit
import copy
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ghxbench.api import AdapterUnavailable
from pytest_ghxbench.sandbox.api.registry import Slot, WorldRegistry
from pytest_ghxbench.sandbox.capabilities.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.clients import ClientMissing, Clients
from pytest_ghxbench.sandbox.item_env import item_environment
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, seeded
from pytest_ghxbench.sandbox.shims import SHIM_NAMES, write_shims
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.sandbox.statefile import load_world, locked_state, save_world

if TYPE_CHECKING:
    from pytest_ghxbench.sandbox.api.server import ApiServer

__all__ = ["SANDBOX_ENV", "SERVED_MODES", "ProcessEnv", "SandboxBackend", "SandboxSession"]

SERVED_MODES = frozenset({"agent_direct", "mcp"})
"""Modes whose clients (the real gh, the real MCP server) reach the world over the API."""

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
    :class:`ProcessEnv`), built for the item's mode: in ``agent_direct`` and ``mcp`` the world is
    served by the session's API server to the real gh and the real MCP server; in ``ghx`` it
    lives in a state file the ``ghx`` shim works on. From then on :attr:`world` and
    ``run_task`` read it from there. Do not mix both in one item."""

    def __init__(
        self,
        world: World,
        item_id: str,
        workdir: Path,
        mode: str | None = None,
        backend: SandboxBackend | None = None,
    ) -> None:
        self._world = world
        self.item_id = item_id
        self.workdir = workdir
        self.mode = mode
        self._backend = backend
        self.state_path: Path | None = None
        self._state_version: tuple[int, int, int] | None = None
        self._token: str | None = None
        self._slot: Slot | None = None
        self._registry: WorldRegistry | None = None
        self.env: Mapping[str, str] = ProcessEnv(self)

    @property
    def world(self) -> World:
        """The item's world, as the agent's processes last left it."""
        if self._slot is not None:
            return self._slot.world
        if self.state_path is not None and self._file_version() != self._state_version:
            with locked_state(self.state_path):
                self._world = load_world(self.state_path)
                self._state_version = self._file_version()
        return self._world

    @property
    def api_requests(self) -> list[tuple[str, str, int]]:
        """``(method, url, status)`` of the API requests the item's clients made."""
        return list(self._slot.requests) if self._slot is not None else []

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
        """The env an agent's processes need for this item's mode (see the class doc)."""
        env: dict[str, str] = {SANDBOX_ENV: "1"}
        if self.mode is not None and self._backend is not None:
            env.update(self._isolated())
        if self._slot is None:
            self.state_path = self.workdir / "sandbox-state.json"
            self.workdir.mkdir(parents=True, exist_ok=True)
            save_world(self.state_path, self._world)
            self._state_version = self._file_version()
            names = ("ghx",) if self.mode is not None else SHIM_NAMES
            env.update(write_shims(self.workdir / "bin", self.state_path, names))
        return env

    def _isolated(self) -> dict[str, str]:
        """The item's private HOME, the proxy, and its mode's client (served modes register
        the world with the API server under a fresh token)."""
        assert self._backend is not None and self.mode is not None
        server = self._backend.server()
        token = ""
        if self.mode in SERVED_MODES:
            self._registry = server.registry
            self._token, self._slot = server.registry.register(self._world, self.item_id)
            token = self._token
        return item_environment(
            mode=self.mode,
            token=token,
            proxy_url=server.proxy_url,
            bundle=server.ca.bundle_file,
            ca_file=server.ca.ca_file,
            repo=self._world.repository.full_name,
            workdir=self.workdir,
            clients=self._backend.clients,
        )

    def run_task(self, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
        """The result envelope of capability ``task`` on this item's world."""
        if self._slot is not None:
            with self._slot.held() as world:
                return run_capability(world, task, input, strict=False)
        world = self.world
        envelope = run_capability(world, task, input, strict=False)
        capability = get_capability(task)
        if self.state_path is not None and capability is not None and capability.mutates:
            with locked_state(self.state_path):
                save_world(self.state_path, world)
                self._state_version = self._file_version()
        return envelope

    def close(self) -> None:
        """Withdraw the item's token from the API server. The world (and any state file, in
        the per-attempt working directory) is garbage once the item is done."""
        if self._token is not None and self._registry is not None:
            self._registry.unregister(self._token)
            self._token = None


class SandboxBackend:
    """The embedded default backend (``--ghx-backend=sandbox``), seeded from ``seed``.

    One API server per process (the pytest session, or each xdist worker) serves every item's
    world; it starts when the first item needs it."""

    name = "sandbox"

    def __init__(self, seed: Path = DEFAULT_SEED, clients: Clients | None = None) -> None:
        self.seed = seed
        self.clients = clients or Clients()
        self._server: ApiServer | None = None
        self._state_dir: tempfile.TemporaryDirectory[str] | None = None
        self._server_lock = threading.Lock()

    def manifest(self) -> dict[str, Any]:
        """The fixture manifest of the seed (a copy: callers may modify it)."""
        return copy.deepcopy(seeded(self.seed).manifest)

    def open_session(self, item_id: str, workdir: Path, mode: str | None = None) -> SandboxSession:
        """A session on a fresh copy of the seeded world, for an item of ``mode``."""
        return SandboxSession(seeded(self.seed).fresh_world(), item_id, workdir, mode, self)

    def server(self) -> ApiServer:
        """The process's API server, started on first use."""
        with self._server_lock:
            if self._server is None:
                from pytest_ghxbench.sandbox.api.server import ApiServer

                # The session CA's files live as long as the server, then go.
                self._state_dir = tempfile.TemporaryDirectory(prefix="ghxbench-sandbox-")
                self._server = ApiServer(Path(self._state_dir.name)).start()
                atexit.register(self.close)
            return self._server

    def preflight(self, config: Any = None) -> None:
        """Once per session: the real clients the selected modes run are installed."""
        if config is None:
            return
        from pytest_ghxbench.options import selected_modes

        modes = selected_modes(config)
        try:
            if "agent_direct" in modes:
                self.clients.gh_program()
            if "mcp" in modes:
                self.clients.mcp_command()
        except ClientMissing as exc:
            raise AdapterUnavailable(f"backend 'sandbox': {exc}") from None

    def describe(self) -> str:
        """One line for the report header: the clients the modes run, with their versions."""
        versions = ", ".join(f"{name} {v}" for name, v in self.clients.versions().items())
        return f"sandbox on loopback ({versions})"

    def close(self) -> None:
        with self._server_lock:
            if self._server is not None:
                self._server.close()
                self._server = None
            if self._state_dir is not None:
                self._state_dir.cleanup()
                self._state_dir = None
