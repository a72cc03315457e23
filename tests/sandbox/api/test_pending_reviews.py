"""Pending pull request reviews are a state of the world, in REST and GraphQL alike: only their
author sees them; they gather threads on lines of the diff; submitting shows them with the
event's state, deleting removes them. GitHub's refusals come with GitHub's messages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_ghxbench.sandbox.code import pull_files
from pytest_ghxbench.sandbox.git.diff import commentable_lines
from pytest_ghxbench.sandbox.state import Review, World
from tests.sandbox.api.test_graphql import graphql
from tests.sandbox.api.test_rest_conformance import call, check

PULLS = "/repos/acme-labs/tinykv/pulls/7"
REVIEWS = "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"


def a_line(world: World, side: str = "RIGHT") -> tuple[str, int]:
    """A file of PR #7 and a line of it the diff shows on ``side``."""
    pull = world.pull_request(7)
    assert pull is not None
    for change in pull_files(world, pull):
        lines = sorted(commentable_lines(change.patch or "", side))
        if lines:
            return change.path, lines[0]
    raise AssertionError("PR #7 has no commentable line")


def rest(world: World, method: str, target: str, body: Any = None) -> tuple[int, Any]:
    response = call(world, method, target, body)
    return response.status, json.loads(response.body) if response.body else None


def test_a_review_without_event_is_pending_and_seen_by_its_author_only(world: World) -> None:
    path, line = a_line(world)
    body = {"body": "draft", "comments": [{"path": path, "line": line, "body": "nit"}]}
    response = call(world, "POST", f"{PULLS}/reviews", body)
    check("POST", REVIEWS, response)
    review = json.loads(response.body)
    assert review["state"] == "PENDING" and "submitted_at" not in review
    _, listed = rest(world, "GET", f"{PULLS}/reviews")
    assert [r["state"] for r in listed][-1] == "PENDING"
    _, notes = rest(world, "GET", f"{PULLS}/comments")
    assert notes[-1]["body"] == "nit" and notes[-1]["pull_request_review_id"] == review["id"]
    # someone else's pending review is invisible to the viewer
    pull = world.pull_request(7)
    assert pull is not None
    pull.reviews.append(Review(id=1, author="mona", state="PENDING", created_at="x"))
    _, listed = rest(world, "GET", f"{PULLS}/reviews")
    assert [r["user"]["login"] for r in listed if r["state"] == "PENDING"] == ["bench-bot"]
    assert rest(world, "GET", f"{PULLS}/reviews/1")[0] == 404


def test_submitting_shows_the_review_with_the_events_state(world: World) -> None:
    path, line = a_line(world)
    _, review = rest(world, "POST", f"{PULLS}/reviews", {"comments": [
        {"path": path, "line": line, "body": "why?"}]})  # fmt: skip
    status, submitted = rest(
        world, "POST", f"{PULLS}/reviews/{review['id']}/events", {"event": "REQUEST_CHANGES"}
    )
    assert status == 200 and submitted["state"] == "CHANGES_REQUESTED"
    assert (
        submitted["submitted_at"] > "2026-03-01T12:00:01Z"
        and submitted["submitted_at"] <= world.clock
    )
    again = rest(world, "POST", f"{PULLS}/reviews/{review['id']}/events", {"event": "COMMENT"})
    assert again == (422, again[1]) and again[1]["errors"] == ["Review has already been submitted."]
    gone = rest(world, "DELETE", f"{PULLS}/reviews/{review['id']}")
    assert gone[1]["errors"] == ["Can not delete a non-pending pull request review"]


def test_deleting_a_pending_review_removes_it_and_its_threads(world: World) -> None:
    path, line = a_line(world)
    threads = len(world.pull_request(7).review_threads)  # type: ignore[union-attr]
    _, review = rest(world, "POST", f"{PULLS}/reviews", {"comments": [
        {"path": path, "line": line, "body": "gone soon"}]})  # fmt: skip
    status, deleted = rest(world, "DELETE", f"{PULLS}/reviews/{review['id']}")
    assert (status, deleted["state"]) == (200, "PENDING")
    pull = world.pull_request(7)
    assert pull is not None and len(pull.review_threads) == threads
    assert all(r.id != review["id"] for r in pull.reviews)


def test_one_pending_review_per_user_and_pull_request(world: World) -> None:
    rest(world, "POST", f"{PULLS}/reviews", {"body": "first"})
    for body in ({"body": "second"}, {"body": "ok", "event": "APPROVE"}):
        status, error = rest(world, "POST", f"{PULLS}/reviews", body)
        assert (status, error["errors"]) == (
            422,
            ["User can only have one pending review per pull request"],
        )
    # a single comment would start a review of its own: refused too
    status, error = rest(world, "POST", f"{PULLS}/comments/1900000001/replies", {"body": "+1"})
    assert (status, error["errors"][0]["message"]) == (
        422,
        "user_id can only have one pending review per pull request",
    )


