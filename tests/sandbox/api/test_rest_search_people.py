"""``GET /search/repositories`` and ``GET /search/users`` with GitHub's qualifiers, over the seed:
the repository ``acme-labs/tinykv`` (Python, topics key-value, storage, embedded-database,
python; 128 stars, 14 forks, 9 watchers, MIT) and its accounts (the organization
``acme-labs``, seven users, the bot ``github-actions``)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, quote

import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiUrls
from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_rest_search import Blobs

ROUTER = RestRouter()

URLS = ApiUrls.enterprise("http", "github.localhost")


@pytest.fixture(scope="module")
def world() -> World:
    return fresh_world(DEFAULT_SEED)


def search(world: World, kind: str, q: str, **params: str) -> tuple[dict[str, Any], list[str]]:
    """The answer and the gaps recorded while answering it."""
    query = "&".join([f"q={quote(q)}", *(f"{k}={v}" for k, v in params.items())])
    request = ApiRequest("GET", f"/search/{kind}", parse_qs(query), {}, b"", URLS, Blobs())
    log = GapLog()
    with request_scope(log):
        response = handle(ROUTER, world, request)
    assert response.status == 200, response.body
    return json.loads(response.body), [f"{g['kind']} {g['detail']}" for g in log.entries()]


def found(world: World, q: str) -> bool:
    answer, gaps = search(world, "repositories", q)
    assert not gaps, gaps
    return bool(answer["total_count"])


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("tinykv", True),
        ("key-value store", True),
        ("repo:acme-labs/tinykv", True),
        ("org:acme-labs user:acme-labs", True),
        ("topic:key-value", True),
        ("topic:storage topic:python", True),
        ("topic:rust", False),
        ("-topic:rust", True),
        ("topics:>3", True),
        ("topics:5", False),
        ("stars:>100", True),
        ("stars:>=128", True),
        ("stars:>128", False),
        ("stars:10..200 forks:>10", True),
        ("forks:<10", False),
        ("followers:9", True),
        ("language:python", True),
        ("language:Python topic:embedded-database", True),
        ("language:go", False),
        ("-language:go", True),
        ("license:mit", True),
        ("license:apache-2.0", False),
        ("is:public", True),
        ("is:private", False),
        ("archived:false", True),
        ("archived:true", False),
        ("fork:true", True),
        ("fork:only", False),
        ("mirror:false template:false", True),
        ("created:<2025-01-01", True),
        ("created:>2025-01-01", False),
        ("pushed:>=2026-02-27", True),
        ("good-first-issues:0 help-wanted-issues:0", True),
        ("tinykv in:name", True),
        ("embedded in:name", False),
        ("embedded in:description", True),
        ("storage in:topics", True),
        ("quick start in:readme", True),
        ("quick start", False),
        ("tinykv sort:stars", True),
        ("bogus:thing", False),
    ],
)
def test_repository_qualifiers(world: World, q: str, expected: bool) -> None:
    assert found(world, q) is expected


def test_a_qualifier_the_sandbox_does_not_evaluate_is_a_gap(world: World) -> None:
    for q, detail in [
        ("size:>100", "search repositories: qualifier size"),
        ("is:sponsorable", "search repositories: qualifier is:sponsorable"),
        ("props.team:storage", "search repositories: qualifier props.team"),
    ]:
        answer, gaps = search(world, "repositories", q)
        assert answer["total_count"] == 0 and gaps == [f"unevaluated_parameter {detail}"]


def test_a_found_repository_is_githubs_repository_item(world: World) -> None:
    answer, _ = search(world, "repositories", "topic:storage", sort="stars", order="desc")
    (item,) = answer["items"]
    assert item["full_name"] == "acme-labs/tinykv" and item["score"] == 1.0
    assert item["stargazers_count"] == 128 and item["language"] == "Python"


def test_the_language_is_the_codes_not_the_seeds(world: World) -> None:
    changed = fresh_world(DEFAULT_SEED)
    changed.repository.primary_language = "Go"
    assert found(changed, "language:python") and not found(changed, "language:go")


def logins(world: World, q: str, **params: str) -> list[str]:
    answer, gaps = search(world, "users", q, **params)
    assert not gaps, gaps
    assert answer["total_count"] == len(answer["items"]) or "per_page" in params
    return [item["login"] for item in answer["items"]]


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("type:user mona", ["mona"]),  # as the MCP server's search_users sends it
        ("type:org acme", ["acme-labs"]),  # its search_orgs
        ("type:user acme", []),
        ("type:org mona", []),
        ("Lee Kim", ["lee-k"]),
        ("kim in:name", ["lee-k"]),
        ("kim in:login", []),
        ("o in:login type:user", ["bench-bot", "mona", "dana-ops", "hubot", "octocat", "aryeko"]),
        ('fullname:"Mona Lisa"', ["mona"]),
        ("mona in:email", []),
        ("github-actions", []),  # bots are not found
        ("repos:>0", ["acme-labs"]),
        ("language:python", ["acme-labs"]),
        ("followers:>10", []),
        ("location:Berlin", []),
        ("user:octocat", ["octocat"]),
        ("octo -type:org", ["octocat"]),
    ],
)
def test_user_qualifiers(world: World, q: str, expected: list[str]) -> None:
    assert logins(world, q) == expected


def test_users_page_and_are_githubs_search_items(world: World) -> None:
    everyone = logins(world, "type:user")
    assert len(everyone) == 7 and "acme-labs" not in everyone
    assert logins(world, "type:user", per_page="3", page="3") == everyone[6:]
    answer, _ = search(world, "users", "type:org acme")
    (org,) = answer["items"]
    assert org["type"] == "Organization" and org["score"] == 1.0
    assert org["url"].endswith("/users/acme-labs")
    assert logins(world, "e", sort="repositories")[0] == "acme-labs"
    assert logins(world, "mona")[0] == "mona"  # an exact login comes first


def test_sponsorable_users_are_a_gap(world: World) -> None:
    answer, gaps = search(world, "users", "is:sponsorable")
    assert answer["total_count"] == 0
    assert gaps == ["unevaluated_parameter search users: qualifier is:sponsorable"]
