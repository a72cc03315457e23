"""ghx capabilities run over HTTP against a sandbox world served by one API server per module.

``ok``/``error`` are the helpers the capability tests use: they perform a capability through
the API on the test's world (registered with the server under a fresh token), so reads and
writes reach the world only through GitHub's REST and GraphQL APIs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.ghx import run_capability
from pytest_ghxbench.ghx.client import GitHubClient
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
    """What a recorded answer fixes: ok, the error's code and the data without page cursors
    (their format is each implementation's own)."""

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
    """``value`` with the served web root (``http://127.0.0.1:PORT``) read as github.com, so
    recorded answers do not depend on the port."""
    assert _SERVER is not None
    root = _SERVER.api_url.removesuffix("/api/v3")
    if isinstance(value, str):
        return value.replace(root, "https://github.com")
    if isinstance(value, dict):
        return {k: on_dotcom(v) for k, v in value.items()}
    if isinstance(value, list):
        return [on_dotcom(v) for v in value]
    return value


GOLDEN = Path(__file__).with_name("recorded")
"""Recorded answers: ``<test module>.json``, one entry per call of :func:`assert_as_recorded`."""
_RECORD = os.environ.get("GHXBENCH_RECORD") == "1"


def _world_digest(world: World) -> str:
    state = {**world.model_dump(mode="json", exclude={"clock"}), "refs": world.git.refs()}
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]


def assert_as_recorded(
    task: str, input: Mapping[str, Any], prepare: Callable[[World], None] | None = None
) -> dict[str, Any]:
    """The capability answers, over HTTP on a fresh world (``prepare`` may change it first),
    what was recorded for this test and input: the same ok, error code and data (cursors
    aside, URLs on github.com) and the same resulting world.

    The recordings were taken when every case also agreed with the sandbox's former in-process
    capabilities (the specification the scenarios were written against). Re-record after an
    intended change with ``GHXBENCH_RECORD=1 python -m pytest tests/ghx -p no:randomly`` and
    review the diff of ``tests/ghx/recorded/``."""
    world = fresh_world()
    if prepare is not None:
        prepare(world)
    try:
        got = on_dotcom(run(world, task, input))
    finally:
        forget(world)
    observed = {"answer": _comparable(got), "world": _world_digest(world)}
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
    module, _, name = test.partition("::")
    key = f"{name} {task} {json.dumps(input, sort_keys=True)}"
    path = GOLDEN / f"{Path(module).stem}.json"
    recorded: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    if _RECORD:
        recorded[key] = observed
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    else:
        assert key in recorded, f"nothing recorded for {key!r} in {path}; see the docstring"
        assert observed == recorded[key], (observed, recorded[key])
    result: dict[str, Any] = got
    return result
