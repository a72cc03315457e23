"""Pull requests and their reviews answered as GitHub answers them, through the item's API
server:

- ``GET /pulls`` sorts by ``updated``, ``popularity`` and ``long-running`` too, ascending unless
  the order is the creation order;
- a pull request's base must be an existing branch, and only an open one's changes; a merged
  pull request is not reopened (REST ``PATCH`` and GraphQL ``updatePullRequest`` alike, and
  nothing of the request is applied);
- a REQUEST_CHANGES or COMMENT review says something: a body or a comment on a line;
- review comments are listed by ascending id, replies with ``in_reply_to_id``, and by
  ``sort``/``direction``/``since`` (one pull request's and the repository's);
- an approval or a change request is dismissed with a message (REST and GraphQL), nothing
  else is.

Each behaviour has its control.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.ghx.client import graphql_url
from pytest_ghxbench.sandbox.backend import SandboxSession

REPO = "/repos/acme-labs/tinykv"
PULLS = f"{REPO}/pulls"
CHANGES_REQUESTED = 2400000001  # dana-ops's review of #7
COMMENTED = 2400000002  # hubot's
NEEDS_COMMENT = "You need to leave a comment indicating the requested changes."


def ask(item: SandboxSession, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """Status and body of GitHub's answer (errors are answers too)."""
    answer = item.client().request(method, path, body=body, ok_statuses=(404, 422))
    return answer.status, answer.data


def post(item: SandboxSession, query: str, variables: dict[str, Any]) -> Any:
    client = item.client()
    body = {"query": query, "variables": variables}
    answer = client.request("POST", graphql_url(client.api_url), body=body)
    assert answer.status == 200
    return answer.data


def numbers(item: SandboxSession, query: str) -> list[int]:
    status, found = ask(item, "GET", f"{PULLS}?{query}")
    assert status == 200, found
    return [p["number"] for p in found]


def ids(item: SandboxSession, path: str) -> list[int]:
    status, found = ask(item, "GET", path)
    assert status == 200, found
    return [c["id"] for c in found]


def gaps(item: SandboxSession) -> list[str]:
    return [f"{g['kind']}: {g['detail']}" for g in item.sandbox_gaps()]


def node_id(item: SandboxSession, number: int) -> str:
    pull = item.world.pull_request(number)
    assert pull is not None
    return pull.node_id


# ---------------------------------------------------------------- listing pull requests


def test_pulls_sorted_by_update_default_to_ascending(item: SandboxSession) -> None:
    # #7 was created before #8 and updated after it
    assert numbers(item, "sort=updated") == [8, 7]
    assert numbers(item, "sort=updated&direction=desc") == [7, 8]
    # control: the creation order defaults to descending
    assert numbers(item, "") == numbers(item, "sort=created") == [8, 7]
    assert numbers(item, "sort=created&direction=asc") == [7, 8]
    assert gaps(item) == []


def test_pulls_sorted_by_popularity_and_long_running(item: SandboxSession) -> None:
    # #7 has one comment, #8 none
    assert numbers(item, "sort=popularity") == [8, 7]
    assert numbers(item, "sort=popularity&direction=desc") == [7, 8]
    # neither has been open for a month
    assert numbers(item, "sort=long-running") == []
    # control: one open since January and updated this week is long-running
    pull = item.world.pull_request(8)
    assert pull is not None
    pull.created_at = "2026-01-05T10:00:00Z"
    assert numbers(item, "sort=long-running") == [8]
    assert gaps(item) == []


# ---------------------------------------------------------------- changing a pull request


def test_a_base_that_does_not_exist_is_refused(item: SandboxSession) -> None:
    status, refused = ask(item, "PATCH", f"{PULLS}/7", {"title": "New", "base": "no-such"})
    assert (status, refused["message"]) == (422, "Validation Failed")
    assert refused["errors"] == [
        {
            "message": "Proposed base branch 'no-such' was not found",
            "resource": "PullRequest",
            "field": "base",
            "code": "invalid",
        }
    ]
    _, pull = ask(item, "GET", f"{PULLS}/7")
    assert (pull["title"], pull["base"]["ref"]) == (
        "Release the compaction lock before writing snapshots",
        "main",
    )
    # control: an existing branch becomes the base, with the title
    status, changed = ask(
        item, "PATCH", f"{PULLS}/8", {"title": "New", "base": "fix/compaction-lock"}
    )
    assert status == 200, changed
    assert (changed["title"], changed["base"]["ref"]) == ("New", "fix/compaction-lock")
    _, events = ask(item, "GET", f"{REPO}/issues/8/events")
    assert "base_ref_changed" in [e["event"] for e in events]


