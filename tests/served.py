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


def serves_pending_reviews() -> bool:
    """Whether the sandbox accepts a pending review (``addPullRequestReview`` without an
    event), with which the MCP server's only way to comment on a line of a diff starts."""
    from pytest_ghxbench.ghx.client import GitHubError
    from pytest_ghxbench.sandbox.manifest import fresh_world

    world = fresh_world()
    pull = world.pull_request(8)
    assert pull is not None
    server = _server()
    token, _slot = server.registry.register(world, "test-pending-review")
    mutation = (
        "mutation($id: ID!) { addPullRequestReview(input: {pullRequestId: $id}) "
        "{ pullRequestReview { state } } }"
    )
    try:
        GitHubClient(token, api_url=server.api_url).graphql(mutation, {"id": pull.node_id})
    except GitHubError:
        return False
    finally:
        server.registry.unregister(token)
    return True


AWAITS_PENDING_REVIEWS = (
    "the sandbox refuses pending reviews, with which the MCP server's only way to comment on a "
    "line of a diff starts (create_pending_pull_request_review)"
)
