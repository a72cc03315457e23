"""The REST router answers from GitHub's description: each route bound to one of its operations,
the most specific template first, bodies checked against its schemas, every parameter the
request carried that the handler did not evaluate recorded, and a handler's own bug a 500 with a
gap, never a refusal that would pass for GitHub's."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.rest.router import RouteError
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls
from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import World

URLS = ApiUrls.dotcom("http", "github.localhost")
REPO = "/repos/acme-labs/tinykv"
LISTING = "tests.sandbox.api.routes.listing"


class _Blobs:
    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        return f"{URLS.web}/_blobs/x"


@pytest.fixture(scope="module")
def world() -> World:
    return fresh_world()


def call(
    router: RestRouter, world: World, method: str, target: str, body: Any = None
) -> tuple[ApiResponse, list[dict[str, Any]]]:
    path, _, query = target.partition("?")
    data = json.dumps(body).encode() if body is not None else b""
    request = ApiRequest(method, path, parse_qs(query), {}, data, URLS, _Blobs())
    log = GapLog()
    with request_scope(log):
        response = handle(router, world, request)
    return response, log.entries()


def details(gaps: list[dict[str, Any]]) -> list[str]:
    return [f"{g['kind']} {g['detail']}" for g in gaps]


def test_a_query_parameter_the_handler_does_not_read_is_recorded(world: World) -> None:
    router = RestRouter([LISTING])
    response, gaps = call(router, world, "GET", f"{REPO}/issues?state=open&creator=octocat")
    assert response.status == 200
    assert details(gaps) == [
        "unevaluated_parameter GET /repos/{owner}/{repo}/issues: query parameter creator"
    ]
    _, read_only = call(router, world, "GET", f"{REPO}/issues?state=closed&per_page=5")
    assert read_only == []


def test_a_default_value_or_a_parameter_github_does_not_have_is_not_recorded(
    world: World,
) -> None:
    router = RestRouter([LISTING])
    _, gaps = call(router, world, "GET", f"{REPO}/issues?direction=desc&sort=created&rainbow=1")
    assert gaps == []
    _, changed = call(router, world, "GET", f"{REPO}/issues?direction=asc")
    assert details(changed) == [
        "unevaluated_parameter GET /repos/{owner}/{repo}/issues: query parameter direction"
    ]


def test_a_query_value_outside_the_descriptions_values_is_recorded(world: World) -> None:
    router = RestRouter([LISTING])
    response, gaps = call(router, world, "GET", f"{REPO}/issues?state=bogus")
    assert response.status == 200
    assert details(gaps) == [
        "unsupported GET /repos/{owner}/{repo}/issues: query parameter state outside its values"
    ]
    _, within = call(router, world, "GET", f"{REPO}/issues?state=all")
    assert within == []


def test_a_body_field_the_handler_does_not_read_is_recorded(world: World) -> None:
    router = RestRouter([LISTING])
    response, gaps = call(router, world, "PATCH", f"{REPO}/issues/3", {"title": "t"})
    assert response.status == 200 and gaps == []
    _, unread = call(router, world, "PATCH", f"{REPO}/issues/3", {"title": "t", "state": "closed"})
    assert details(unread) == [
        "unevaluated_parameter PATCH /repos/{owner}/{repo}/issues/{issue_number}: body field state"
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"state": "bogus"},
            "Invalid request.\n\nFor 'properties/state', \"bogus\" is not a member of "
            '["open", "closed"].',
        ),
        (
            {"labels": "bug"},
            "Invalid request.\n\nFor 'properties/labels', \"bug\" is not an array.",
        ),
        (
            {"title": 2.5},
            "Invalid request.\n\nFor 'properties/title', 2.5 is not a string or an integer.",
        ),
    ],
)
def test_a_body_outside_the_descriptions_types_and_enums_is_refused(
    world: World, body: dict[str, Any], message: str
) -> None:
    router = RestRouter()
    response, _ = call(router, world, "PATCH", f"{REPO}/issues/3", body)
    assert response.status == 422
    assert json.loads(response.body)["message"] == message
    assert world.issue(3) is not None and world.issue(3).state == "OPEN"  # type: ignore[union-attr]


def test_a_body_within_the_description_is_served(world: World) -> None:
    response, _ = call(RestRouter(), world, "PATCH", f"{REPO}/issues/5", {"labels": ["bug"]})
    assert response.status == 200, response.body


def test_the_most_specific_template_wins_whatever_the_order(world: World) -> None:
    response, _ = call(RestRouter([LISTING]), world, "GET", f"{REPO}/issues/events")
    assert json.loads(response.body) == "events"
    response, _ = call(RestRouter([LISTING]), world, "GET", f"{REPO}/issues/4")
    assert json.loads(response.body) == {"number": 4}


def test_a_handlers_own_bug_is_a_fault_not_a_refusal(world: World) -> None:
    log = GapLog()
    request = ApiRequest("GET", f"{REPO}/labels", {}, {}, b"", URLS, _Blobs())
    with pytest.raises(KeyError), request_scope(log):
        handle(RestRouter([LISTING]), world, request)
    assert details(log.entries()) == ["sandbox_fault GET /repos/{owner}/{repo}/labels: KeyError"]


def test_a_route_that_is_not_one_of_githubs_operations_is_refused() -> None:
    with pytest.raises(RouteError, match=r"undocumented\._rainbows: GET .*/rainbows is not an"):
        RestRouter(["tests.sandbox.api.routes.undocumented"])


def test_every_route_is_bound_to_its_operation_id() -> None:
    routes = RestRouter().served()
    assert len(routes) > 150
    ids = {r.name: r.operation.id for r in routes if r.operation is not None}
    assert ids["GET /repos/{owner}/{repo}/issues"] == "issues/list-for-repo"
    assert ids["PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge"] == "pulls/merge"


def test_a_slashed_parameter_does_not_swallow_another_operations_path(world: World) -> None:
    router = RestRouter()
    response, gaps = call(router, world, "GET", f"{REPO}/branches/main/protection/restrictions")
    assert response.status == 404
    assert details(gaps) == [
        "unserved_route GET /repos/{owner}/{repo}/branches/{branch}/protection/restrictions"
    ]
    branch, none = call(router, world, "GET", f"{REPO}/branches/fix/compaction-lock")
    assert branch.status == 200 and json.loads(branch.body)["name"] == "fix/compaction-lock"
    assert none == []
    # a template of as many segments is GitHub's other name for the same path, not swallowed
    compare, same = call(router, world, "GET", f"{REPO}/compare/v0.3.2...main")
    assert compare.status == 200 and same == []


def test_a_branchs_protection_or_githubs_words_for_none() -> None:
    world = fresh_world()
    world.repository.protected_branches = ["main"]
    router = RestRouter()
    protected, _ = call(router, world, "GET", f"{REPO}/branches/main/protection")
    rules = json.loads(protected.body)
    assert protected.status == 200
    assert rules["required_pull_request_reviews"]["required_approving_review_count"] == 1
    bare, gaps = call(router, world, "GET", f"{REPO}/branches/fix/compaction-lock/protection")
    assert bare.status == 404 and json.loads(bare.body)["message"] == "Branch not protected"
    missing, _ = call(router, world, "GET", f"{REPO}/branches/nope/protection")
    assert json.loads(missing.body)["message"] == "Branch not found"
    assert gaps == []
