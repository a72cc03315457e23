"""The REST history of issues and pull requests: ``/issues/{n}/timeline``, ``/issues/{n}/events``,
the repository's ``/issues/events`` (and one event) and ``/issues/comments``. Each item is in
the shape GitHub's published description gives its kind (the specific schema, not only the
``anyOf`` of every kind the route's schema allows), in GitHub's order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import jsonschema  # type: ignore[import-untyped]
import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from pytest_ghxbench.sandbox.state import World

ROUTER = RestRouter()

SUBSET = json.loads((Path(__file__).parent / "data/openapi-subset.json").read_text())
URLS = ApiUrls.dotcom("http", "github.localhost")
REPO = "/repos/acme-labs/tinykv"

SCHEMAS = {
    "commented": "timeline-comment-event",
    "committed": "timeline-committed-event",
    "reviewed": "timeline-reviewed-event",
    "cross-referenced": "timeline-cross-referenced-event",
    "labeled": "labeled-issue-event",
    "unlabeled": "unlabeled-issue-event",
    "assigned": "timeline-assigned-issue-event",
    "unassigned": "timeline-unassigned-issue-event",
    "milestoned": "milestoned-issue-event",
    "demilestoned": "demilestoned-issue-event",
    "renamed": "renamed-issue-event",
    "review_requested": "review-requested-issue-event",
    "review_request_removed": "review-request-removed-issue-event",
}
"""The schema of each kind of timeline item; any other event is a ``state-change-issue-event``."""


class _Blobs:
    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        raise AssertionError("no blobs here")


def call(world: World, method: str, target: str, body: Any = None) -> ApiResponse:
    path, _, query = target.partition("?")
    data = json.dumps(body).encode() if body is not None else b""
    return handle(
        ROUTER, world, ApiRequest(method, path, parse_qs(query), {}, data, URLS, _Blobs())
    )


def get(world: World, target: str) -> Any:
    response = call(world, "GET", target)
    assert response.status == 200, response.body[:300]
    return json.loads(response.body)


def validate(value: Any, schema_name: str) -> None:
    schema = {
        "$ref": f"#/components/schemas/{schema_name}",
        "components": SUBSET["components"],
        "$schema": "http://json-schema.org/draft-07/schema#",
    }
    jsonschema.validate(value, schema)


def busy_world() -> World:
    """The seed, then every kind of write agents make to issues and pull requests."""
    world = fresh_world(DEFAULT_SEED)
    writes: list[tuple[str, str, Any]] = [
        ("POST", "/issues/3/labels", {"labels": ["question"]}),
        ("DELETE", "/issues/3/labels/performance", None),
        ("POST", "/issues/3/assignees", {"assignees": ["dana-ops"]}),
        ("DELETE", "/issues/3/assignees", {"assignees": ["mona"]}),
        ("PATCH", "/issues/3", {"milestone": 2, "title": "Compaction stalls writers"}),
        ("POST", "/issues/3/comments", {"body": "Same root cause as #5."}),
        ("PATCH", "/issues/6", {"state": "closed", "state_reason": "not_planned"}),
        ("PATCH", "/issues/6", {"state": "open"}),
        ("PATCH", "/pulls/8", {"base": "fix/compaction-lock"}),
        ("POST", "/pulls/7/requested_reviewers", {"reviewers": ["octocat"]}),
        ("DELETE", "/pulls/7/requested_reviewers", {"reviewers": ["lee-k"]}),
        ("POST", "/pulls/7/reviews", {"event": "APPROVE", "body": "ship it"}),
        ("PUT", "/pulls/7/merge", {"merge_method": "merge"}),
        ("DELETE", "/git/refs/heads/fix/compaction-lock", None),
    ]
    for method, path, body in writes:
        response = call(world, method, REPO + path, body)
        assert response.status < 300, (method, path, response.body[:300])
    return world


@pytest.fixture(scope="module")
def world() -> World:
    return busy_world()


@pytest.mark.parametrize("number", range(1, 10))
def test_every_timeline_item_is_in_the_shape_of_its_kind(world: World, number: int) -> None:
    for item in get(world, f"{REPO}/issues/{number}/timeline?per_page=100"):
        validate(item, SCHEMAS.get(item["event"], "state-change-issue-event"))
    for event in get(world, f"{REPO}/issues/{number}/events?per_page=100"):
        validate(event, SCHEMAS.get(event["event"], "state-change-issue-event"))
        assert "issue" not in event


def test_the_repository_events_carry_their_issue_and_are_newest_first(world: World) -> None:
    events = get(world, f"{REPO}/issues/events?per_page=100")
    for event in events:
        validate(event, "issue-event")
        assert event["issue"]["number"] > 0
    times = [e["created_at"] for e in events]
    assert times == sorted(times, reverse=True)
    assert {e["event"] for e in events} >= {
        "labeled", "unlabeled", "assigned", "unassigned", "milestoned", "demilestoned",
        "renamed", "closed", "reopened", "merged", "referenced", "head_ref_deleted",
        "base_ref_changed", "review_requested", "review_request_removed",
    }  # fmt: skip
    assert "cross-referenced" not in {e["event"] for e in events}  # only timelines show them
    one = get(world, f"{REPO}/issues/events/{events[0]['id']}")
    assert one == events[0]


def test_a_seeded_issue_timeline_has_its_comments_in_order() -> None:
    world = fresh_world(DEFAULT_SEED)
    timeline = get(world, f"{REPO}/issues/5/timeline")
    comments = [t for t in timeline if t["event"] == "commented"]
    assert [c["id"] for c in comments] == [2650000011, 2650000012, 2650000013]
    assert [c["actor"]["login"] for c in comments] == ["mona", "dana-ops", "hubot"]
    times = [t.get("created_at") or t.get("submitted_at") for t in timeline]
    assert times == sorted(times)
    assert [t["event"] for t in timeline][:4] == ["labeled", "labeled", "assigned", "milestoned"]
    referenced = next(t for t in timeline if t["event"] == "referenced")  # a commit says (#5)
    commit = world.git.commit(referenced["commit_id"])
    assert commit is not None and "(#5)" in commit.message
    assert referenced["commit_url"].endswith(f"/commits/{commit.sha}")


def test_what_the_seed_implies_is_in_the_history() -> None:
    world = fresh_world(DEFAULT_SEED)
    closed = get(world, f"{REPO}/issues/2/events")[-1]
    assert (closed["event"], closed["actor"]["login"], closed["state_reason"]) == (
        "closed",
        "mona",
        "completed",
    )
    merge = world.pull_request(9)
    assert merge is not None and closed["commit_id"] == merge.merge_commit_sha
    nine = [e["event"] for e in get(world, f"{REPO}/issues/9/events")]
    assert nine[-3:] == ["merged", "closed", "head_ref_deleted"]
    three = get(world, f"{REPO}/issues/3/timeline")
    sources = [t["source"]["issue"]["number"] for t in three if t["event"] == "cross-referenced"]
    assert sources == [5, 7]
    crossed = [t for t in three if t["event"] == "cross-referenced"]
    from_pull = next(t for t in crossed if "pull_request" in t["source"]["issue"])
    assert from_pull["source"]["issue"]["repository"]["full_name"] == "acme-labs/tinykv"
    seven = get(world, f"{REPO}/issues/7/timeline")
    kinds = [t["event"] for t in seven]
    assert kinds.count("committed") == 3 and kinds.count("reviewed") == 2
    reviewed = next(t for t in seven if t["event"] == "reviewed")
    assert (reviewed["state"], reviewed["user"]["login"]) == ("changes_requested", "dana-ops")


def test_writes_are_in_the_history_by_the_viewer_at_their_time(world: World) -> None:
    events = get(world, f"{REPO}/issues/3/events?per_page=100")
    mine = [e for e in events if e["actor"]["login"] == "bench-bot"]
    assert [(e["event"], e.get("label", {}).get("name")) for e in mine][:2] == [
        ("labeled", "question"),
        ("unlabeled", "performance"),
    ]
    renamed = next(e for e in mine if e["event"] == "renamed")
    assert renamed["rename"] == {
        "from": "Compaction stalls writers when a snapshot is taken mid-merge",
        "to": "Compaction stalls writers",
    }
    closed = mine[-1]  # by the merge of #7
    pull = world.pull_request(7)
    assert pull is not None and closed["commit_id"] == pull.merge_commit_sha
    assert closed["event"] == "closed" and closed["created_at"] == pull.merged_at
    six = [(e["event"], e["state_reason"]) for e in get(world, f"{REPO}/issues/6/events")[-2:]]
    assert six == [("closed", "not_planned"), ("reopened", "reopened")]
    seven = [
        (e["event"], (e.get("requested_reviewer") or {}).get("login"))
        for e in get(world, f"{REPO}/issues/7/events?per_page=100")
    ]
    assert seven[-5:] == [
        ("review_requested", "octocat"),
        ("review_request_removed", "lee-k"),
        ("merged", None),
        ("closed", None),
        ("head_ref_deleted", None),
    ]
    eight = get(world, f"{REPO}/issues/8/events")[-1]
    assert eight["event"] == "base_ref_changed"
    assert "cross-referenced" in [
        t["event"] for t in get(world, f"{REPO}/issues/5/timeline?per_page=100")
    ]


def test_an_unknown_issue_or_event_is_not_found() -> None:
    world = fresh_world(DEFAULT_SEED)
    for target in ("issues/99/timeline", "issues/99/events", "issues/events/1"):
        response = call(world, "GET", f"{REPO}/{target}")
        assert response.status == 404
        assert json.loads(response.body)["message"] == "Not Found"


def test_timelines_page_and_exclude_kinds(world: World) -> None:
    whole = get(world, f"{REPO}/issues/7/timeline?per_page=100")
    first = call(world, "GET", f"{REPO}/issues/7/timeline?per_page=4")
    assert 'rel="next"' in first.headers["Link"]
    pages, page = [], 1
    while True:
        chunk = get(world, f"{REPO}/issues/7/timeline?per_page=4&page={page}")
        if not chunk:
            break
        pages += chunk
        page += 1
    assert pages == whole
    without = get(world, f"{REPO}/issues/7/timeline?per_page=100&exclude=committed,reviewed")
    assert [t for t in whole if t["event"] not in ("committed", "reviewed")] == without


def test_the_repository_issue_comments_sort_and_filter() -> None:
    world = fresh_world(DEFAULT_SEED)
    call(world, "POST", f"{REPO}/issues/3/comments", {"body": "first new one"})
    default = get(world, f"{REPO}/issues/comments")
    for comment in default:
        validate(comment, "issue-comment")
    ids = [c["id"] for c in default]
    assert ids == sorted(ids) and len(ids) == 6  # issues' and pull requests' alike
    assert default[-1]["html_url"].endswith("/issues/3#issuecomment-4000000001")
    newest = get(world, f"{REPO}/issues/comments?sort=created&direction=desc")
    assert [c["id"] for c in newest] == sorted(ids, key=lambda i: -i)
    since = get(world, f"{REPO}/issues/comments?since=2026-02-18T00:00:00Z")
    assert [c["id"] for c in since] == [2650000013, 2650000021, 4000000001]
    paged = get(world, f"{REPO}/issues/comments?per_page=2&page=3")
    assert [c["id"] for c in paged] == ids[4:6]
