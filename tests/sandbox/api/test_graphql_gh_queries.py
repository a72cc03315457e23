"""The GraphQL that the real gh 2.102.0 sends, captured from it and stored in
``data/gh_queries`` (``<command>__<operation>.graphql`` and its variables), runs on a fresh
world with what a user of the command would see; mutations change the world as GitHub would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_graphql import graphql

QUERIES = Path(__file__).with_name("data") / "gh_queries"
NAMES = sorted(p.stem for p in QUERIES.glob("*.graphql"))


def run(world: World, name: str) -> Any:
    variables = json.loads((QUERIES / f"{name}.json").read_text())["variables"]
    return graphql(world, (QUERIES / f"{name}.graphql").read_text(), variables)


@pytest.mark.parametrize("name", NAMES)
def test_gh_query_validates_and_executes(world: World, name: str) -> None:
    answer = run(world, name)
    assert answer.get("data") is not None, answer
    errors = answer.get("errors", [])
    if name == "project_item_list_owner__UserOrgOwner":  # gh tells users from orgs this way
        assert [(e["type"], e["path"]) for e in errors] == [("NOT_FOUND", ["user"])]
        assert answer["data"]["organization"]["login"] == "acme-labs"
    else:
        assert errors == []


def test_issue_view_shows_type_and_dependencies_newer_than_the_published_schema(
    world: World,
) -> None:
    issue = run(world, "issue_view__IssueByNumber")["data"]["repository"]["issue"]
    assert issue["issueType"]["name"] == "Bug"
    assert [i["number"] for i in issue["blockedBy"]["nodes"]] == [5]
    assert issue["parent"]["number"] == 1


def pull(answer: Any) -> Any:
    return answer["data"]["repository"]["pullRequest"]


def test_pr_view_shows_the_pull_request(world: World) -> None:
    pr = pull(run(world, "pr_view__PullRequestByNumber"))
    assert pr["title"] == "Release the compaction lock before writing snapshots"
    assert (pr["state"], pr["isDraft"], pr["number"]) == ("OPEN", False, 7)
    assert pr["url"] == "http://github.localhost/acme-labs/tinykv/pull/7"
    assert [n["name"] for n in pr["labels"]["nodes"]] == ["bug", "performance"]
    assert pr["author"]["login"] == "mona"
    checks = pr["statusCheckRollup"]["nodes"][0]["commit"]["statusCheckRollup"]["contexts"]
    conclusions = {c["name"]: c["conclusion"] for c in checks["nodes"]}
    assert conclusions["test (3.12)"] == "FAILURE" and conclusions["lint"] == "SUCCESS"


def test_pr_view_json_shows_review_decision_and_files(world: World) -> None:
    pr = pull(run(world, "pr_view_json_title__PullRequestByNumber"))
    assert pr["reviewDecision"] == "CHANGES_REQUESTED"
    assert pr["headRefName"] == "fix/compaction-lock"
    assert pr["files"]["nodes"] and all(f["path"] for f in pr["files"]["nodes"])
    assert {r["state"] for r in pr["latestReviews"]["nodes"]} >= {"CHANGES_REQUESTED"}


def test_pr_list_and_search_find_pull_request_7(world: World) -> None:
    listed = run(world, "pr_list__PullRequestList")["data"]["repository"]["pullRequests"]
    assert 7 in [n["number"] for n in listed["nodes"]]
    found = run(world, "pr_list_search_compaction__PullRequestSearch")["data"]["search"]
    assert [n["number"] for n in found["nodes"]] == [7] and found["issueCount"] == 1


def test_issue_search_by_label_finds_open_bugs_only(world: World) -> None:
    found = run(world, "issue_list_label_bug__IssueSearch")["data"]["search"]["nodes"]
    assert found
    assert all(n["state"] == "OPEN" for n in found)
    assert all("bug" in [lab["name"] for lab in n["labels"]["nodes"]] for n in found)


def test_pr_checks_lists_each_check(world: World) -> None:
    answer = run(world, "pr_checks__PullRequestStatusChecks")
    commit = answer["data"]["node"]["statusCheckRollup"]["nodes"][0]["commit"]
    states = {c["name"]: c["conclusion"] for c in commit["statusCheckRollup"]["contexts"]["nodes"]}
    assert states["test (3.12)"] == "FAILURE"


def test_release_view_and_project_items(world: World) -> None:
    release = run(world, "release_view_v__RepositoryReleaseByTag")["data"]["repository"]["release"]
    assert release["isDraft"] is False
    project = run(world, "project_item_list_owner__OrgProjectWithItems")["data"]["organization"]
    items = project["projectV2"]["items"]
    assert items["totalCount"] == len(items["nodes"]) > 0
    assert items["nodes"][0]["content"]["url"].startswith("http://github.localhost/")


def test_pr_review_approve_adds_an_approval(world: World) -> None:
    assert "errors" not in run(world, "pr_review_approve__PullRequestReviewAdd")
    review = world.pull_request(7).reviews[-1]  # type: ignore[union-attr]
    assert (review.state, review.author) == ("APPROVED", world.viewer)


def test_pr_comment_adds_a_comment_and_returns_its_url(world: World) -> None:
    answer = run(world, "pr_comment_body_x__CommentCreate")
    comment = world.pull_request(7).comments[-1]  # type: ignore[union-attr]
    assert comment.body == "x"
    url = answer["data"]["addComment"]["commentEdge"]["node"]["url"]
    assert url == f"http://github.localhost/acme-labs/tinykv/pull/7#issuecomment-{comment.id}"


def test_pr_close_and_merge_change_the_state(world: World) -> None:
    run(world, "pr_close__PullRequestClose")
    assert world.pull_request(7).state == "CLOSED"  # type: ignore[union-attr]
    other = fresh_world(DEFAULT_SEED)
    run(other, "pr_merge_squash__PullRequestMerge")
    assert other.pull_request(7).state == "MERGED"  # type: ignore[union-attr]


def test_issue_create_close_and_reopen(world: World) -> None:
    created = run(world, "issue_create_title_t__IssueCreate")["data"]["createIssue"]["issue"]
    issue = world.issues[-1]
    assert (issue.title, issue.labels) == ("t", ["bug"])
    assert created["url"] == f"http://github.localhost/acme-labs/tinykv/issues/{issue.number}"
    run(world, "issue_close_reason_not__IssueClose")
    closed = world.issue(6)
    assert closed is not None and (closed.state, closed.state_reason) == ("CLOSED", "NOT_PLANNED")
    run(world, "issue_reopen__IssueReopen")
    assert world.issue(2).state == "OPEN"  # type: ignore[union-attr]


def test_pr_view_json_commits_names_each_commits_author(world: World) -> None:
    commits = pull(run(world, "pr_view_json_commits__PullRequestByNumber"))["commits"]["nodes"]
    assert len(commits) == 3
    for node in commits:
        authors = node["commit"]["authors"]["nodes"]
        assert [(a["name"], a["user"]["login"]) for a in authors] == [("Mona Lisa", "mona")]


def test_repository_info_for_pr_create_and_clone_has_no_parent(world: World) -> None:
    found = run(world, "repo_clone__RepositoryInfo")["data"]["repository"]
    assert found["sshUrl"] == "git@github.localhost:acme-labs/tinykv.git"
    assert found["parent"] is None and found["defaultBranchRef"] == {"name": "main"}
    assert (found["mergeCommitAllowed"], found["squashMergeAllowed"]) == (True, True)
    every = run(world, "repo_view_json_all__RepositoryInfo")["data"]["repository"]
    assert [e["node"]["name"] for e in every["languages"]["edges"]] == ["Python"]
