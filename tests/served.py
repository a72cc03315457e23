"""A world served over the API for tests outside ``tests/ghx``: one API server per test process,
started on first use, and capabilities performed on a given world through it."""

from __future__ import annotations

import atexit
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.ghx import run_capability
from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.sandbox.api.server import ApiServer
from pytest_ghxbench.sandbox.state import World

_SERVER: ApiServer | None = None


def _server() -> ApiServer:
    global _SERVER
    if _SERVER is None:
        state = tempfile.TemporaryDirectory(prefix="ghxbench-test-")
        _SERVER = ApiServer(Path(state.name)).start()
        atexit.register(_SERVER.close)
        atexit.register(state.cleanup)
    return _SERVER


def run_on_world(world: World, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
    """The envelope of capability ``task`` performed over the API on ``world`` (registered for
    the call only)."""
    server = _server()
    token, _slot = server.registry.register(world, "test")
    try:
        return run_capability(GitHubClient(token, api_url=server.api_url), task, input)
    finally:
        server.registry.unregister(token)
