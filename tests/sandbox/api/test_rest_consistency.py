"""One object, one identity: an issue type has the same id wherever GitHub shows it, and a
milestone's creator is a user (the repository's maintainer), in REST and GraphQL alike."""

from __future__ import annotations

from pytest_ghxbench.sandbox.manifest import fresh_world
from tests.sandbox.api.test_graphql import graphql
from tests.sandbox.test_run_progress import REPO, api


def test_an_issue_type_has_one_id_on_issues_and_in_the_organizations_list() -> None:
    world = fresh_world()
    listed = {t["name"]: t for t in api(world, "GET", "/orgs/acme-labs/issue-types")}
    assert [t["id"] for t in listed.values()] == [1000001, 1000002, 1000003]
    on_issue = api(world, "GET", f"{REPO}/issues/3")["type"]
    assert on_issue == listed["Bug"]
    assert on_issue["id"] == 1000001 and on_issue["name"] == "Bug"
    answer = graphql(
        world,
        '{repository(owner:"acme-labs",name:"tinykv"){issue(number:3){issueType{id name}}}}',
    )
    assert answer["data"]["repository"]["issue"]["issueType"] == {
        "id": on_issue["node_id"],
        "name": "Bug",
    }


def test_a_milestones_creator_is_the_maintainer_not_the_organization() -> None:
    world = fresh_world()
    milestone = api(world, "GET", f"{REPO}/milestones/1")
    assert milestone["creator"]["login"] == "mona" and milestone["creator"]["type"] == "User"
    on_issue = api(world, "GET", f"{REPO}/issues/3")["milestone"]
    assert on_issue["creator"]["login"] == "mona"
    answer = graphql(
        world,
        '{repository(owner:"acme-labs",name:"tinykv"){milestone(number:1){'
        "creator{__typename login}}}}",
    )
    creator = answer["data"]["repository"]["milestone"]["creator"]
    assert creator == {"__typename": "User", "login": "mona"}


def test_a_user_owned_repositorys_milestones_are_its_owners() -> None:
    world = fresh_world()
    owner = next(u for u in world.users if u.login == "acme-labs")
    owner.type = "User"
    assert api(world, "GET", f"{REPO}/milestones/1")["creator"]["login"] == "acme-labs"
