"""gh plans through ``gh api`` and ``gh project``: every capability has one, and they change the
world through the dialect, or fail loudly when the dialect refuses them."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.adapters.oracle import plans
from pytest_ghxbench.adapters.oracle.executors import Session, run_gh_step
from pytest_ghxbench.adapters.oracle.plans import gh_plan, unsupported_capabilities
from pytest_ghxbench.adapters.oracle.transcript import Transcript
from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import PullRequest, ReviewThread, World


def _session(world: World) -> Session:
    return Session(world, Transcript.start([], "system", "user"))


def _thread(world: World) -> tuple[PullRequest, ReviewThread]:
    pull = next(p for p in world.pull_requests if p.review_threads)
    return pull, pull.review_threads[0]


def _run(world: World, task: str, input: dict[str, Any]) -> list[str]:
    """Run the plan's command lines with the dialect; their outputs (each must succeed)."""
    outputs = []
    for argv in gh_plan(task, input, world):
        result = run_gh(world, argv)
        assert result.exit_code == 0, (argv, result.stderr)
        outputs.append(result.stdout)
    return outputs


def test_every_capability_has_a_gh_plan() -> None:
    assert unsupported_capabilities() == []


def test_resolve_and_unresolve_change_the_thread() -> None:
    world = fresh_world()
    _, thread = _thread(world)
    assert not thread.is_resolved
    _run(world, "pr.comment.resolve", {"threadId": thread.node_id})
    assert thread.is_resolved
    _run(world, "pr.comment.unresolve", {"threadId": thread.node_id})
    assert not thread.is_resolved


def test_reply_body_is_a_variable_so_quotes_and_dollars_survive() -> None:
    world = fresh_world()
    _, thread = _thread(world)
    body = 'Fixed "it" in $HOME } {'
    argv = gh_plan("pr.comment.reply", {"threadId": thread.node_id, "body": body}, world)[0]
    assert argv[:2] == ["api", "graphql"] and f"body={body}" in argv
    _run(world, "pr.comment.reply", {"threadId": thread.node_id, "body": body})
    assert thread.comments[-1].body == body


def test_parent_remove_names_the_current_parent() -> None:
    world = fresh_world()
    child = next(i for i in world.issues if i.parent is not None)
    parent = world.issue(child.parent or 0)
    assert parent is not None
    argv = gh_plan("issue.parent.remove", {"issueId": child.node_id}, world)[0]
    assert f"parent={parent.node_id}" in argv
    _run(world, "issue.parent.remove", {"issueId": child.node_id})
    assert child.parent is None


def test_blocked_by_add_then_remove() -> None:
    world = fresh_world()
    issue, other = world.issues[0], world.issues[-1]
    input = {"issueId": issue.node_id, "blockedByIssueId": other.node_id}
    _run(world, "issue.blocked_by.add", input)
    assert other.number in issue.blocked_by
    _run(world, "issue.blocked_by.remove", input)
    assert other.number not in issue.blocked_by


def test_project_item_edit_sets_the_option() -> None:
    world = fresh_world()
    project = world.projects[0]
    field = next(f for f in project.fields if f.data_type == "SINGLE_SELECT")
    item = next(i for i in project.items if not i.is_archived)
    option = next(o for o in field.options if o.id != item.field_values.get(field.id))
    input = {"projectId": project.node_id, "itemId": item.id, "fieldId": field.id,
             "valueSingleSelectOptionId": option.id}  # fmt: skip
    _run(world, "project_v2.item.field.update", input)
    assert item.field_values[field.id] == option.id


def test_rest_plans_page_with_per_page() -> None:
    world = fresh_world()
    input = {"owner": "acme-labs", "name": "tinykv", "runId": 5, "first": 2}
    argv = gh_plan("workflow_run.artifacts.list", input, world)[0]
    assert argv == ["api", "repos/acme-labs/tinykv/actions/runs/5/artifacts?per_page=2"]


def test_a_command_the_dialect_refuses_fails_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    world = fresh_world()
    _, thread = _thread(world)
    broken = ["api", "graphql", "-f", "query=mutation { resolveThread(x: 1) { id } }"]
    monkeypatch.setitem(plans.GH_PLANS, "pr.comment.resolve", lambda i, w: [broken])  # type: ignore[arg-type]
    answer = run_gh_step(_session(world), "pr.comment.resolve", {"threadId": thread.node_id})
    assert answer["ok"] is False
    assert answer["error"]["message"].startswith("gh api graphql -f")
    assert "failed" in answer["error"]["message"]
    assert not thread.is_resolved
