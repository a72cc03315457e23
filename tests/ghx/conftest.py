"""ghx capabilities run over HTTP against a sandbox world served by one API server per module.

``ok``/``error`` are the helpers the capability tests use: they perform a capability through
the API on the test's world (registered with the server under a fresh token), so reads and
writes reach the world only through GitHub's REST and GraphQL APIs.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.ghx import run_capability
from pytest_ghxbench.github.client import GitHubClient
from pytest_ghxbench.sandbox.api.server import ApiServer
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import World

OWNER, NAME = "acme-labs", "tinykv"
REPO = {"owner": OWNER, "name": NAME}

_SERVER: ApiServer | None = None
_CLIENTS: dict[int, tuple[str, GitHubClient]] = {}


@pytest.fixture(scope="session", autouse=True)
def _api_server() -> Iterator[ApiServer]:
    global _SERVER
    with (
        tempfile.TemporaryDirectory(prefix="ghxbench-test-") as state,
        ApiServer(Path(state)) as server,
    ):
        _SERVER = server
        yield server
        _SERVER = None
        _CLIENTS.clear()


def client_for(world: World) -> GitHubClient:
    """A client of the API server that acts on ``world`` (registered on first use)."""
    assert _SERVER is not None, "the session's API server is not running"
    found = _CLIENTS.get(id(world))
    if found is None:
        token, _slot = _SERVER.registry.register(world, f"test-{id(world)}")
        found = _CLIENTS[id(world)] = (token, GitHubClient(token, api_url=_SERVER.api_url))
    return found[1]


def forget(world: World) -> None:
    """Withdraw ``world``'s token from the server."""
    found = _CLIENTS.pop(id(world), None)
    if found is not None and _SERVER is not None:
        _SERVER.registry.unregister(found[0])


@pytest.fixture
def world() -> Iterator[World]:
    built = fresh_world()
    yield built
    forget(built)


def run(world: World, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
    """The envelope of capability ``task`` performed over HTTP on ``world``."""
    envelope = run_capability(client_for(world), task, input)
    json.dumps(envelope)  # always serialisable
    return envelope


def ok(world: World, task: str, input: Mapping[str, Any]) -> Any:
    """The data of a capability call that must succeed."""
    envelope = run(world, task, input)
    assert envelope["ok"], envelope["error"]
    return envelope["data"]


def error(world: World, task: str, input: Mapping[str, Any]) -> dict[str, str]:
    """The error of a capability call that must fail."""
    envelope = run(world, task, input)
    assert not envelope["ok"] and envelope["data"] is None, envelope
    found: dict[str, str] = envelope["error"]
    return found


def _comparable(envelope: Mapping[str, Any]) -> dict[str, Any]:
    """What must agree between the world capability and the HTTP one: ok, the error's code and
    the data without page cursors (each side has its own cursor format)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: {**v, "endCursor": None} if k == "pageInfo" and isinstance(v, dict) else strip(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    error = envelope.get("error") or {}
    return {"ok": envelope["ok"], "code": error.get("code"), "data": strip(envelope["data"])}


def on_dotcom(value: Any) -> Any:
    """``value`` with the served web root (``http://127.0.0.1:PORT``) read as github.com, where
    the world-based capabilities link to."""
    assert _SERVER is not None
    root = _SERVER.api_url.removesuffix("/api/v3")
    if isinstance(value, str):
        return value.replace(root, "https://github.com")
    if isinstance(value, dict):
        return {k: on_dotcom(v) for k, v in value.items()}
    if isinstance(value, list):
        return [on_dotcom(v) for v in value]
    return value


def assert_same_as_world_capability(
    task: str, input: Mapping[str, Any], prepare: Callable[[World], None] | None = None
) -> dict[str, Any]:
    """TEMPORARY while the world-based capabilities exist: the HTTP capability answers what the
    world-based one answers on an identical fresh world (``prepare`` may change both first),
    and leaves the world in the same state. Returns the HTTP envelope."""
    from pytest_ghxbench.sandbox.capabilities.registry import run_capability as on_world

    expected_world, served = fresh_world(), fresh_world()
    if prepare is not None:
        prepare(expected_world)
        prepare(served)
    expected = on_world(expected_world, task, input)
    try:
        got = on_dotcom(run(served, task, input))
    finally:
        forget(served)
    assert _comparable(got) == _comparable(expected), (got, expected)
    state: dict[str, Any] = {"exclude": {"clock"}, "mode": "json"}
    assert served.model_dump(**state) == expected_world.model_dump(**state)
    result: dict[str, Any] = got
    return result
