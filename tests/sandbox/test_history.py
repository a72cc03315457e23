"""The history of issues and pull requests (``World.events``): what the seed implies, what every
write adds, and that replaying it always gives each item's labels, assignees, milestone and
state, whichever API (or operation) made the change."""

from __future__ import annotations

import json
from typing import Any

from pytest_ghxbench.sandbox.code import refs_changed
from pytest_ghxbench.sandbox.history import mentioned
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
from pytest_ghxbench.sandbox.operations.registry import perform
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.sandbox.timeline import events_of
from tests.sandbox.api.test_graphql import post
from tests.sandbox.api.test_rest_timeline import REPO, busy_world, call


def graphql(world: World, query: str) -> Any:
    status, answer = post(world, json.dumps({"query": query}).encode())
    assert status == 200 and "errors" not in answer, answer
    return answer["data"]


def replay(world: World, number: int) -> tuple[set[str], set[str], str | None, str]:
    """An item's labels, assignees, milestone title and state from its events alone."""
    labels: set[str] = set()
    assignees: set[str] = set()
    milestone: str | None = None
    state = "OPEN"
    for event in events_of(world, number):
        kind = event.event
        if kind in ("labeled", "unlabeled"):
            (labels.add if kind == "labeled" else labels.discard)(event.label or "")
        elif kind in ("assigned", "unassigned"):
            (assignees.add if kind == "assigned" else assignees.discard)(event.login or "")
        elif kind == "milestoned":
            milestone = event.milestone
        elif kind == "demilestoned" and milestone == event.milestone:
            milestone = None
        elif kind in ("closed", "reopened", "merged") and state != "MERGED":
            state = {"closed": "CLOSED", "reopened": "OPEN", "merged": "MERGED"}[kind]
    return labels, assignees, milestone, state


def assert_history_explains(world: World) -> None:
    items: list[Any] = [*world.issues, *world.pull_requests]
    for item in items:
        milestone = world.milestone(item.milestone) if item.milestone else None
        now = (
            set(item.labels),
            set(item.assignees),
            milestone.title if milestone else None,
            item.state,
        )
        assert replay(world, item.number) == now, item.number


def test_the_seed_history_explains_the_seed_and_is_the_same_every_time() -> None:
    world = fresh_world(DEFAULT_SEED)
    assert_history_explains(world)
    assert world.events == fresh_world(DEFAULT_SEED).events
    ids = [e.id for e in world.events]
    assert ids == list(range(15_000_000_001, 15_000_000_001 + len(ids)))
    times = [e.created_at for e in world.events]
    assert times == sorted(times)
    assert len({e.node_id for e in world.events}) == len(ids)


def test_every_write_keeps_the_history_explaining_the_world() -> None:
    world = busy_world()  # REST writes of every kind
    assert_history_explains(world)
    pull = world.pull_request(8)
    issue = world.issue(1)
    assert pull is not None and issue is not None
    bug, docs = (world.label(n).node_id for n in ("bug", "documentation"))  # type: ignore[union-attr]
    milestone = world.milestones[1].node_id
    for mutation in (
        f'updatePullRequest(input: {{pullRequestId: "{pull.node_id}", labelIds: ["{bug}"], '
        f'milestoneId: "{milestone}", title: "fsync policy"}})',
        f'removeLabelsFromLabelable(input: {{labelableId: "{pull.node_id}", labelIds: ["{bug}"]}})',
        f'addLabelsToLabelable(input: {{labelableId: "{pull.node_id}", labelIds: ["{docs}"]}})',
        f'closePullRequest(input: {{pullRequestId: "{pull.node_id}"}})',
        f'reopenPullRequest(input: {{pullRequestId: "{pull.node_id}"}})',
        f'updateIssue(input: {{id: "{issue.node_id}", labelIds: [], milestoneId: null, '
        f"assigneeIds: []}})",
        f'createIssue(input: {{repositoryId: "{world.repository.node_id}", title: "New", '
        f'labelIds: ["{bug}"], milestoneId: "{milestone}"}})',
    ):
        graphql(world, f"mutation {{ {mutation} {{ clientMutationId }} }}")
    for method, path, body in (
        ("PATCH", "/issues/8", {"labels": ["question"], "title": "WIP: fsync"}),
        ("PATCH", "/issues/8", {"assignees": ["mona", "lee-k"]}),
        ("PATCH", "/pulls/8", {"state": "closed"}),
        ("DELETE", "/issues/10/labels/bug", None),
    ):
        assert call(world, method, REPO + path, body).status < 300, (method, path)
    assert_history_explains(world)
    created = [(e.event, e.actor) for e in events_of(world, 10)]
    assert created == [
        ("labeled", "bench-bot"),
        ("milestoned", "bench-bot"),
        ("unlabeled", "bench-bot"),
    ]


def test_event_ids_do_not_move_the_ids_of_what_agents_create() -> None:
    world = fresh_world(DEFAULT_SEED)
    call(world, "POST", f"{REPO}/issues/3/labels", {"labels": ["question"]})
    call(world, "POST", f"{REPO}/issues/3/comments", {"body": "hi"})
    issue = world.issue(3)
    assert issue is not None and issue.comments[-1].id == 4_000_000_001
    assert world.events[-1].id > 15_000_000_000


def test_a_deleted_issue_leaves_no_history_for_the_number_after_it() -> None:
    world = fresh_world(DEFAULT_SEED)
    repo = {"owner": "acme-labs", "name": "tinykv"}
    made = perform(world, "createIssue", {**repo, "title": "t", "labels": ["bug"], "body": "#3"})
    number = made["data"]["number"]
    assert [e.event for e in events_of(world, number)] == ["labeled"]
    assert events_of(world, 3)[-1].source == number
    perform(world, "deleteIssue", {"issueId": made["data"]["id"]})
    assert events_of(world, number) == [] and events_of(world, 3)[-1].source != number
    again = perform(world, "createIssue", {**repo, "title": "u"})
    assert again["data"]["number"] == number and events_of(world, number) == []


def test_mentions_outside_code_cross_reference_once_per_source() -> None:
    world = fresh_world(DEFAULT_SEED)
    assert mentioned(world, "see #3, acme-labs/tinykv#5 and `#4` and other/repo#6") == [3, 5]
    assert mentioned(world, "http://github.localhost/acme-labs/tinykv/pull/7 and #99") == [7]
    assert mentioned(world, "```\n#1\n```\nabc#2") == []
    before = len(events_of(world, 4))
    for body in ("blocked on #4", "still #4"):
        call(world, "POST", f"{REPO}/issues/6/comments", {"body": body})
    crossed = [e for e in events_of(world, 4)[before:] if e.event == "cross-referenced"]
    assert [(e.source, e.actor) for e in crossed] == [(6, "bench-bot")]


def test_head_branches_deleted_and_restored() -> None:
    world = fresh_world(DEFAULT_SEED)
    pull = world.pull_request(8)
    assert pull is not None
    head = pull.head_sha
    world.git.delete_ref("refs/heads/feat/wal-fsync-policy")
    refs_changed(world)
    assert [e.event for e in events_of(world, 8)[-2:]] == ["head_ref_deleted", "closed"]
    world.git.set_ref("refs/heads/feat/wal-fsync-policy", head)
    refs_changed(world)
    refs_changed(world)  # nothing new happened
    assert [e.event for e in events_of(world, 8)[-3:]] == [
        "head_ref_deleted",
        "closed",
        "head_ref_restored",
    ]
