"""issue.* capabilities: the external scenarios, read-after-write, GitHub-like errors."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.sandbox.conftest import (
    REPO,
    error,
    external_atomic,
    is_registered,
    issue,
    needs_external,
    ok,
    run_scenario,
)


@needs_external
@pytest.mark.parametrize("scenario", external_atomic("issue."), ids=lambda s: s.id)
def test_external_issue_scenarios_pass_as_ghx_answers(scenario: AtomicScenario) -> None:
    envelope, verdict = run_scenario(scenario)
    assert verdict.passed, (verdict.failures, envelope)


@needs_external
def test_every_external_issue_task_is_registered() -> None:
    tasks = {s.task for s in external_atomic("issue.")}
    assert len(tasks) == 18
    assert sorted(t for t in tasks if not is_registered(t)) == []


def node(world: World, number: int) -> str:
    return issue(world, number).node_id


def comments(world: World, number: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = ok(
        world, "issue.comments.list", {**REPO, "issueNumber": number, "first": 100}
    )["items"]
    return items


def view(world: World, number: int) -> dict[str, Any]:
    data: dict[str, Any] = ok(world, "issue.view", {**REPO, "issueNumber": number})
    return data


def relations(world: World, number: int) -> dict[str, Any]:
    data: dict[str, Any] = ok(world, "issue.relations.get", {**REPO, "issueNumber": number})
    return data


def numbers(refs: list[dict[str, Any]]) -> list[int]:
    return [ref["number"] for ref in refs]


# ---------------------------------------------------------------- reads


def test_view_shows_the_issue(world: World) -> None:
    data = view(world, 3)
    assert data["title"] == "Compaction stalls writers when a snapshot is taken mid-merge"
    assert (data["state"], data["stateReason"], data["author"]) == ("OPEN", None, "dana-ops")
    assert data["labels"] == ["bug", "performance"] and data["assignees"] == ["mona"]
    assert data["milestone"]["title"] == "v0.4.0" and data["issueType"] == "Bug"
    assert data["url"] == "https://github.com/acme-labs/tinykv/issues/3"


def test_view_of_a_pull_request_number_is_not_found(world: World) -> None:
    err = error(world, "issue.view", {**REPO, "issueNumber": 7})
    assert err["code"] == "NOT_FOUND" and "#7 is a pull request" in err["message"]
    assert error(world, "issue.view", {**REPO, "issueNumber": 99})["code"] == "NOT_FOUND"


def test_list_filters_by_state_labels_and_assignee(world: World) -> None:
    def listed(**filters: Any) -> list[int]:
        return numbers(ok(world, "issue.list", {**REPO, **filters})["items"])

    assert listed() == [6, 5, 4, 3, 1]  # open, newest first
    assert listed(state="closed") == [2]
    assert listed(state="all", first=2) == [6, 5]
    assert listed(labels=["BUG", "performance"]) == [5, 3]
    assert listed(assignee="mona") == [3, 1]


def test_comments_are_listed_oldest_first_with_urls(world: World) -> None:
    items = comments(world, 5)
    assert [c["authorLogin"] for c in items] == ["mona", "dana-ops", "hubot"]
    assert items[0]["url"] == "https://github.com/acme-labs/tinykv/issues/5#issuecomment-2650000011"
    assert set(items[0]) == {"id", "body", "authorLogin", "url", "createdAt"}


def test_linked_pull_requests(world: World) -> None:
    items = ok(world, "issue.linked_prs.list", {**REPO, "issueNumber": 3})["items"]
    assert [(p["number"], p["state"]) for p in items] == [(7, "OPEN")]
    assert ok(world, "issue.linked_prs.list", {**REPO, "issueNumber": 6})["items"] == []


def test_relations_show_both_directions(world: World) -> None:
    rel = relations(world, 3)
    assert rel["parent"]["number"] == 1 and rel["children"] == []
    assert numbers(rel["blockedBy"]) == [5] and rel["blocking"] == []
    assert numbers(relations(world, 1)["children"]) == [3, 4]
    assert numbers(relations(world, 5)["blocking"]) == [3]


# ---------------------------------------------------------------- writes, read back


def test_created_comment_is_listed_with_the_viewer_as_author(world: World) -> None:
    created = ok(world, "issue.comments.create", {"issueId": node(world, 3), "body": "On it."})
    assert comments(world, 3) == [created]
    assert (created["authorLogin"], created["createdAt"]) == ("bench-bot", "2026-03-01T12:00:01Z")
    assert view(world, 3)["commentsCount"] == 1


def test_create_issue_takes_the_next_number(world: World) -> None:
    created = ok(
        world,
        "issue.create",
        {**REPO, "title": "Docs: fsync", "labels": ["Documentation"], "assignees": ["lee-k"]},
    )
    assert created["number"] == 10  # #9 is a pull request: they share the sequence
    assert view(world, 10) == created
    assert (created["labels"], created["author"]) == (["documentation"], "bench-bot")


def test_update_changes_title_and_body(world: World) -> None:
    ok(world, "issue.update", {"issueId": node(world, 3), "title": "New title"})
    data = view(world, 3)
    assert data["title"] == "New title" and data["body"].startswith("### What happened")
    err = error(world, "issue.update", {"issueId": node(world, 3)})
    assert err["code"] == "VALIDATION"


def test_close_and_reopen_like_github(world: World) -> None:
    closed = ok(world, "issue.close", {"issueId": node(world, 3), "reason": "not_planned"})
    assert (closed["state"], closed["stateReason"]) == ("CLOSED", "NOT_PLANNED")
    assert view(world, 3)["closedAt"] == "2026-03-01T12:00:01Z"
    # Closing again changes nothing (gh: "already closed", exit 0).
    assert ok(world, "issue.close", {"issueId": node(world, 3)})["stateReason"] == "NOT_PLANNED"
    assert 3 not in numbers(ok(world, "issue.list", REPO)["items"])
    reopened = ok(world, "issue.reopen", {"issueId": node(world, 3)})
    assert reopened["state"] == "OPEN"
    assert (view(world, 3)["stateReason"], view(world, 3)["closedAt"]) == ("REOPENED", None)
    assert ok(world, "issue.reopen", {"issueId": node(world, 4)})["state"] == "OPEN"


def test_labels_are_replaced_or_added_and_must_exist(world: World) -> None:
    ok(world, "issue.labels.update", {"issueId": node(world, 3), "labels": ["bug", "issues"]})
    assert view(world, 3)["labels"] == ["bug", "issues"]
    ok(world, "issue.labels.add", {"issueId": node(world, 3), "labels": ["enhancement", "bug"]})
    assert view(world, 3)["labels"] == ["bug", "issues", "enhancement"]
    err = error(world, "issue.labels.update", {"issueId": node(world, 3), "labels": ["wontfix"]})
    assert err == {"code": "NOT_FOUND", "message": "label 'wontfix' not found in acme-labs/tinykv"}
    assert view(world, 3)["labels"] == ["bug", "issues", "enhancement"]


def test_assignees_must_be_collaborators(world: World) -> None:
    ok(world, "issue.assignees.update", {"issueId": node(world, 3), "assignees": ["octocat"]})
    assert view(world, 3)["assignees"] == ["octocat"]
    err = error(world, "issue.assignees.update", {"issueId": node(world, 3), "assignees": ["eve"]})
    assert err["code"] == "VALIDATION" and "'eve' cannot be assigned" in err["message"]


def test_milestone_set_and_clear(world: World) -> None:
    ok(world, "issue.milestone.set", {"issueId": node(world, 6), "milestoneNumber": 2})
    assert view(world, 6)["milestone"]["title"] == "v0.5.0"
    ok(world, "issue.milestone.set", {"issueId": node(world, 6), "milestoneNumber": None})
    assert view(world, 6)["milestone"] is None
    err = error(world, "issue.milestone.set", {"issueId": node(world, 6), "milestoneNumber": 9})
    assert err["code"] == "NOT_FOUND"


def test_delete_removes_the_issue_and_every_reference_to_it(world: World) -> None:
    ok(world, "issue.delete", {"issueId": node(world, 5)})
    assert error(world, "issue.view", {**REPO, "issueNumber": 5})["code"] == "NOT_FOUND"
    assert relations(world, 3)["blockedBy"] == []
    ok(world, "issue.delete", {"issueId": node(world, 1)})
    assert relations(world, 3)["parent"] is None
    assert all(item.content_number != 1 for item in world.projects[0].items)


def test_unknown_node_id_is_not_found(world: World) -> None:
    err = error(world, "issue.close", {"issueId": "I_nope"})
    assert err == {
        "code": "NOT_FOUND",
        "message": "input.issueId: Could not resolve to an Issue with the global id of 'I_nope'.",
    }


# ---------------------------------------------------------------- relations


def test_parent_set_replaces_and_remove_detaches(world: World) -> None:
    ok(world, "issue.parent.set", {"issueId": node(world, 6), "parentIssueId": node(world, 5)})
    assert relations(world, 6)["parent"]["number"] == 5
    ok(world, "issue.parent.set", {"issueId": node(world, 6), "parentIssueId": node(world, 1)})
    assert numbers(relations(world, 1)["children"]) == [3, 4, 6]
    assert relations(world, 5)["children"] == []
    removed = ok(world, "issue.parent.remove", {"issueId": node(world, 6)})
    assert removed["parentIssueId"] == node(world, 1)
    assert relations(world, 6)["parent"] is None
    err = error(world, "issue.parent.remove", {"issueId": node(world, 6)})
    assert err == {"code": "NOT_FOUND", "message": "issue #6 has no parent issue"}


def test_parent_cycles_are_refused(world: World) -> None:
    err = error(
        world, "issue.parent.set", {"issueId": node(world, 1), "parentIssueId": node(world, 3)}
    )
    assert err["code"] == "VALIDATION" and "cycle" in err["message"]
    err = error(
        world, "issue.parent.set", {"issueId": node(world, 1), "parentIssueId": node(world, 1)}
    )
    assert err["code"] == "VALIDATION"


def test_blocked_by_add_is_idempotent_and_remove_needs_the_relation(world: World) -> None:
    ids = {"issueId": node(world, 3), "blockedByIssueId": node(world, 5)}
    assert ok(world, "issue.blocked_by.add", ids)["added"] is True
    assert issue(world, 3).blocked_by == [5]
    ok(world, "issue.blocked_by.remove", ids)
    assert relations(world, 3)["blockedBy"] == [] and relations(world, 5)["blocking"] == []
    assert error(world, "issue.blocked_by.remove", ids) == {
        "code": "NOT_FOUND",
        "message": "issue #3 is not blocked by #5",
    }
    ok(world, "issue.blocked_by.add", ids)
    assert numbers(relations(world, 5)["blocking"]) == [3]
    itself = {"issueId": node(world, 3), "blockedByIssueId": node(world, 3)}
    assert error(world, "issue.blocked_by.add", itself)["code"] == "VALIDATION"


def test_same_calls_give_the_same_world(world: World) -> None:
    from pytest_ghxbench.sandbox.manifest import fresh_world

    other = fresh_world()
    for w in (world, other):
        ok(w, "issue.create", {**REPO, "title": "Same"})
        ok(w, "issue.comments.create", {"issueId": node(w, 10), "body": "x"})
    assert world.model_dump() == other.model_dump()
