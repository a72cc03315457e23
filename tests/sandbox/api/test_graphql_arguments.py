"""Arguments the shipped suite's clients send, evaluated as GitHub evaluates them: each test
shows the answer depends on the argument (a control with another value answers otherwise) and
that no gap is recorded for it."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.ghx.client import GitHubError, graphql_url
from pytest_ghxbench.sandbox.backend import SandboxSession

REPO = 'repository(owner: "acme-labs", name: "tinykv")'


def post(item: SandboxSession, query: str) -> Any:
    client = item.client()
    answer = client.request("POST", graphql_url(client.api_url), body={"query": query})
    assert answer.status == 200
    assert "errors" not in answer.data, answer.data
    return answer.data["data"]


def gaps(item: SandboxSession) -> list[str]:
    return [g["detail"] for g in item.sandbox_gaps()]


def _required(item: SandboxSession, number: int) -> list[bool]:
    query = (
        f"{{{REPO}{{pullRequest(number: 7){{commits(last: 1){{nodes{{commit{{statusCheckRollup"
        f"{{contexts(first: 20){{nodes{{... on CheckRun{{isRequired(pullRequestNumber: {number})"
        "}}}}}}}}}}"
    )
    pull = post(item, query)["repository"]["pullRequest"]
    nodes = pull["commits"]["nodes"][0]["commit"]["statusCheckRollup"]["contexts"]["nodes"]
    return [n["isRequired"] for n in nodes]


def test_a_check_is_required_only_for_a_pull_request_into_a_protected_branch(
    item: SandboxSession,
) -> None:
    world = item.world
    world.repository.protected_branches = ["main"]
    other = world.pull_request(8)
    assert other is not None
    other.base_ref = "develop"
    assert set(_required(item, 7)) == {True}
    assert set(_required(item, 8)) == {False}
    assert not [g for g in gaps(item) if "isRequired" in g]


def test_closed_pull_requests_are_left_out_unless_asked_for(item: SandboxSession) -> None:
    def linked(include: str) -> list[int]:
        query = (
            f"{{{REPO}{{issue(number: 3){{closedByPullRequestsReferences(first: 10{include})"
            "{nodes{number}}}}}"
        )
        found = post(item, query)["repository"]["issue"]["closedByPullRequestsReferences"]
        return [n["number"] for n in found["nodes"]]

    everything = linked(", includeClosedPrs: true")
    assert everything
    pull = item.world.pull_request(everything[0])
    assert pull is not None
    pull.state = "CLOSED"
    assert linked(", includeClosedPrs: true") == everything
    assert everything[0] not in linked("")
    assert not [g for g in gaps(item) if "includeClosedPrs" in g]


def test_a_repository_without_a_merge_queue_says_so(item: SandboxSession) -> None:
    query = f"{{{REPO}{{pullRequest(number: 7){{isInMergeQueue isMergeQueueEnabled}}}}}}"
    pull = post(item, query)["repository"]["pullRequest"]
    assert pull == {"isInMergeQueue": False, "isMergeQueueEnabled": False}
    assert gaps(item) == []


def test_a_resolvers_own_bug_is_a_500_and_a_gap_not_an_answer(
    item: SandboxSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_ghxbench.sandbox.api.graphql.resolvers import checks

    def broken(args: Any, ctx: Any) -> bool:
        raise KeyError("protection")

    monkeypatch.setattr(checks, "_required", broken)
    client = item.client()
    query = (
        f"{{{REPO}{{pullRequest(number: 7){{commits(last: 1){{nodes{{commit{{statusCheckRollup"
        "{contexts(first: 20){nodes{... on CheckRun{isRequired(pullRequestNumber: 7)"
        "}}}}}}}}}}"
    )
    with pytest.raises(GitHubError, match="HTTP 500: The sandbox failed on this request"):
        client.request("POST", graphql_url(client.api_url), body={"query": query})
    faults = [g["detail"] for g in item.sandbox_gaps() if g["kind"] == "sandbox_fault"]
    assert len(faults) == 1 and faults[0].endswith("isRequired: KeyError")


def test_over_the_page_limit_is_githubs_excessive_pagination(item: SandboxSession) -> None:
    client = item.client()
    for first, refused in ((101, True), (100, False)):
        query = f"{{{REPO}{{issues(first: {first}){{totalCount}}}}}}"
        answer = client.request("POST", graphql_url(client.api_url), body={"query": query})
        errors = answer.data.get("errors") or []
        assert [e.get("type") for e in errors] == (["EXCESSIVE_PAGINATION"] if refused else [])
