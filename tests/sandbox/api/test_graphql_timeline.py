"""GraphQL ``timelineItems`` of issues and pull requests: the items (comments, commits, reviews
and the world's events as GitHub's event types), ``itemTypes`` and ``since``, pages by cursor,
``skip``, the counts, events by node id, and no sandbox gap for any of it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pytest_ghxbench.sandbox.api.registry import Slot
from pytest_ghxbench.sandbox.code import pull_commits
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from tests.sandbox.api.test_graphql import post

REPO = 'repository(owner:"acme-labs",name:"tinykv")'
ON_ISSUES = """
__typename
... on IssueComment { databaseId author { login } }
... on LabeledEvent { id actor { login } createdAt label { name } labelable { __typename } }
... on UnlabeledEvent { label { name } }
... on AssignedEvent { assignee { ... on User { login } } user { login } }
... on MilestonedEvent { milestoneTitle subject { ... on Issue { number } } }
... on RenamedTitleEvent { previousTitle currentTitle }
... on ClosedEvent { actor { login } stateReason url
    closer { __typename ... on PullRequest { number } } }
... on ReopenedEvent { stateReason }
... on CrossReferencedEvent { willCloseTarget isCrossRepository
    source { ... on Issue { number } ... on PullRequest { number } }
    target { ... on Issue { number } } }
... on ReferencedEvent { commit { oid } isDirectReference }
"""
EVENTS = (
    ON_ISSUES
    + """