@pytest.mark.parametrize(
    ("comment", "errors"),
    [
        (
            {"line": 99999},
            [
                "Pull request review thread line must be part of the diff and Pull request"
                " review thread diff hunk can't be blank"
            ],
        ),
        ({"path": "no/such/file.py", "line": 1}, ["Path could not be resolved"]),
        ({"position": 99999}, ["Position could not be resolved"]),
    ],
)
def test_line_comments_outside_the_diff_are_refused(
    world: World, comment: dict[str, Any], errors: list[str]
) -> None:
    path, _ = a_line(world)
    body = {"event": "COMMENT", "comments": [{"path": path, "body": "x", **comment}]}
    status, error = rest(world, "POST", f"{PULLS}/reviews", body)
    assert (status, error["message"], error["errors"]) == (422, "Unprocessable Entity", errors)
    assert len(world.pull_request(7).reviews) == 2  # type: ignore[union-attr]


def test_a_submitted_review_with_line_comments_in_one_call(world: World) -> None:
    path, line = a_line(world)
    left_path, left = a_line(world, "LEFT")
    body = {
        "event": "COMMENT",
        "body": "two notes",
        "comments": [
            {"path": path, "line": line, "body": "right side"},
            {"path": left_path, "line": left, "side": "LEFT", "body": "left side"},
            {"path": path, "position": 1, "body": "by position"},
        ],
    }
    status, review = rest(world, "POST", f"{PULLS}/reviews", body)
    assert (status, review["state"]) == (200, "COMMENTED")
    _, notes = rest(world, "GET", f"{PULLS}/reviews/{review['id']}/comments")
    assert [(n["body"], n["side"]) for n in notes] == [
        ("right side", "RIGHT"),
        ("left side", "LEFT"),
        ("by position", "RIGHT"),
    ]
    assert all(n["diff_hunk"].startswith("@@") for n in notes)


START = """mutation($pr: ID!) {
  addPullRequestReview(input: {pullRequestId: $pr}) { pullRequestReview { id state } } }"""
SUBMIT = """mutation($id: ID!) {
  submitPullRequestReview(input: {pullRequestReviewId: $id, event: APPROVE, body: "ok"}) {
    pullRequestReview { state submittedAt } } }"""
DELETE = """mutation($id: ID!) {
  deletePullRequestReview(input: {pullRequestReviewId: $id}) { pullRequestReview { id } } }"""
THREAD = """mutation($pr: ID!, $path: String!, $line: Int) {
  addPullRequestReviewThread(input: {pullRequestId: $pr, path: $path, line: $line, body: "hm",
                                     subjectType: LINE, side: RIGHT}) { thread { id line } } }"""
REVIEWS_OF = """query($author: String) { repository(owner: "acme-labs", name: "tinykv") {
  pullRequest(number: 7) { reviews(first: 1, author: $author) { nodes { id state } }
    reviewThreads(first: 50) { nodes { comments(first: 1) { nodes { body state } } } } } } }"""


def test_the_mcp_servers_pending_review_flow_in_graphql(world: World) -> None:
    pull = world.pull_request(7)
    assert pull is not None
    path, line = a_line(world)
    created = graphql(world, START, {"pr": pull.node_id})
    review = created["data"]["addPullRequestReview"]["pullRequestReview"]
    assert review["state"] == "PENDING"
    mine = graphql(world, REVIEWS_OF, {"author": "bench-bot"})["data"]["repository"]
    assert mine["pullRequest"]["reviews"]["nodes"] == [review]
    added = graphql(world, THREAD, {"pr": pull.node_id, "path": path, "line": line})
    assert added["data"]["addPullRequestReviewThread"]["thread"]["line"] == line
    # a line outside the diff: GitHub drops the thread without an error
    dropped = graphql(world, THREAD, {"pr": pull.node_id, "path": path, "line": 99999})
    assert dropped == {"data": {"addPullRequestReviewThread": {"thread": None}}}
    state = graphql(world, REVIEWS_OF)["data"]["repository"]["pullRequest"]
    assert state["reviewThreads"]["nodes"][-1]["comments"]["nodes"] == [
        {"body": "hm", "state": "PENDING"}
    ]
    submitted = graphql(world, SUBMIT, {"id": review["id"]})
    done = submitted["data"]["submitPullRequestReview"]["pullRequestReview"]
    assert done["state"] == "APPROVED" and done["submittedAt"] is not None
    deleted = graphql(world, DELETE, {"id": review["id"]})
    assert deleted["errors"][0]["message"] == "Can not delete a non-pending pull request review"
    assert deleted["errors"][0]["type"] == "UNPROCESSABLE"


def test_a_second_pending_review_is_refused_in_graphql(world: World) -> None:
    pull = world.pull_request(7)
    assert pull is not None
    assert "errors" not in graphql(world, START, {"pr": pull.node_id})
    again = graphql(world, START, {"pr": pull.node_id})
    assert again["errors"][0]["message"] == "User can only have one pending review per pull request"


def test_the_pending_review_routes_answer_in_the_published_shape(world: World) -> None:
    path, line = a_line(world)
    for method, suffix in (("DELETE", ""), ("POST", "/events"), ("PUT", "")):
        _, review = rest(world, "POST", f"{PULLS}/reviews", {"comments": [
            {"path": path, "line": line, "body": "x"}]})  # fmt: skip
        body = {"event": "COMMENT", "body": "edited"}
        response = call(world, method, f"{PULLS}/reviews/{review['id']}{suffix}", body)
        assert response.status == 200, response.body
        check(method, REVIEWS + "/{review_id}" + suffix, response)
        if method == "PUT":
            call(world, "DELETE", f"{PULLS}/reviews/{review['id']}")
