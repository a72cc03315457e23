"""ghx issue capabilities over HTTP: reads, writes read back, relations, GitHub-like errors; the
external issue.* scenarios; and answers recorded when they agreed with the former in-process
capabilities."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from pytest_ghxbench.attempt.judge import Judgement, judge_atomic
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.manifest import bind_input
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.ghx import conftest as served
from tests.ghx.conftest import REPO, assert_as_recorded, error, ok, on_dotcom
from tests.sandbox.conftest import external_atomic, issue, needs_external


def run_scenario(scenario: AtomicScenario) -> tuple[dict[str, Any], Judgement]:
    """The scenario's task on its bound input over HTTP on a fresh world, judged as ghx."""
    bound = bind_input(scenario, seeded().manifest)
    world = fresh_world()
    try:
        envelope = on_dotcom(served.run(world, scenario.task, bound))
    finally:
        served.forget(world)
    judgement = judge_atomic(
        scenario, mode="ghx", final_text=json.dumps(envelope), tool_call_count=1
    )
    return envelope, judgement


# ---------------------------------------------------------------- the external scenarios

SCENARIOS = external_atomic("issue.")


@needs_external
def test_every_external_issue_task_is_covered() -> None:
    assert len({s.task for s in SCENARIOS}) == 18


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_external_issue_scenarios_pass_as_ghx_answers(scenario: AtomicScenario) -> None:
    envelope, judgement = run_scenario(scenario)
    assert judgement.passed, (judgement.failures, envelope)


# ---------------------------------------------------------------- helpers


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
    assert on_dotcom(data["url"]) == "https://github.com/acme-labs/tinykv/issues/3"


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
    assert listed(state="all", first=2, after="2") == [4, 3]
    assert listed(labels=["BUG", "performance"]) == [5, 3]
    assert listed(assignee="mona") == [3, 1]


def test_comments_are_listed_oldest_first_with_urls(world: World) -> None:
    items = comments(world, 5)
    assert [c["authorLogin"] for c in items] == ["mona", "dana-ops", "hubot"]
    assert on_dotcom(items[0]["url"]) == (
        "https://github.com/acme-labs/tinykv/issues/5#issuecomment-2650000011"
    )
    assert set(items[0]) == {"id", "body", "authorLogin", "url", "createdAt"}
    page = ok(world, "issue.comments.list", {**REPO, "issueNumber": 5, "first": 2})
    after = page["pageInfo"]["endCursor"]
    rest = ok(world, "issue.comments.list", {**REPO, "issueNumber": 5, "after": after})
    assert page["items"] + rest["items"] == items


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


