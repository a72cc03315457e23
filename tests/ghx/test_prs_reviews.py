"""ghx pull request reviews over HTTP: review threads, replies, resolving, reviews, review
requests; and the answers recorded when they agreed with the former in-process capabilities."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from pytest_ghxbench.attempt.checkpoints import judge_workflow
from pytest_ghxbench.ghx import run_capability
from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.manifest import bind_input
from tests.ghx import conftest as served
from tests.ghx.test_prs import same_as_world
from tests.sandbox.conftest import external_workflow, needs_external

REPO = {"owner": "acme-labs", "name": "tinykv"}
OPEN_THREADS = ["PRRT_kwDOtinykv7001", "PRRT_kwDOtinykv7002"]
RESOLVED_THREAD = "PRRT_kwDOtinykv7003"


def _input(input: dict[str, Any]) -> dict[str, Any]:
    """Pull requests are addressed in REPO, threads by node id alone."""
    return input if "threadId" in input else {**REPO, **input}


def data(world: World, task: str, **input: Any) -> Any:
    return served.ok(world, task, _input(input))


def code(world: World, task: str, **input: Any) -> str:
    return served.error(world, task, _input(input))["code"]


def thread_ids(world: World, **input: Any) -> list[str]:
    return [t["id"] for t in data(world, "pr.comments.list", prNumber=7, **input)["items"]]


# ---------------------------------------------------------------- differential

PR = {**REPO, "prNumber": 7}
DIFFERENTIAL: list[tuple[str, dict[str, Any]]] = [
    ("pr.comments.list", PR),
    ("pr.comments.list", {**PR, "unresolvedOnly": False}),
    ("pr.comments.list", {**PR, "unresolvedOnly": False, "first": 2}),
    ("pr.comments.list", {**PR, "includeOutdated": True}),
    ("pr.comments.list", {**REPO, "prNumber": 8}),
    ("pr.comments.list", {**REPO, "prNumber": 99}),
    ("pr.comments.list", {**REPO, "prNumber": 3}),
    ("pr.comment.reply", {"threadId": OPEN_THREADS[1], "body": "Done in a finally."}),
    ("pr.comment.reply", {"threadId": RESOLVED_THREAD, "body": "Late note."}),
    ("pr.comment.reply", {"threadId": "PRRT_nope", "body": "hi"}),
    ("pr.comment.reply", {"threadId": OPEN_THREADS[0], "body": ""}),
    ("pr.comment.reply", {"threadId": OPEN_THREADS[0]}),
    ("pr.comment.resolve", {"threadId": OPEN_THREADS[0]}),
    ("pr.comment.resolve", {"threadId": RESOLVED_THREAD}),
    ("pr.comment.resolve", {"threadId": "PRRT_nope"}),
    ("pr.comment.resolve", {"threadId": "PR_kwDOtinykv7"}),
    ("pr.comment.unresolve", {"threadId": RESOLVED_THREAD}),
    ("pr.comment.unresolve", {"threadId": OPEN_THREADS[1]}),
    ("pr.comment.unresolve", {"threadId": ""}),
    ("pr.reviews.list", PR),
    ("pr.reviews.list", {**PR, "first": 1}),
    ("pr.reviews.list", {**REPO, "prNumber": 9}),
    ("pr.reviews.list", {**REPO, "prNumber": 8}),
    ("pr.reviews.list", {**REPO, "prNumber": 99}),
    ("pr.review.submit_approve", PR),
    ("pr.review.submit_approve", {**PR, "body": "LGTM"}),
    ("pr.review.submit_approve", {**REPO, "prNumber": 99}),
    ("pr.review.submit_approve", {**REPO, "prNumber": 3}),
    ("pr.review.submit_comment", {**PR, "body": "Reviewed."}),
    ("pr.review.submit_comment", {**REPO, "prNumber": 9, "body": "Post-merge note."}),
    ("pr.review.submit_comment", PR),
    ("pr.review.submit_request_changes", {**PR, "body": "Please fix."}),
    ("pr.review.submit_request_changes", {**PR, "body": ""}),
    ("pr.reviewers.request", {**PR, "reviewers": ["bench-bot", "lee-k"]}),
    ("pr.reviewers.request", {**PR, "reviewers": ["lee-k", "lee-k"]}),
    ("pr.reviewers.request", {**PR, "reviewers": ["mona"]}),
    ("pr.reviewers.request", {**PR, "reviewers": ["stranger"]}),
    ("pr.reviewers.request", {**PR, "reviewers": []}),
    ("pr.reviewers.request", {**REPO, "prNumber": 9, "reviewers": ["lee-k"]}),
    ("pr.reviewers.request", {**REPO, "prNumber": 3, "reviewers": ["lee-k"]}),
]


@pytest.mark.parametrize(
    ("task", "input"), DIFFERENTIAL, ids=[f"{t}-{i}" for i, (t, _) in enumerate(DIFFERENTIAL)]
)
def test_same_as_the_world_capability(task: str, input: dict[str, Any]) -> None:
    same_as_world(task, input)


def _author_views(world: World) -> None:
    world.viewer = "mona"


def _outdated(world: World) -> None:
    pull = world.pull_request(7)
    assert pull is not None
    pull.review_threads[1].is_outdated = True


def _dana_views(world: World) -> None:
    world.viewer = "dana-ops"


PREPARED: list[tuple[str, dict[str, Any], Callable[[World], None]]] = [
    ("pr.review.submit_approve", PR, _author_views),
    ("pr.review.submit_request_changes", {**PR, "body": "x"}, _author_views),
    ("pr.review.submit_comment", {**PR, "body": "Note to self."}, _author_views),
    ("pr.review.submit_approve", {**PR, "body": "Thanks, all fixed."}, _dana_views),
    ("pr.comments.list", PR, _outdated),
    ("pr.comments.list", {**PR, "includeOutdated": True}, _outdated),
    ("pr.comment.resolve", {"threadId": OPEN_THREADS[0]}, _dana_views),
]


@pytest.mark.parametrize(
    ("task", "input", "prepare"),
    PREPARED,
    ids=[f"{t}-{p.__name__}-{i}" for i, (t, _, p) in enumerate(PREPARED)],
)
def test_same_as_the_world_capability_after_a_change(
    task: str, input: dict[str, Any], prepare: Callable[[World], None]
) -> None:
    same_as_world(task, input, prepare)


# ---------------------------------------------------------------- review threads


def test_unresolved_threads_by_default(world: World) -> None:
    listed = data(world, "pr.comments.list", prNumber=7)
    assert [t["id"] for t in listed["items"]] == OPEN_THREADS
    assert listed["filterApplied"] == {"unresolvedOnly": True, "includeOutdated": False}
    first = listed["items"][0]
    assert (first["path"], first["line"], first["subjectType"]) == (
        "src/tinykv/compaction.py",
        44,
        "LINE",
    )
    assert (first["viewerCanResolve"], first["viewerCanUnresolve"]) == (True, False)
    assert [c["authorLogin"] for c in first["comments"]] == ["dana-ops", "mona"]
    assert first["comments"][0]["url"].endswith("/pull/7#discussion_r1900000001")
    assert thread_ids(world, unresolvedOnly=False) == [*OPEN_THREADS, RESOLVED_THREAD]


def test_thread_pages(world: World) -> None:
    first = data(world, "pr.comments.list", prNumber=7, unresolvedOnly=False, first=2)
    assert [t["id"] for t in first["items"]] == OPEN_THREADS
    assert first["pageInfo"]["hasNextPage"] is True
    after = first["pageInfo"]["endCursor"]
    rest = data(world, "pr.comments.list", prNumber=7, unresolvedOnly=False, after=after)
    assert [t["id"] for t in rest["items"]] == [RESOLVED_THREAD]
    assert rest["pageInfo"]["hasNextPage"] is False


def test_outdated_threads_only_on_request(world: World) -> None:
    pull = world.pull_request(7)
    assert pull is not None
    pull.review_threads[1].is_outdated = True
    assert thread_ids(world) == OPEN_THREADS[:1]
    assert thread_ids(world, includeOutdated=True) == OPEN_THREADS


def test_resolving_hides_a_thread_from_the_unresolved_list(world: World) -> None:
    resolved = data(world, "pr.comment.resolve", threadId=OPEN_THREADS[0])
    assert resolved == {"id": OPEN_THREADS[0], "isResolved": True, "resolvedByLogin": "bench-bot"}
    assert thread_ids(world, unresolvedOnly=True) == OPEN_THREADS[1:]
    # Resolving again changes nothing.
    assert data(world, "pr.comment.resolve", threadId=OPEN_THREADS[0]) == resolved
    unresolved = data(world, "pr.comment.unresolve", threadId=RESOLVED_THREAD)
    assert unresolved == {"id": RESOLVED_THREAD, "isResolved": False, "resolvedByLogin": None}
    assert thread_ids(world) == [*OPEN_THREADS[1:], RESOLVED_THREAD]


def test_replying_appends_the_viewers_comment(world: World) -> None:
    reply = data(world, "pr.comment.reply", threadId=OPEN_THREADS[1], body="Done in a finally.")
    assert (reply["threadId"], reply["authorLogin"], reply["isResolved"]) == (
        OPEN_THREADS[1],
        "bench-bot",
        False,
    )
    thread = data(world, "pr.comments.list", prNumber=7)["items"][1]
    assert [c["body"] for c in thread["comments"]][-1] == "Done in a finally."
    assert thread["comments"][-1]["id"] == reply["id"]


@pytest.mark.parametrize(
    ("task", "input", "expected"),
    [
        ("pr.comment.resolve", {"threadId": "PRRT_nope"}, "NOT_FOUND"),
        ("pr.comment.unresolve", {"threadId": ""}, "VALIDATION"),
        ("pr.comment.reply", {"threadId": OPEN_THREADS[0], "body": ""}, "VALIDATION"),
        ("pr.comment.reply", {"threadId": OPEN_THREADS[0]}, "VALIDATION"),
        ("pr.comment.reply", {"threadId": "PRRT_nope", "body": "hi"}, "NOT_FOUND"),
    ],
)
def test_thread_refusals(world: World, task: str, input: dict[str, Any], expected: str) -> None:
    assert served.error(world, task, input)["code"] == expected


@needs_external
def test_the_fix_review_comments_checkpoint_holds_once_every_thread_is_resolved(
    world: World,
) -> None:
    scenario = external_workflow("pr-fix-review-comments-wf-001")
    bound = bind_input(scenario, seeded().manifest)
    client = served.client_for(world)

    def run_task(task: str, input: Mapping[str, Any]) -> Mapping[str, Any]:
        return run_capability(client, task, input, strict=False)

    def verdict_passes() -> bool:
        verdict = judge_workflow(
            scenario, bound_input=bound, final_text="done", tool_call_count=3, run_task=run_task
        )
        return verdict.passed

    assert not verdict_passes()
    for thread in OPEN_THREADS:
        data(world, "pr.comment.reply", threadId=thread, body="Fixed.")
        assert not verdict_passes()  # a reply alone does not resolve the thread
        data(world, "pr.comment.resolve", threadId=thread)
    assert verdict_passes()


# ---------------------------------------------------------------- reviews


def test_reviews_oldest_first(world: World) -> None:
    items = data(world, "pr.reviews.list", prNumber=7)["items"]
    assert [(r["authorLogin"], r["state"]) for r in items] == [
        ("dana-ops", "CHANGES_REQUESTED"),
        ("hubot", "COMMENTED"),
    ]
    assert items[0]["commitOid"] == seeded().seed.commits["lock-3"]
    assert items[1]["url"].endswith("/pull/7#pullrequestreview-2400000002")


@pytest.mark.parametrize(
    ("task", "event", "state"),
    [
        ("pr.review.submit_approve", "APPROVE", "APPROVED"),
        ("pr.review.submit_comment", "COMMENT", "COMMENTED"),
        ("pr.review.submit_request_changes", "REQUEST_CHANGES", "CHANGES_REQUESTED"),
    ],
)
def test_a_submitted_review_is_listed(world: World, task: str, event: str, state: str) -> None:
    result = data(world, task, prNumber=7, body="Reviewed.")
    assert (result["event"], result["submitted"], result["state"]) == (event, True, state)
    latest = data(world, "pr.reviews.list", prNumber=7)["items"][-1]
    assert (latest["id"], latest["authorLogin"], latest["state"], latest["body"]) == (
        result["id"],
        "bench-bot",
        state,
        "Reviewed.",
    )


def test_approval_does_not_outweigh_a_change_request(world: World) -> None:
    data(world, "pr.review.submit_approve", prNumber=7)
    assert data(world, "pr.reviews.list", prNumber=7)["items"][-1]["body"] == ""
    view = data(world, "pr.mergeability.view", prNumber=7)
    assert view["reviewDecision"] == "CHANGES_REQUESTED"
    # Once the reviewer who asked for changes approves, the pull request is approved.
    world.viewer = "dana-ops"
    data(world, "pr.review.submit_approve", prNumber=7, body="Thanks, all fixed.")
    assert data(world, "pr.mergeability.view", prNumber=7)["reviewDecision"] == "APPROVED"


def test_own_pull_request_can_be_commented_but_not_approved(world: World) -> None:
    world.viewer = "mona"
    assert code(world, "pr.review.submit_approve", prNumber=7) == "CONFLICT"
    assert code(world, "pr.review.submit_request_changes", prNumber=7, body="x") == "CONFLICT"
    assert data(world, "pr.review.submit_comment", prNumber=7, body="Note to self.")["submitted"]


def test_comment_and_change_requests_need_a_body(world: World) -> None:
    assert code(world, "pr.review.submit_comment", prNumber=7) == "VALIDATION"
    assert code(world, "pr.review.submit_request_changes", prNumber=7, body="") == "VALIDATION"
    assert code(world, "pr.review.submit_approve", prNumber=99) == "NOT_FOUND"
    assert len(data(world, "pr.reviews.list", prNumber=7)["items"]) == 2


# ---------------------------------------------------------------- review requests


def test_requested_reviewers_accumulate_and_reviewing_clears_the_request(world: World) -> None:
    result = data(world, "pr.reviewers.request", prNumber=7, reviewers=["bench-bot", "lee-k"])
    assert result == {"prNumber": 7, "reviewers": ["lee-k", "bench-bot"], "updated": True}
    data(world, "pr.review.submit_comment", prNumber=7, body="Looking.")
    pull = world.pull_request(7)
    assert pull is not None and pull.requested_reviewers == ["lee-k"]


@pytest.mark.parametrize(
    ("number", "reviewers", "expected"),
    [
        (7, ["mona"], "VALIDATION"),  # the author
        (7, ["stranger"], "VALIDATION"),
        (7, [], "VALIDATION"),
        (9, ["lee-k"], "CONFLICT"),  # merged
        (3, ["lee-k"], "NOT_FOUND"),  # an issue
    ],
)
def test_review_request_refusals(
    world: World, number: int, reviewers: list[str], expected: str
) -> None:
    assert code(world, "pr.reviewers.request", prNumber=number, reviewers=reviewers) == expected
