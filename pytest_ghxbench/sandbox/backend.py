"""The ``sandbox`` backend: an embedded GitHub world, fresh for every item, served to the real
clients by a loopback API server (:mod:`pytest_ghxbench.sandbox.api`)."""

from __future__ import annotations

import atexit
import copy
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ghxbench.api import AdapterUnavailable, ModeSpec
from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.ghx.registry import run_capability
from pytest_ghxbench.isolation.probe import Isolation
from pytest_ghxbench.modes import ModeTable
from pytest_ghxbench.modes.probe import ClientInfo, ProbeError, cli_version, probe_server
from pytest_ghxbench.sandbox.api.attribution import offered_clients
from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.api.registry import Slot, WorldRegistry
from pytest_ghxbench.sandbox.clients import MCP_SERVER, ClientMissing, Clients
from pytest_ghxbench.sandbox.code import person
from pytest_ghxbench.sandbox.git.checkout import discard, make_checkout
from pytest_ghxbench.sandbox.item_env import SANDBOX_HOST, item_environment, mode_specs
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, seeded
from pytest_ghxbench.sandbox.state import World

if TYPE_CHECKING:
    from pytest_ghxbench.isolation.jail import ItemJail
    from pytest_ghxbench.sandbox.api.gate import ItemGate
    from pytest_ghxbench.sandbox.api.server import ApiServer

__all__ = ["SANDBOX_ENV", "SERVED_MODES", "ProcessEnv", "SandboxBackend", "SandboxSession"]

SERVED_MODES = frozenset({"agent_direct", "mcp", "ghx"})
"""Modes whose clients (the real gh, the real MCP server, ghx) reach the world over the API."""

SANDBOX_API_URL = f"http://api.{SANDBOX_HOST}"
"""Where the sandbox's REST API is for clients that go through its proxy (as gh derives it)."""

SANDBOX_ENV = "GHXBENCH_SANDBOX"
"""Set to ``"1"`` in the environment the sandbox gives an agent's tools."""
NOT_ISOLATED = Isolation("none", "not configured")


def clone_url(world: World) -> str:
    """The repository's URL for git, as ``gh repo clone`` makes it for ``GH_HOST``."""
    return f"http://{SANDBOX_HOST}/{world.repository.full_name}.git"


def viewer_identity(world: World) -> tuple[str, str]:
    """The viewer as a committer: their name and ``<login>@users.noreply.github.com``."""
    who = person(world, world.viewer)
    return who.name, who.email