def test_a_closed_pull_requests_base_stays(item: SandboxSession) -> None:
    status, refused = ask(item, "PATCH", f"{PULLS}/9", {"base": "fix/compaction-lock"})
    assert status == 422
    message = refused["errors"][0]["message"]
    assert message == "Cannot change the base branch of a closed pull request"


def test_a_merged_pull_request_is_not_reopened(item: SandboxSession) -> None:
    status, refused = ask(item, "PATCH", f"{PULLS}/9", {"state": "open", "title": "Again"})
    assert (status, refused["errors"]) == (
        422,
        [
            {
                "message": "state cannot be changed. The pull request cannot be reopened.",
                "resource": "PullRequest",
                "field": "state",
                "code": "custom",
            }
        ],
    )
    _, pull = ask(item, "GET", f"{PULLS}/9")
    title = "Fix the quick-start example in the README"
    assert (pull["state"], pull["merged"], pull["title"]) == ("closed", True, title)
    # control: a closed one is reopened
    status, closed = ask(item, "PATCH", f"{PULLS}/8", {"state": "closed"})
    assert (status, closed["state"], closed["closed_at"] is not None) == (200, "closed", True)
    status, reopened = ask(item, "PATCH", f"{PULLS}/8", {"state": "open"})
    assert (status, reopened["state"], reopened["closed_at"]) == (200, "open", None)
    _, events = ask(item, "GET", f"{REPO}/issues/8/events")
    assert [e["event"] for e in events][-2:] == ["closed", "reopened"]


def test_a_pull_request_whose_head_branch_is_gone_is_not_reopened(item: SandboxSession) -> None:
    assert ask(item, "PATCH", f"{PULLS}/8", {"state": "closed"})[0] == 200
    assert ask(item, "DELETE", f"{REPO}/git/refs/heads/feat/wal-fsync-policy")[0] == 204
    status, refused = ask(item, "PATCH", f"{PULLS}/8", {"state": "open"})
    assert status == 422
    message = refused["errors"][0]["message"]
    assert message == "state cannot be changed. The feat/wal-fsync-policy branch has been deleted."


UPDATE = """mutation($id: ID!, $base: String, $state: PullRequestUpdateState) {
  updatePullRequest(input: {pullRequestId: $id, baseRefName: $base, state: $state}) {
    pullRequest { baseRefName state }
  }
}"""


def test_graphql_refuses_a_missing_base_and_reopening_a_merged_one(item: SandboxSession) -> None:
    answer = post(item, UPDATE, {"id": node_id(item, 7), "base": "no-such"})
    assert answer["errors"][0]["message"] == "Proposed base branch 'no-such' was not found"
    answer = post(item, UPDATE, {"id": node_id(item, 9), "state": "OPEN"})
    message = "state cannot be changed. The pull request cannot be reopened."
    assert answer["errors"][0]["message"] == message
    # control
    answer = post(item, UPDATE, {"id": node_id(item, 8), "base": "fix/compaction-lock"})
    assert answer["data"]["updatePullRequest"]["pullRequest"] == {
        "baseRefName": "fix/compaction-lock",
        "state": "OPEN",
    }


# ---------------------------------------------------------------- reviews that say nothing


def test_a_change_request_or_comment_without_a_body_is_refused(item: SandboxSession) -> None:
    for event in ("REQUEST_CHANGES", "COMMENT"):
        status, refused = ask(item, "POST", f"{PULLS}/7/reviews", {"event": event})
        assert (status, refused["message"], refused["errors"]) == (
            422,
            "Unprocessable Entity",
            [NEEDS_COMMENT],
        )
    _, reviews = ask(item, "GET", f"{PULLS}/7/reviews")
    assert len(reviews) == 2
    # control: a body, or a comment on a line, is enough; an approval needs neither
    with_body = {"event": "REQUEST_CHANGES", "body": "Please fix."}
    assert ask(item, "POST", f"{PULLS}/7/reviews", with_body)[1]["state"] == "CHANGES_REQUESTED"
    line = {"path": "src/tinykv/compaction.py", "line": 44, "body": "Why?"}
    with_line = {"event": "COMMENT", "comments": [line]}
    assert ask(item, "POST", f"{PULLS}/7/reviews", with_line)[1]["state"] == "COMMENTED"
    assert ask(item, "POST", f"{PULLS}/7/reviews", {"event": "APPROVE"})[1]["state"] == "APPROVED"


def test_submitting_a_pending_review_without_a_body_is_refused(item: SandboxSession) -> None:
    _, pending = ask(item, "POST", f"{PULLS}/7/reviews", {})
    events = f"{PULLS}/7/reviews/{pending['id']}/events"
    status, refused = ask(item, "POST", events, {"event": "COMMENT"})
    assert (status, refused["errors"]) == (422, [NEEDS_COMMENT])
    # control
    status, submitted = ask(item, "POST", events, {"event": "COMMENT", "body": "Noted."})
    assert (status, submitted["state"]) == (200, "COMMENTED")