... on PullRequestCommit { id url commit { oid } pullRequest { number } }
... on PullRequestReview { state author { login } }
... on MergedEvent { commit { oid } mergeRefName actor { login } }
... on HeadRefDeletedEvent { headRefName headRef { name } }
... on ReviewRequestedEvent { requestedReviewer { ... on User { login } } }
... on ReadyForReviewEvent { actor { login } url }
... on ConvertToDraftEvent { actor { login } }
"""
)


@pytest.fixture
def slot() -> Slot:
    return Slot(fresh_world(DEFAULT_SEED), "item")


def ask(slot: Slot, query: str, variables: dict[str, Any] | None = None) -> Any:
    with slot.held() as world:
        status, answer = post(world, json.dumps({"query": query, "variables": variables}).encode())
    assert status == 200
    assert "errors" not in answer, answer["errors"]
    return answer["data"]


def timeline(slot: Slot, subject: str, arguments: str = "first: 100", fields: str = "") -> Any:
    query = (
        f"{{ {REPO} {{ {subject} {{ timelineItems({arguments}) {{ totalCount filteredCount "
        f"pageCount updatedAt pageInfo {{ hasNextPage hasPreviousPage startCursor endCursor }} "
        f"nodes {{ {fields or (EVENTS if 'pull' in subject else ON_ISSUES)} }} }} }} }} }}"
    )
    data = ask(slot, query)["repository"]
    found: Any = data[subject.split("(")[0]]["timelineItems"]
    return found


def mutate(slot: Slot, mutation: str) -> None:
    ask(slot, f"mutation {{ {mutation} {{ clientMutationId }} }}")


def node_id(slot: Slot, subject: str) -> str:
    found: str = ask(slot, f"{{ {REPO} {{ {subject} {{ id }} }} }}")["repository"][
        subject.split("(")[0]
    ]["id"]
    return found


def test_a_pull_request_lists_its_commits_and_reviews(slot: Slot) -> None:
    kinds = "itemTypes: [PULL_REQUEST_COMMIT, PULL_REQUEST_REVIEW], first: 10"
    found = timeline(slot, "pullRequest(number: 7)", kinds)
    with slot.held() as world:
        pull = world.pull_request(7)
        assert pull is not None
        shas = [c.sha for c in pull_commits(world, pull)]
    nodes = found["nodes"]
    assert [n["commit"]["oid"] for n in nodes if n["__typename"] == "PullRequestCommit"] == shas
    reviews = [(n["state"], n["author"]["login"]) for n in nodes if "state" in n]
    assert reviews == [("CHANGES_REQUESTED", "dana-ops"), ("COMMENTED", "hubot")]
    assert found["totalCount"] == 5 == found["pageCount"]
    commit = nodes[0]
    assert commit["url"].endswith(f"/pull/7/commits/{shas[0]}")
    assert commit["pullRequest"] == {"number": 7}


def test_an_issue_lists_its_comments_in_order_among_its_events(slot: Slot) -> None:
    found = timeline(slot, "issue(number: 5)")
    kinds = [n["__typename"] for n in found["nodes"]]
    assert kinds == [
        "LabeledEvent", "LabeledEvent", "AssignedEvent", "MilestonedEvent",
        "IssueComment", "IssueComment", "IssueComment", "ReferencedEvent",
    ]  # fmt: skip
    comments = [n["databaseId"] for n in found["nodes"] if n["__typename"] == "IssueComment"]
    assert comments == [2650000011, 2650000012, 2650000013]
    assert found["updatedAt"] == "2026-02-20T08:40:00Z"  # the commit that references it
    labeled = found["nodes"][0]
    assert (labeled["actor"], labeled["label"], labeled["labelable"]) == (
        {"login": "mona"},
        {"name": "bug"},
        {"__typename": "Issue"},
    )


def test_cross_references_say_where_from_and_whether_they_close(slot: Slot) -> None:
    found = timeline(slot, "issue(number: 3)", "first: 10, itemTypes: [CROSS_REFERENCED_EVENT]")
    assert [(n["source"]["number"], n["willCloseTarget"]) for n in found["nodes"]] == [
        (5, False),
        (7, True),
    ]
    assert all(n["target"] == {"number": 3} for n in found["nodes"])


def test_agent_writes_appear_as_events_by_the_viewer(slot: Slot) -> None:
    issue = node_id(slot, "issue(number: 3)")
    question = ask(slot, f'{{ {REPO} {{ label(name: "question") {{ id }} }} }}')
    label = question["repository"]["label"]["id"]
    mutate(slot, f'addLabelsToLabelable(input: {{labelableId: "{issue}", labelIds: ["{label}"]}})')
    mutate(slot, f'updateIssue(input: {{id: "{issue}", title: "Compaction stalls writers"}})')
    mutate(slot, f'closeIssue(input: {{issueId: "{issue}", stateReason: NOT_PLANNED}})')
    mutate(slot, f'reopenIssue(input: {{issueId: "{issue}"}})')
    nodes = timeline(slot, "issue(number: 3)")["nodes"][-4:]
    assert nodes[0]["label"] == {"name": "question"} and nodes[0]["actor"] == {"login": "bench-bot"}
    assert (nodes[1]["previousTitle"], nodes[1]["currentTitle"]) == (
        "Compaction stalls writers when a snapshot is taken mid-merge",
        "Compaction stalls writers",
    )
    assert (nodes[2]["__typename"], nodes[2]["stateReason"], nodes[2]["closer"]) == (
        "ClosedEvent",
        "NOT_PLANNED",
        None,
    )
    assert nodes[3] == {"__typename": "ReopenedEvent", "stateReason": "REOPENED"}


def test_a_merge_is_in_both_timelines(slot: Slot) -> None:
    pull = node_id(slot, "pullRequest(number: 7)")
    mutate(slot, f'mergePullRequest(input: {{pullRequestId: "{pull}"}})')
    merged = timeline(slot, "pullRequest(number: 7)", "last: 2")["nodes"]
    with slot.held() as world:
        sha = world.pull_request(7).merge_commit_sha  # type: ignore[union-attr]
    assert merged[0] == {
        "__typename": "MergedEvent",
        "commit": {"oid": sha},
        "mergeRefName": "main",
        "actor": {"login": "bench-bot"},
    }
    assert merged[1]["__typename"] == "ClosedEvent"
    closed = timeline(slot, "issue(number: 3)", "last: 1")["nodes"][0]
    assert closed["closer"] == {"__typename": "PullRequest", "number": 7}
    assert closed["stateReason"] == "COMPLETED"
    assert re.fullmatch(
        r"http://github\.localhost/acme-labs/tinykv/issues/3#event-\d+", closed["url"]
    )


def test_drafts_and_reviewers(slot: Slot) -> None:
    pull = node_id(slot, "pullRequest(number: 8)")
    mutate(slot, f'markPullRequestReadyForReview(input: {{pullRequestId: "{pull}"}})')
    mutate(slot, f'convertPullRequestToDraft(input: {{pullRequestId: "{pull}"}})')
    login = 'requestReviewsByLogin(input: {pullRequestId: "%s", userLogins: ["mona"], union: true})'
    mutate(slot, login % pull)
    nodes = timeline(slot, "pullRequest(number: 8)", "last: 3")["nodes"]
    assert [n["__typename"] for n in nodes] == [
        "ReadyForReviewEvent",
        "ConvertToDraftEvent",
        "ReviewRequestedEvent",
    ]
    assert nodes[2]["requestedReviewer"] == {"login": "mona"}
    deleted = timeline(slot, "pullRequest(number: 9)", "last: 1")["nodes"][0]
    assert deleted == {
        "__typename": "HeadRefDeletedEvent",
        "headRefName": "docs/readme-example",
        "headRef": None,
    }


def test_pages_by_cursor_skip_and_since(slot: Slot) -> None:
    subject = "pullRequest(number: 7)"
    whole = timeline(slot, subject)
    assert whole["totalCount"] == len(whole["nodes"]) == 11
    pages, after = [], ""
    while True:
        page = timeline(slot, subject, f"first: 4{after}")
        pages += page["nodes"]
        assert page["pageCount"] == len(page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = f', after: "{page["pageInfo"]["endCursor"]}"'
    assert pages == whole["nodes"]
    end = timeline(slot, subject, "first: 4")["pageInfo"]["endCursor"]
    rest = timeline(slot, subject, f'first: 2, after: "{end}"')
    assert rest["filteredCount"] == 7 and rest["totalCount"] == 11
    assert rest["pageInfo"]["hasPreviousPage"] is True
    skipped = timeline(slot, subject, "first: 2, skip: 3")
    assert skipped["nodes"] == whole["nodes"][3:5]
    before = timeline(slot, subject, f'last: 2, before: "{end}"')
    assert before["nodes"] == whole["nodes"][1:3]
    later = timeline(slot, subject, 'first: 20, since: "2026-02-21T11:00:00Z"')
    assert [n["__typename"] for n in later["nodes"]] == ["PullRequestReview", "PullRequestCommit"]


def test_nodes_without_first_or_last_are_refused_as_github_does(slot: Slot) -> None:
    query = f"{{ {REPO} {{ issue(number: 3) {{ timelineItems {{ nodes {{ __typename }} }} }} }} }}"
    with slot.held() as world:
        _, answer = post(world, json.dumps({"query": query}).encode())
    assert answer["errors"][0]["type"] == "MISSING_PAGINATION_BOUNDARIES"
    counted = f"{{ {REPO} {{ issue(number: 3) {{ timelineItems {{ totalCount }} }} }} }}"
    assert ask(slot, counted)["repository"]["issue"]["timelineItems"]["totalCount"] == 6


def test_an_event_is_a_node(slot: Slot) -> None:
    first = timeline(slot, "issue(number: 3)", "first: 1")["nodes"][0]
    found = ask(slot, f'{{ node(id: "{first["id"]}") {{ {EVENTS} }} }}')["node"]
    assert found == first


def test_timelines_are_no_sandbox_gap(slot: Slot) -> None:
    timeline(slot, "pullRequest(number: 7)")
    timeline(slot, "issue(number: 2)")
    assert [g for g in slot.gaps.entries() if "imeline" in g["detail"]] == []
    assert [g for g in slot.gaps.entries() if "Event" in g["detail"]] == []