class ProcessEnv(Mapping[str, str]):
    """The environment for an agent's own processes, built on first use.

    Reading it (e.g. ``{**os.environ, **request.env}``) writes the item's private HOME, its
    mode's client and its checkout of the repository under the item's working directory; an
    adapter that works in process never reads it and pays nothing."""

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
    """One item's private world, served by the backend's API server under the item's own token.

    Agents' processes get ``env`` (see :class:`ProcessEnv`), built for the item's mode: the real
    gh (``agent_direct``), the real MCP server (``mcp``) or ghx (``ghx``), each pointed at the
    server, and a checkout of the repository to start in (:meth:`working_directory`). In-process
    code gets :meth:`client` (an API client acting on this world) and :attr:`world`;
    ``run_task`` performs a capability through the API (lenient input: unknown keys are
    ignored, as checkpoint inputs overlay a scenario's whole bound input).

    When the session isolates items, :meth:`jail` is the item's jail, which adapters run their
    processes in; :attr:`mode_violations` lists the requests refused because a client foreign
    to the mode (or to the item) made them."""

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
        self.checkout = workdir / "work" / world.repository.name
        """Where the item's clone of its repository is (made with its environment), beside
        ``home/`` and ``bin/``."""
        self.mode = mode
        self._backend = backend or SandboxBackend()
        self._token: str | None = None
        self._slot: Slot | None = None
        self._registry: WorldRegistry | None = None
        self._jail: ItemJail | None = None
        self._gate: ItemGate | None = None
        self.env: Mapping[str, str] = ProcessEnv(self)
        if not world.has_wall_clock:
            # the item's time: workflow runs in flight move on while its agent works
            world.use_wall_clock(time.monotonic)

    @property
    def world(self) -> World:
        """The item's world, as the agent's clients last left it."""
        return self._slot.world if self._slot is not None else self._world

    def working_directory(self) -> Path:
        """The directory agents start in: the item's checkout, made now if it is not yet."""
        dict(self.env)
        return self.checkout

    @property
    def api_requests(self) -> list[tuple[str, str, int]]:
        """``(method, url, status)`` of the API and git requests the item's clients made."""
        return list(self._slot.requests) if self._slot is not None else []

    def sandbox_gaps(self) -> list[dict[str, Any]]:
        """``[{kind, detail, count}]``: where the answers to the item's requests so far
        diverged from GitHub's (:mod:`pytest_ghxbench.sandbox.gaps`)."""
        return self._slot.gaps.entries() if self._slot is not None else []

    @property
    def backend(self) -> SandboxBackend:
        return self._backend

    def token(self) -> str:
        """The item's token, registering its world with the API server on first use."""
        if self._token is None:
            server = self._backend.server()
            self._registry = server.registry
            spec = self._backend.modes.get(self.mode) if self.mode is not None else None
            offered = offered_clients(spec) if spec is not None and not spec.builtin else None
            self._token, self._slot = server.registry.register(
                self._world, self.item_id, mode=self.mode, offered=offered
            )
        return self._token

    @property
    def mode_violations(self) -> list[str]:
        """Requests the sandbox refused because a client the item's mode does not offer (or a
        token of another item) made them, one line each."""
        return list(self._slot.violations) if self._slot is not None else []

    @property
    def isolated(self) -> bool:
        """Whether the item's processes run jailed (:meth:`jail`)."""
        return self._backend.isolation.jailed

    def jail(self) -> ItemJail | None:
        """The item's jail (opened on first call, with its gate on the API server), or
        ``None`` when the session does not isolate items."""
        if not self.isolated:
            return None
        if self._jail is None:
            from pytest_ghxbench.sandbox.jailing import open_item_jail

            env = dict(self.env)
            assert self._slot is not None
            self._jail, self._gate = open_item_jail(
                isolation=self._backend.isolation,
                server=self._backend.server(),
                slot=self._slot,
                policy=self._backend.policy,
                mode=self.mode,
                clients=self._backend.clients,
                workdir=self.workdir,
                env=env,
                modes=self._backend.modes,
            )
        return self._jail

    def client(self) -> GitHubClient:
        """An API client that acts on this item's world, addressing the sandbox's GitHub the
        way the item's clients do (``api.github.localhost`` through the proxy), so what it
        reads (URLs included) is what they read."""
        token = self.token()
        return self._backend.client(token)

    def export_processes(self) -> dict[str, str]:
        """The env an agent's processes need for this item's mode: a private HOME, the
        sandbox's proxy and CA, and the mode's client on ``PATH``; and the item's checkout."""
        token = self.token()
        server = self._backend.server()
        assert self._slot is not None
        git_token = server.registry.git_token(self._slot)
        tokens = {
            spec.client_id: server.registry.client_token(self._slot, spec.client_id)
            for spec in mode_specs(self.mode, self._backend.modes)
        }
        env: dict[str, str] = {SANDBOX_ENV: "1"}
        with self._slot.held() as world:
            identity = viewer_identity(world)
            env.update(
                item_environment(
                    mode=self.mode,
                    token=token,
                    proxy_url=server.proxy_url,
                    bundle=server.ca.bundle_file,
                    ca_file=server.ca.ca_file,
                    repo=world.repository.full_name,
                    workdir=self.workdir,
                    clients=self._backend.clients,
                    git_token=git_token,
                    identity=identity,
                    tokens=tokens,
                    modes=self._backend.modes,
                    checkout=self.checkout,
                )
            )
            if not self.checkout.exists():
                make_checkout(world.git, self.checkout, clone_url(world), identity)
        return env

    def run_task(self, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
        """The result envelope of capability ``task`` performed on this item's world."""
        return run_capability(self.client(), task, input, strict=False)

    def close(self) -> None:
        """Withdraw the item's tokens from the API server and delete its checkout (in the
        background). The world is garbage once the item is done."""
        if self._gate is not None:
            self._gate.close()
            self._gate = None
        if self._token is not None and self._registry is not None:
            self._registry.unregister(self._token)
            self._token = None
        if isinstance(self.env, ProcessEnv) and self.env.materialized:
            discard(self.checkout)


def _warm_up() -> None:
    """Build GitHub's GraphQL schema while the first item's client starts, not during its
    first query."""
    from pytest_ghxbench.sandbox.api.graphql.binding import github_schema

    github_schema()


class SandboxBackend:
    """The embedded default backend (``--ghx-backend=sandbox``), seeded from ``seed``.

    One API server per process (the pytest session, or each xdist worker) serves every item's
    world; it starts when the first item needs it."""

    name = "sandbox"

    def __init__(
        self,
        seed: Path = DEFAULT_SEED,
        clients: Clients | None = None,
        modes: ModeTable | None = None,
    ) -> None:
        self.seed = seed
        self.clients = clients or Clients()
        self.modes = modes or ModeTable.builtin()
        """Every mode the session knows (built-in and declared)."""
        self.interfaces: dict[str, ClientInfo] = {}
        """The selected modes' clients, found by :meth:`preflight` (run.json records them)."""
        self.isolation = NOT_ISOLATED
        self.policy = HostPolicy()
        """Where items may go besides GitHub: the adapter's model endpoint and the hosts
        allowed with ``--ghx-allow-host`` (see :meth:`isolate`)."""
        self._server: ApiServer | None = None
        self._state_dir: tempfile.TemporaryDirectory[str] | None = None
        self._server_lock = threading.Lock()

    def isolate(self, isolation: Isolation, policy: HostPolicy) -> None:
        """Run items as ``isolation`` says, letting them reach the hosts ``policy`` allows."""
        self.isolation = isolation
        self.policy = policy
        if self._server is not None:
            self._server.policy = policy

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
                self._server.policy = self.policy
                atexit.register(self.close)
                threading.Thread(target=_warm_up, name="ghxbench-warm-up", daemon=True).start()
            return self._server

    def client(self, token: str) -> GitHubClient:
        """An API client acting on the world registered under ``token``."""
        return GitHubClient(token, api_url=SANDBOX_API_URL, proxy=self.server().proxy_url)

    def preflight(self, config: Any = None) -> None:
        """Once per session: the real clients the selected modes run are installed, and each
        declared mode's client answers (a CLI's version, an MCP server's ``initialize``)."""
        if config is None:
            return
        from pytest_ghxbench.options import selected_modes

        versions = self.clients.versions()
        for mode in selected_modes(config):
            spec = self.modes.get(mode)
            if spec is None:
                continue
            try:
                self.interfaces[mode] = self._client_info(spec, versions)
            except ClientMissing as exc:
                raise AdapterUnavailable(f"backend 'sandbox': {exc}") from None
            except ProbeError as exc:
                raise AdapterUnavailable(
                    f"backend 'sandbox': {spec.where} command: the MCP server did not answer "
                    f"initialize and tools/list: {exc}"
                ) from None

    def _client_info(self, spec: ModeSpec, versions: Mapping[str, str]) -> ClientInfo:
        """What ``spec``'s client is; raises :class:`ClientMissing` where it is not installed
        (``versions``, the built-in clients', says "not installed" instead)."""
        if spec.builtin:
            if spec.kind == "mcp":
                self.clients.mcp_command()
                return ClientInfo("mcp", MCP_SERVER, versions[MCP_SERVER])
            self.clients.cli_program(spec)
            return ClientInfo("cli", spec.cli_name, versions.get(spec.cli_name, "unknown"))
        if spec.kind == "mcp":
            return probe_server(spec, self.clients.server_command(spec))
        program = self.clients.cli_program(spec)
        assert program is not None
        return ClientInfo("cli", spec.cli_name, cli_version([program]))

    def describe(self) -> str:
        """One line for the report header: the clients the modes run, with their versions."""
        versions = ", ".join(f"{name} {v}" for name, v in self.clients.versions().items())
        declared = [
            f"{mode}: {info.client} {info.version}"
            for mode, info in self.interfaces.items()
            if not self.modes[mode].builtin
        ]
        return f"sandbox on loopback ({', '.join([versions, *declared])})"

    def close(self) -> None:
        with self._server_lock:
            if self._server is not None:
                self._server.close()
                self._server = None
            if self._state_dir is not None:
                self._state_dir.cleanup()
                self._state_dir = None
