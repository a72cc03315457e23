"""A fake GitHub for the plugin-level tests of the github backend, and a project around it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from tests.github.fake_github import FakeGitHub

TOKEN = "ghp_canaryBACKEND0123456789abcdefAB"

ISSUE_BINDINGS = {
    "bindings": {
        "input.owner": "repo.owner",
        "input.name": "repo.name",
        "input.issueNumber": "resources.issue.number",
    },
    "requires": ["issue"],
}
"""A scenario ``fixture`` that binds the fixture repository and its issue."""


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    """A fake GitHub that accepts :data:`TOKEN`, which is the only token in the environment."""
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "GHXBENCH_GITHUB_REPO"):
        monkeypatch.delenv(name, raising=False)
    with FakeGitHub(token=TOKEN) as server:
        monkeypatch.setenv("FAKE_GITHUB_URL", server.url)
        yield server


def write_project(
    pytester: pytest.Pytester,
    fake: FakeGitHub,
    scenarios: Mapping[str, Mapping[str, Any]],
    *,
    adapter: str,
    backend_table: str = "",
) -> None:
    """A benchmark project on the github backend: one fixture issue in ``fake`` named by the
    manifest, the ``scenarios`` (file name → content), ``adapter`` selected."""
    issue = fake.add_issue("Crash on start", labels=["ghxbench-fixture"])
    manifest = {
        "version": 1,
        "repo": {"owner": "acme", "name": "fixtures", "full_name": "acme/fixtures"},
        "resources": {"issue": {"id": issue["node_id"], "number": issue["number"]}},
    }
    (pytester.path / "manifest.json").write_text(json.dumps(manifest))
    (pytester.path / "scenarios").mkdir()
    for name, scenario in scenarios.items():
        (pytester.path / "scenarios" / name).write_text(json.dumps(scenario))
    pytester.makepyprojecttoml(
        f'[tool.ghxbench]\nadapter = "{adapter}"\nbackend = "github"\n\n'
        "[tool.ghxbench.backends.github]\n"
        f'api_url = "{fake.url}"\nmanifest = "manifest.json"\n{backend_table}'
    )
