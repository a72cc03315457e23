"""Fields of GitHub's schema the sandbox does not model: they answer null or their type's empty
value instead of failing the query, and each is recorded on the item as an ``unmodelled_field``
gap, once per request that asked for it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_ghxbench.sandbox.api.registry import Slot
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from tests.sandbox.api.test_graphql import post

REPO = 'repository(owner:"acme-labs",name:"tinykv")'


@pytest.fixture
def slot() -> Slot:
    return Slot(fresh_world(DEFAULT_SEED), "item")


def ask(slot: Slot, query: str, variables: dict[str, Any] | None = None) -> Any:
    """The answer to ``query`` as the server gives it: one request on the item's world."""
    with slot.held() as world:
        status, answer = post(world, json.dumps({"query": query, "variables": variables}).encode())
    assert status == 200
    return answer


def gaps(slot: Slot) -> list[tuple[str, str, int]]:
    return [(g["kind"], g["detail"], g["count"]) for g in slot.gaps.entries()]


def test_gh_pr_view_of_an_unmodelled_field_succeeds_with_null(slot: Slot) -> None:
    # what `gh pr view 7 --json potentialMergeCommit,title` sends
    query = (
        "query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {"
        " repository(owner: $owner, name: $repo) { pullRequest(number: $pr_number) {"
        " potentialMergeCommit{oid},title } } }"
    )
    answer = ask(slot, query, {"owner": "acme-labs", "repo": "tinykv", "pr_number": 7})
    assert answer == {
        "data": {
            "repository": {
                "pullRequest": {
                    "potentialMergeCommit": None,
                    "title": "Release the compaction lock before writing snapshots",
                }
            }
        }
    }
    assert gaps(slot) == [("unmodelled_field", "PullRequest.potentialMergeCommit", 1)]


ISSUE = ("Issue", "issue(number:3)")
PULL = ("PullRequest", "pullRequest(number:7)")
REPOSITORY = ("Repository", "")


@pytest.mark.parametrize(
    ("owner", "selection", "expected"),
    [
        pytest.param(REPOSITORY, "hasSponsorshipsEnabled", False, id="Boolean!"),
        pytest.param(ISSUE, "trackedIssuesCount", 0, id="Int!"),
        pytest.param(REPOSITORY, "projectsResourcePath", "", id="URI!"),
        pytest.param(ISSUE, "authorAssociation", "NONE", id="enum!"),
        pytest.param(PULL, "suggestedReviewers{reviewer{login}}", [], id="list!"),
        pytest.param(
            REPOSITORY,
            "deployments(first:5){totalCount nodes{id} edges{cursor} "
            "pageInfo{hasNextPage hasPreviousPage startCursor endCursor}}",
            {
                "totalCount": 0,
                "nodes": [],
                "edges": [],
                "pageInfo": {
                    "hasNextPage": False,
                    "hasPreviousPage": False,
                    "startCursor": None,
                    "endCursor": None,
                },
            },
            id="connection!",
        ),
        pytest.param(
            REPOSITORY,
            "planFeatures{codeowners maximumAssignees}",
            {"codeowners": False, "maximumAssignees": 0},
            id="object!",
        ),
        pytest.param(
            ISSUE, "hovercard{contexts{message octicon}}", {"contexts": []}, id="object! of lists"
        ),
        pytest.param(PULL, "potentialMergeCommit{oid}", None, id="object"),
        pytest.param(ISSUE, "activeLockReason", None, id="enum"),
        pytest.param(ISSUE, "isPinned", None, id="Boolean"),
    ],
)
def test_an_unmodelled_field_is_its_types_empty_value(
    slot: Slot, owner: tuple[str, str], selection: str, expected: Any
) -> None:
    owner_type, path = owner
    inner = f"{path}{{{selection}}}" if path else selection
    answer = ask(slot, f"{{{REPO}{{{inner}}}}}")
    assert "errors" not in answer, answer
    value = answer["data"]["repository"]
    if path:
        (value,) = value.values()
    (value,) = value.values()
    assert value == expected
    field = selection.split("{")[0].split("(")[0]
    # only the field itself is a gap: the empty object's own fields are part of it
    assert gaps(slot) == [("unmodelled_field", f"{owner_type}.{field}", 1)]


def test_each_request_that_meets_a_gap_counts_once(slot: Slot) -> None:
    query = f"{{{REPO}{{issues(first:10){{nodes{{number isPinned}}}}}}}}"
    first = ask(slot, query)
    assert len(first["data"]["repository"]["issues"]["nodes"]) > 1
    ask(slot, query)
    ask(slot, f"{{{REPO}{{pullRequest(number:7){{title}}}}}}")  # no gap
    assert gaps(slot) == [("unmodelled_field", "Issue.isPinned", 2)]


def test_an_unmodelled_connection_still_needs_first_or_last(slot: Slot) -> None:
    answer = ask(slot, f"{{{REPO}{{deployments{{nodes{{id}}}}}}}}")
    assert answer["errors"][0]["type"] == "MISSING_PAGINATION_BOUNDARIES"
    assert gaps(slot) == []  # GitHub refuses it too


def test_an_unmodelled_mutation_changes_nothing_and_says_so(slot: Slot) -> None:
    issue = slot.world.issues[0]
    before = slot.world.model_dump_json()
    answer = ask(slot, f'mutation{{pinIssue(input:{{issueId:"{issue.node_id}"}}){{issue{{id}}}}}}')
    assert answer["data"] == {"pinIssue": None}
    (error,) = answer["errors"]
    assert error["path"] == ["pinIssue"]
    assert error["message"] == (
        "The sandbox does not perform the pinIssue mutation; nothing was changed."
    )
    assert slot.world.model_dump_json() == before
    assert gaps(slot) == [("unmodelled_field", "Mutation.pinIssue", 1)]


def test_a_field_github_does_not_have_is_still_refused_and_no_gap(slot: Slot) -> None:
    answer = ask(slot, f"{{{REPO}{{issue(number:3){{mood}}}}}}")
    assert answer["errors"][0]["extensions"]["code"] == "undefinedField"
    assert gaps(slot) == []


def test_gaps_of_one_request_are_listed_by_detail(slot: Slot) -> None:
    ask(
        slot,
        f"{{{REPO}{{hasSponsorshipsEnabled pullRequest(number:7){{potentialMergeCommit{{oid}}}}"
        " issue(number:3){isPinned}}}",
    )
    assert gaps(slot) == [
        ("unmodelled_field", "Issue.isPinned", 1),
        ("unmodelled_field", "PullRequest.potentialMergeCommit", 1),
        ("unmodelled_field", "Repository.hasSponsorshipsEnabled", 1),
    ]
