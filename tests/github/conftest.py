"""The github backend's plugin-level tests run against the sandbox's API server serving a
fresh world (:mod:`tests.github.served`), and a project around it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from pytest_ghxbench.sandbox.api.server import ApiServer
from tests.github.served import NAME, OWNER, REPO, Served, running_server, world_on

ISSUE_BINDINGS = {
    "bindings": {
        "input.owner": "repo.owner",
        "input.name": "repo.name",
        "input.issueNumber": "resources.issue.number",
    },
    "requires": ["issue"],
}
"""A scenario ``fixture`` that binds the fixture repository and its issue."""


@pytest.fixture(scope="module")
def api_server() -> Iterator[ApiServer]:
    """One server per module, started (and its handlers loaded) before any test's pytester
    snapshots the loaded modules."""
    with running_server() as server:
        yield server


@pytest.fixture
def served(api_server: ApiServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    """A fresh world whose token is the only one in the environment (``GH_TOKEN``); the REST
    root is in ``GHXBENCH_TEST_API_URL`` for the agents of the projects under test."""
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "GHXBENCH_GITHUB_REPO"):
        monkeypatch.delenv(name, raising=False)
    with world_on(api_server) as world:
        monkeypatch.setenv("GH_TOKEN", world.token)
        monkeypatch.setenv("GHXBENCH_TEST_API_URL", world.url)
        yield world


def write_project(
    pytester: pytest.Pytester,
    served: Served,
    scenarios: Mapping[str, Mapping[str, Any]],
    *,
    adapter: str,
    backend_table: str = "",
) -> int:
    """A benchmark project on the github backend: a new issue in the served world named by the
    manifest, the ``scenarios`` (file name → content), ``adapter`` selected. Returns the
    issue's number."""
    issue = served.client().rest("POST", f"/repos/{REPO}/issues", body={"title": "Crash on start"})
    manifest = {
        "version": 1,
        "repo": {"owner": OWNER, "name": NAME, "full_name": REPO},
        "resources": {"issue": {"id": issue["node_id"], "number": issue["number"]}},
    }
    (pytester.path / "manifest.json").write_text(json.dumps(manifest))
    (pytester.path / "scenarios").mkdir()
    for name, scenario in scenarios.items():
        (pytester.path / "scenarios" / name).write_text(json.dumps(scenario))
    pytester.makepyprojecttoml(
        f'[tool.ghxbench]\nadapter = "{adapter}"\nbackend = "github"\n\n'
        "[tool.ghxbench.backends.github]\n"
        f'api_url = "{served.url}"\nmanifest = "manifest.json"\n{backend_table}'
    )
    served.slot.requests.clear()  # what the run asks, not what the setup did
    return int(issue["number"])
