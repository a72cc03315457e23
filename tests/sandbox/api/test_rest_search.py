"""``GET /search/issues`` with the qualifiers agents use (seed: issues 1-6, pull requests 7-9);
GitHub's qualifiers the sandbox does not evaluate are gaps."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, quote

import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiUrls
from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from pytest_ghxbench.sandbox.state import World

ROUTER = RestRouter()

URLS = ApiUrls.enterprise("http", "github.localhost")
REPO = "repo:acme-labs/tinykv"


class Blobs:
    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        raise AssertionError("search stores no blobs")


@pytest.fixture(scope="module")
def world() -> World:
    return fresh_world(DEFAULT_SEED)


def search(world: World, q: str, **params: str) -> dict[str, object]:
    query = "&".join([f"q={quote(q)}", *(f"{k}={v}" for k, v in params.items())])
    request = ApiRequest("GET", "/search/issues", parse_qs(query), {}, b"", URLS, Blobs())
    response = handle(ROUTER, world, request)
    assert response.status == 200, response.body
    return json.loads(response.body)  # type: ignore[no-any-return]


def numbers(world: World, q: str, **params: str) -> list[int]:
    return [item["number"] for item in search(world, q, **params)["items"]]  # type: ignore[attr-defined, index]


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        (f"{REPO} is:issue is:open label:bug", {3, 5}),
        (f"{REPO} is:pr", {7, 8, 9}),
        (f"{REPO} is:pr is:merged", {9}),
        (f"{REPO} is:closed", {2, 9}),
        (f"{REPO} state:open is:issue", {1, 3, 4, 5, 6}),
        (f'{REPO} label:"good first issue"', {2}),
        (f"{REPO} label:bug label:performance is:issue", {3, 5}),
        (f"{REPO} label:question,documentation", {2, 6, 9}),
        (f"{REPO} is:issue -label:bug", {1, 2, 4, 6}),
        (f"{REPO} author:lee-k", {2, 8, 9}),
        (f"{REPO} assignee:mona is:issue", {1, 3}),
        (f"{REPO} is:issue is:open no:assignee", {4, 6}),
        (f"{REPO} no:milestone is:issue", {2, 6}),
        (f'{REPO} milestone:"v0.4.0" is:issue', {1, 3, 4, 5}),
        (f"{REPO} compaction in:title", {3, 7}),
        (f"{REPO} windows", {6}),
        (f"( compaction ) {REPO} type:issue", {1, 3, 5}),  # as gh search issues sends it
        (f"{REPO} is:issue created:>=2026-02-12", {4, 5, 6}),
        (f"{REPO} is:issue created:<2026-02-01", {1, 2}),
        (f"{REPO} is:issue created:2026-02-10..2026-02-12", {3, 4, 5}),
        (f"{REPO} repo:octo/other is:issue", {1, 2, 3, 4, 5, 6}),  # what exists is searched
        (f"{REPO} bogus:qualifier", set()),
        (f"{REPO} is:pr draft:true", {8}),
        (f"{REPO} is:pr draft:false", {7, 9}),
        (f"{REPO} merged:>=2026-01-01", {9}),
        (f"{REPO} linked:pr is:open", {3, 4}),
        (f"{REPO} linked:issue", {7, 8, 9}),
        (f"{REPO} review:changes_requested", {7}),
        (f"{REPO} review:approved", {9}),
        (f"{REPO} review:none", {8}),
        (f"{REPO} user-review-requested:lee-k", {7}),
        (f"{REPO} parent-issue:acme-labs/tinykv#1", {3, 4}),
        (f"{REPO} sub-issue:acme-labs/tinykv#3", {1}),
        (f"{REPO} is:blocked", {3}),
        (f"{REPO} is:blocking", {5}),
        (f"{REPO} type:Bug", {3, 5}),
        (f"{REPO} no:type is:issue", {2, 6}),
        (f"{REPO} project:acme-labs/1", {1, 3, 7}),
        (f"{REPO} no:project is:open", {4, 5, 6}),
        (f"{REPO} reason:completed", {2}),
        (f'{REPO} reason:"not planned"', set()),
        (f"{REPO} language:python is:pr", {7, 8, 9}),
        (f"{REPO} archived:true", set()),
        (f"{REPO} is:public is:pr", {7, 8, 9}),
        (f"{REPO} is:private", set()),
    ],
)
def test_qualifiers(world: World, q: str, expected: set[int]) -> None:
    assert set(numbers(world, q)) == expected


def test_mentions_finds_the_login_in_the_body_or_comments(world: World) -> None:
    mentioned = fresh_world(DEFAULT_SEED)
    target = mentioned.issue(6)
    assert target is not None
    target.body += "\n\ncc @dana-ops"
    assert numbers(mentioned, f"{REPO} mentions:dana-ops") == [6]
    assert numbers(world, f"{REPO} mentions:dana-ops") == []


def test_sort_qualifier_and_parameters_order_results(world: World) -> None:
    assert numbers(world, f"{REPO} is:issue sort:created-asc") == [1, 2, 3, 5, 4, 6]
    assert numbers(world, f"{REPO} is:issue sort:created-desc")[0] == 6
    assert numbers(world, f"{REPO} is:issue", sort="created", order="asc")[0] == 1
    assert numbers(world, f"{REPO} is:issue", sort="comments")[0] == 5


def test_results_are_counted_and_paged(world: World) -> None:
    result = search(world, f"{REPO} is:issue", per_page="2", page="2")
    assert (result["total_count"], result["incomplete_results"]) == (6, False)
    items = result["items"]
    assert isinstance(items, list) and len(items) == 2
    assert items[0]["score"] == 1.0 and items[0]["url"].startswith(URLS.api)


def test_a_pull_request_result_links_its_pull_request(world: World) -> None:
    item = search(world, f"{REPO} is:pr is:merged")["items"][0]  # type: ignore[index]
    assert item["pull_request"]["merged_at"] is not None
    assert item["html_url"] == f"{URLS.web}/acme-labs/tinykv/pull/9"


def test_a_missing_query_is_a_validation_error(world: World) -> None:
    request = ApiRequest("GET", "/search/issues", {}, {}, b"", URLS, Blobs())
    response = handle(ROUTER, world, request)
    assert response.status == 422
    assert json.loads(response.body)["errors"][0]["field"] == "q"


def _gaps(world: World, q: str) -> list[str]:
    log = GapLog()
    with request_scope(log):
        search(world, q)
    return [g["detail"] for g in log.entries()]


@pytest.mark.parametrize(
    ("q", "detail"),
    [
        ("team:acme-labs/core", "search issues: qualifier team"),
        ("team-review-requested:acme-labs/core", "search issues: qualifier team-review-requested"),
        ("is:queued", "search issues: qualifier is:queued"),
    ],
)
def test_githubs_qualifiers_the_sandbox_does_not_evaluate_are_gaps(
    world: World, q: str, detail: str
) -> None:
    assert numbers(world, f"{REPO} {q}") == []
    assert _gaps(world, f"{REPO} {q}") == [detail]


def test_evaluated_qualifiers_are_no_gaps(world: World) -> None:
    q = f"{REPO} draft:false review:approved linked:issue merged:>2026-01-01 language:python"
    assert numbers(world, q) == [9]
    assert _gaps(world, q) == []