def test_comment_on_a_locked_issue_needs_a_collaborator(world: World) -> None:
    issue(world, 3).locked = True
    world.collaborators.remove(world.viewer)
    err = error(world, "issue.comments.create", {"issueId": node(world, 3), "body": "Hi"})
    assert err["code"] == "CONFLICT" and issue(world, 3).comments == []


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
    pull_id = world.pull_requests[0].node_id
    assert error(world, "issue.labels.add", {"issueId": pull_id, "labels": ["bug"]}) == {
        "code": "NOT_FOUND",
        "message": f"input.issueId: Could not resolve to an Issue with the global id of "
        f"'{pull_id}'.",
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
    other = fresh_world()
    try:
        for w in (world, other):
            ok(w, "issue.create", {**REPO, "title": "Same"})
            ok(w, "issue.comments.create", {"issueId": node(w, 10), "body": "x"})
    finally:
        served.forget(other)
    assert world.model_dump() == other.model_dump()


# ---------------------------------------------------------------- differential

_SEED = fresh_world()
I1, I3, I4, I5, I6 = (_SEED.issue(n).node_id for n in (1, 3, 4, 5, 6))  # type: ignore[union-attr]
I2 = _SEED.issue(2).node_id  # type: ignore[union-attr]
PULL = _SEED.pull_requests[0].node_id
MISSING = {"owner": "acme-labs", "name": "nope"}


def _by_number(task: str, *numbers: int) -> list[tuple[str, dict[str, Any]]]:
    cases = [(task, {**REPO, "issueNumber": n}) for n in numbers]
    return [*cases, (task, {**MISSING, "issueNumber": 3})]


DIFFERENTIAL: list[tuple[str, dict[str, Any]]] = [
    *_by_number("issue.view", 1, 2, 3, 5, 7, 99),
    ("issue.list", REPO),
    ("issue.list", {**REPO, "state": "closed"}),
    ("issue.list", {**REPO, "state": "all", "first": 2}),
    ("issue.list", {**REPO, "state": "all", "first": 100}),
    ("issue.list", {**REPO, "labels": ["BUG", "performance"]}),
    ("issue.list", {**REPO, "labels": ["nonexistent"]}),
    ("issue.list", {**REPO, "assignee": "mona", "state": "all"}),
    ("issue.list", {**REPO, "state": "bogus"}),
    ("issue.list", MISSING),
    *_by_number("issue.linked_prs.list", 3, 6, 7, 99),
    *_by_number("issue.comments.list", 5, 3, 7, 99),
    ("issue.comments.list", {**REPO, "issueNumber": 5, "first": 2}),
    *_by_number("issue.relations.get", 1, 3, 5, 6, 7, 99),
    ("issue.create", {**REPO, "title": "Plain"}),
    (
        "issue.create",
        {
            **REPO,
            "title": "Full",
            "body": "Text",
            "labels": ["Documentation", "bug", "documentation"],
            "assignees": ["lee-k", "mona", "lee-k"],
            "milestoneNumber": 2,
            "issueType": "feature",
        },
    ),
    ("issue.create", {**REPO, "title": "x", "labels": ["wontfix"]}),
    ("issue.create", {**REPO, "title": "x", "assignees": ["eve"]}),
    ("issue.create", {**REPO, "title": "x", "milestoneNumber": 9}),
    ("issue.create", {**REPO, "title": "x", "issueType": "Epic"}),
    ("issue.create", {**REPO, "title": ""}),
    ("issue.create", {**MISSING, "title": "x"}),
    ("issue.update", {"issueId": I3, "title": "New title"}),
    ("issue.update", {"issueId": I3, "body": ""}),
    ("issue.update", {"issueId": I2, "title": "T", "body": "B"}),
    ("issue.update", {"issueId": I3}),
    ("issue.update", {"issueId": "I_nope", "title": "T"}),
    ("issue.update", {"issueId": PULL, "title": "T"}),
    ("issue.close", {"issueId": I3}),
    ("issue.close", {"issueId": I3, "reason": "not_planned"}),
    ("issue.close", {"issueId": I3, "reason": "duplicate"}),
    ("issue.close", {"issueId": I2}),
    ("issue.close", {"issueId": I3, "reason": "wontfix"}),
    ("issue.close", {"issueId": "I_nope"}),
    ("issue.reopen", {"issueId": I2}),
    ("issue.reopen", {"issueId": I3}),
    ("issue.reopen", {"issueId": PULL}),
    ("issue.delete", {"issueId": I1}),
    ("issue.delete", {"issueId": I5}),
    ("issue.delete", {"issueId": "I_nope"}),
    ("issue.comments.create", {"issueId": I3, "body": "On it."}),
    ("issue.comments.create", {"issueId": I2, "body": "Late"}),
    ("issue.comments.create", {"issueId": I3, "body": ""}),
    ("issue.comments.create", {"issueId": PULL, "body": "x"}),
    ("issue.labels.update", {"issueId": I3, "labels": ["bug", "Issues", "bug"]}),
    ("issue.labels.update", {"issueId": I3, "labels": []}),
    ("issue.labels.update", {"issueId": I3, "labels": ["wontfix"]}),
    ("issue.labels.update", {"issueId": "I_nope", "labels": ["bug"]}),
    ("issue.labels.add", {"issueId": I3, "labels": ["enhancement", "BUG"]}),
    ("issue.labels.add", {"issueId": I3, "labels": []}),
    ("issue.labels.add", {"issueId": I3, "labels": ["wontfix"]}),
    ("issue.labels.add", {"issueId": PULL, "labels": ["bug"]}),
    ("issue.assignees.update", {"issueId": I3, "assignees": ["octocat", "mona", "octocat"]}),
    ("issue.assignees.update", {"issueId": I3, "assignees": []}),
    ("issue.assignees.update", {"issueId": I3, "assignees": ["eve"]}),
    ("issue.assignees.update", {"issueId": "I_nope", "assignees": []}),
    ("issue.milestone.set", {"issueId": I6, "milestoneNumber": 2}),
    ("issue.milestone.set", {"issueId": I3, "milestoneNumber": None}),
    ("issue.milestone.set", {"issueId": I6, "milestoneNumber": 9}),
    ("issue.milestone.set", {"issueId": I6, "milestoneNumber": 0}),
    ("issue.milestone.set", {"issueId": "I_nope", "milestoneNumber": 1}),
    ("issue.parent.set", {"issueId": I6, "parentIssueId": I5}),
    ("issue.parent.set", {"issueId": I3, "parentIssueId": I1}),
    ("issue.parent.set", {"issueId": I3, "parentIssueId": I6}),
    ("issue.parent.set", {"issueId": I1, "parentIssueId": I3}),
    ("issue.parent.set", {"issueId": I1, "parentIssueId": I1}),
    ("issue.parent.set", {"issueId": I6, "parentIssueId": "I_nope"}),
    ("issue.parent.set", {"issueId": "I_nope", "parentIssueId": I1}),
    ("issue.parent.remove", {"issueId": I3}),
    ("issue.parent.remove", {"issueId": I6}),
    ("issue.parent.remove", {"issueId": PULL}),
    ("issue.blocked_by.add", {"issueId": I6, "blockedByIssueId": I5}),
    ("issue.blocked_by.add", {"issueId": I3, "blockedByIssueId": I5}),
    ("issue.blocked_by.add", {"issueId": I3, "blockedByIssueId": I3}),
    ("issue.blocked_by.add", {"issueId": I3, "blockedByIssueId": "I_nope"}),
    ("issue.blocked_by.add", {"issueId": I3, "blockedByIssueId": PULL}),
    ("issue.blocked_by.remove", {"issueId": I3, "blockedByIssueId": I5}),
    ("issue.blocked_by.remove", {"issueId": I6, "blockedByIssueId": I5}),
    ("issue.blocked_by.remove", {"issueId": "I_nope", "blockedByIssueId": I5}),
]


def test_differential_covers_every_issue_capability() -> None:
    from pytest_ghxbench.ghx.registry import all_capabilities

    ours = {cap.id for cap in all_capabilities() if cap.id.startswith("issue.")}
    assert ours == {task for task, _ in DIFFERENTIAL}
    assert len(ours) == 19


@pytest.mark.parametrize(
    ("task", "input"), DIFFERENTIAL, ids=[f"{t}-{i}" for i, (t, _) in enumerate(DIFFERENTIAL)]
)
def test_same_as_the_world_capability(task: str, input: dict[str, Any]) -> None:
    assert_as_recorded(task, input)


def _locked(world: World) -> None:
    issue(world, 3).locked = True
    world.collaborators.remove(world.viewer)


def _closed_parent(world: World) -> None:
    issue(world, 1).state = "CLOSED"


PREPARED: list[tuple[str, dict[str, Any], Callable[[World], None]]] = [
    ("issue.comments.create", {"issueId": I3, "body": "Hi"}, _locked),
    ("issue.view", {**REPO, "issueNumber": 3}, _locked),
    ("issue.relations.get", {**REPO, "issueNumber": 3}, _closed_parent),
    ("issue.list", {**REPO, "state": "closed"}, _closed_parent),
    ("repo.milestones.list", REPO, _closed_parent),
]


@pytest.mark.parametrize(("task", "input", "prepare"), PREPARED)
def test_same_as_the_world_capability_on_a_changed_world(
    task: str, input: dict[str, Any], prepare: Callable[[World], None]
) -> None:
    assert_as_recorded(task, input, prepare)