REVIEW = """mutation($id: ID!, $body: String) {
  addPullRequestReview(input: {pullRequestId: $id, event: REQUEST_CHANGES, body: $body}) {
    pullRequestReview { state }
  }
}"""


def test_graphql_refuses_a_change_request_without_a_body(item: SandboxSession) -> None:
    answer = post(item, REVIEW, {"id": node_id(item, 7)})
    message = f"Could not request_changes for pull request review. {NEEDS_COMMENT}"
    assert answer["errors"][0]["message"] == message
    # control
    answer = post(item, REVIEW, {"id": node_id(item, 7), "body": "Please fix."})
    state = answer["data"]["addPullRequestReview"]["pullRequestReview"]["state"]
    assert state == "CHANGES_REQUESTED"


# ---------------------------------------------------------------- review comments


def test_review_comments_are_listed_by_id_with_replies_marked(item: SandboxSession) -> None:
    status, found = ask(item, "GET", f"{PULLS}/7/comments?direction=desc")
    assert status == 200
    assert [c["id"] for c in found] == [1900000001 + n for n in range(5)]
    assert [c.get("in_reply_to_id") for c in found] == [
        None,
        1900000001,
        None,
        None,
        1900000004,
    ]
    # direction alone is ignored, as GitHub ignores it: evaluated, not a gap
    assert gaps(item) == []


def test_review_comments_sort_and_since(item: SandboxSession) -> None:
    by_creation = [1900000001, 1900000003, 1900000002, 1900000004, 1900000005]
    assert ids(item, f"{PULLS}/7/comments?sort=created") == by_creation
    desc = ids(item, f"{PULLS}/7/comments?sort=created&direction=desc")
    assert desc == by_creation[::-1]
    since = "since=2026-02-21T12:00:00Z"
    assert ids(item, f"{PULLS}/7/comments?{since}") == [1900000004, 1900000005]
    # control: the repository's list is the same for the one pull request with comments
    assert ids(item, f"{PULLS}/comments?sort=created&direction=desc") == desc
    assert ids(item, f"{PULLS}/comments?{since}") == [1900000004, 1900000005]
    assert gaps(item) == []


# ---------------------------------------------------------------- dismissing a review


def test_a_change_request_is_dismissed(item: SandboxSession) -> None:
    dismissals = f"{PULLS}/7/reviews/{CHANGES_REQUESTED}/dismissals"
    status, refused = ask(item, "PUT", dismissals, {})
    assert (status, refused["message"]) == (422, 'Invalid request.\n\n"message" wasn\'t supplied.')
    status, dismissed = ask(item, "PUT", dismissals, {"message": "Addressed", "event": "DISMISS"})
    assert (status, dismissed["state"], dismissed["id"]) == (200, "DISMISSED", CHANGES_REQUESTED)
    _, reviews = ask(item, "GET", f"{PULLS}/7/reviews")
    assert [r["state"] for r in reviews] == ["DISMISSED", "COMMENTED"]
    again = ask(item, "PUT", dismissals, {"message": "Again"})
    assert again == (422, again[1]) and again[1]["message"] == (
        "Can not dismiss a dismissed pull request review"
    )
    assert gaps(item) == []


def test_a_comment_review_is_not_dismissed(item: SandboxSession) -> None:
    dismissals = f"{PULLS}/7/reviews/{COMMENTED}/dismissals"
    status, refused = ask(item, "PUT", dismissals, {"message": "x"})
    assert (status, refused["message"]) == (422, "Can not dismiss a commented pull request review")
    assert ask(item, "PUT", f"{PULLS}/7/reviews/1/dismissals", {"message": "x"})[0] == 404


DISMISS = """mutation($id: ID!) {
  dismissPullRequestReview(input: {pullRequestReviewId: $id, message: "Stale"}) {
    pullRequestReview { state }
  }
}"""


def test_graphql_dismisses_a_change_request_only(item: SandboxSession) -> None:
    pull = item.world.pull_request(7)
    assert pull is not None
    by_id = {r.id: r.node_id for r in pull.reviews}
    answer = post(item, DISMISS, {"id": by_id[COMMENTED]})
    assert answer["errors"][0]["message"] == "Can not dismiss a commented pull request review"
    # control
    answer = post(item, DISMISS, {"id": by_id[CHANGES_REQUESTED]})
    payload = answer["data"]["dismissPullRequestReview"]
    assert payload == {"pullRequestReview": {"state": "DISMISSED"}}
