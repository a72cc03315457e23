"""A fresh sandbox world served as GitHub's API on loopback, for the github backend's tests:
the backend then talks to it exactly as to GitHub, with only the base URL and token changed."""

from __future__ import annotations

import tempfile
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.ghx.registry import all_capabilities
from pytest_ghxbench.sandbox.api.registry import Slot
from pytest_ghxbench.sandbox.api.server import ApiServer
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import World

__all__ = ["NAME", "OWNER", "REPO", "Served", "running_server", "served_world", "world_on"]

OWNER, NAME = "acme-labs", "tinykv"
REPO = f"{OWNER}/{NAME}"
"""The repository of the sandbox's seed."""


@dataclass
class Served:
    server: ApiServer
    world: World
    token: str
    slot: Slot

    @property
    def url(self) -> str:
        """The REST root (``http://127.0.0.1:PORT/api/v3``)."""
        return self.server.api_url

    @property
    def requests(self) -> list[tuple[str, str]]:
        """``(method, path)`` of every request made with the token, in order; REST paths
        relative to the REST root, GraphQL as ``/graphql``, without query strings."""
        seen = []
        for method, url, _status in self.slot.requests:
            path = urllib.parse.urlsplit(url).path
            path = "/graphql" if path == "/api/graphql" else path.removeprefix("/api/v3")
            seen.append((method, path))
        return seen

    def client(self) -> GitHubClient:
        return GitHubClient(self.token, self.url, timeout_s=10)

    def stop(self) -> None:
        self.server.close()


def _warm_up(server: ApiServer) -> None:
    """Import now what the server imports on first use (its REST and GraphQL handlers and the
    capabilities they call): an in-process pytester run unloads the modules imported after its
    fixture was set up, and a capability module imported again registers twice."""
    all_capabilities()
    with world_on(server) as served:
        served.client().graphql("query { viewer { login } }")
        served.client().rest("GET", f"/repos/{REPO}")


@contextmanager
def running_server() -> Iterator[ApiServer]:
    """A started API server with no world yet; its handlers are loaded."""
    with tempfile.TemporaryDirectory(prefix="ghxbench-served-") as state_dir:
        server = ApiServer(Path(state_dir)).start()
        try:
            _warm_up(server)
            yield server
        finally:
            server.close()


@contextmanager
def world_on(server: ApiServer) -> Iterator[Served]:
    """A fresh world on ``server``, with a token of its own, withdrawn afterwards."""
    world = fresh_world()
    token, slot = server.registry.register(world, "github-backend-test")
    try:
        yield Served(server, world, token, slot)
    finally:
        server.registry.unregister(token)


@contextmanager
def served_world() -> Iterator[Served]:
    """A server of its own serving one fresh world (tests that stop the server use this)."""
    with running_server() as server, world_on(server) as served:
        yield served
