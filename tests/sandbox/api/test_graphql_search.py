"""GraphQL ``search`` of every kind the world has: issues and pull requests, the repository,
users and organizations, with the qualifiers of the REST search routes and a count per kind."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_graphql import graphql

QUERY = """query($q: String!, $type: SearchType!) {
  search(query: $q, type: $type, first: 5) {
    issueCount repositoryCount userCount discussionCount
    nodes {
      __typename
      ... on Repository { nameWithOwner stargazerCount }
      ... on User { login name }
      ... on Organization { login name }
      ... on Issue { number }
      ... on PullRequest { number }
    }
  }
}"""


@pytest.fixture(scope="module")
def world() -> World:
    return fresh_world(DEFAULT_SEED)


def search(world: World, q: str, kind: str) -> dict[str, Any]:
    answer = graphql(world, QUERY, {"q": q, "type": kind})
    assert "errors" not in answer, answer
    result: dict[str, Any] = answer["data"]["search"]
    return result


def test_a_repository_search_finds_the_repository_by_its_qualifiers(world: World) -> None:
    found = search(world, "topic:key-value stars:>100 language:python", "REPOSITORY")
    assert found["nodes"] == [
        {"__typename": "Repository", "nameWithOwner": "acme-labs/tinykv", "stargazerCount": 128}
    ]
    assert (found["repositoryCount"], found["issueCount"], found["userCount"]) == (1, 0, 0)
    assert search(world, "topic:rust", "REPOSITORY")["repositoryCount"] == 0


def test_a_user_search_finds_users_and_organizations(world: World) -> None:
    users = search(world, "type:user mona", "USER")
    assert users["nodes"] == [{"__typename": "User", "login": "mona", "name": "Mona Lisa"}]
    assert users["userCount"] == 1
    orgs = search(world, "type:org acme", "USER")
    assert orgs["nodes"] == [
        {"__typename": "Organization", "login": "acme-labs", "name": "ACME Labs"}
    ]


def test_an_issue_search_counts_issues_only(world: World) -> None:
    found = search(world, "repo:acme-labs/tinykv review:changes_requested", "ISSUE")
    assert found["nodes"] == [{"__typename": "PullRequest", "number": 7}]
    assert (found["issueCount"], found["repositoryCount"], found["userCount"]) == (1, 0, 0)
