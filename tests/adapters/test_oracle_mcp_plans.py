"""MCP plans that look ids up first, as an agent would, and use what the lookups printed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_ghxbench.adapters.oracle.executors import NoPlan
from pytest_ghxbench.adapters.oracle.mcp_args import mcp_plan
from pytest_ghxbench.sandbox.dialects.mcp_exec import call_tool
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import World


def _thread(world: World) -> tuple[int, str, int]:
    pull = next(p for p in world.pull_requests if p.review_threads)
    thread = pull.review_threads[0]
    return pull.number, thread.node_id, thread.comments[0].id


def _drive(world: World, task: str, input: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Run the plan on ``world``, sending each output back; the calls made, in order."""
    plan = mcp_plan(task, input, world)
    calls = [next(plan)]
    while True:
        outcome = call_tool(world, *calls[-1])
        assert not outcome.is_error, outcome.text
        try:
            calls.append(plan.send(outcome.text))
        except StopIteration:
            return calls


def test_reply_reads_the_review_comments_then_replies_to_the_first_comment() -> None:
    world = fresh_world()
    number, thread_id, first_comment = _thread(world)
    calls = _drive(world, "pr.comment.reply", {"threadId": thread_id, "body": "Fixed."})
    assert [name for name, _ in calls] == [
        "pull_request_read",
        "add_reply_to_pull_request_comment",
    ]
    assert calls[0][1]["method"] == "get_review_comments" and calls[0][1]["pullNumber"] == number
    assert calls[1][1]["commentId"] == first_comment and calls[1][1]["body"] == "Fixed."
    located = world.review_thread(thread_id)
    assert located is not None and located[1].comments[-1].body == "Fixed."


def test_reply_takes_the_comment_id_from_the_lookup_output() -> None:
    world = fresh_world()
    _, thread_id, _ = _thread(world)
    plan = mcp_plan("pr.comment.reply", {"threadId": thread_id, "body": "x"}, world)
    next(plan)
    printed = {"review_threads": [{"id": thread_id, "comments": [{"id": 4242}]}]}
    _, arguments = plan.send(json.dumps(printed))
    assert arguments["commentId"] == 4242


def test_reply_fails_loudly_when_the_lookup_does_not_show_the_thread() -> None:
    world = fresh_world()
    _, thread_id, _ = _thread(world)
    plan = mcp_plan("pr.comment.reply", {"threadId": thread_id, "body": "x"}, world)
    next(plan)
    with pytest.raises(NoPlan, match="did not show thread"):
        plan.send(json.dumps({"review_threads": []}))


def test_field_update_finds_project_number_and_item_id_then_sets_the_option() -> None:
    world = fresh_world()
    project = world.projects[0]
    field = next(f for f in project.fields if f.data_type == "SINGLE_SELECT")
    item = next(i for i in project.items if not i.is_archived)
    option = next(o for o in field.options if o.id != item.field_values.get(field.id))
    input = {
        "projectId": project.node_id,
        "itemId": item.id,
        "fieldId": field.id,
        "valueSingleSelectOptionId": option.id,
    }
    calls = _drive(world, "project_v2.item.field.update", input)
    assert [(name, args["method"]) for name, args in calls] == [
        ("projects_list", "list_projects"),
        ("projects_list", "list_project_items"),
        ("projects_write", "update_project_item"),
    ]
    assert calls[1][1]["project_number"] == project.number
    assert isinstance(calls[2][1]["item_id"], int)
    assert item.field_values[field.id] == option.id


def test_field_update_of_an_unknown_project_has_no_plan() -> None:
    plan = mcp_plan("project_v2.item.field.update", {"projectId": "PVT_nope"}, fresh_world())
    with pytest.raises(NoPlan, match="PVT_nope"):
        next(plan)


def test_labels_add_reads_the_labels_then_writes_them_back_with_the_new_one() -> None:
    world = fresh_world()
    issue = next(i for i in world.issues if i.labels)
    before = list(issue.labels)
    calls = _drive(world, "issue.labels.add", {"issueId": issue.node_id, "labels": ["question"]})
    assert [(name, args["method"]) for name, args in calls] == [
        ("issue_read", "get_labels"),
        ("issue_write", "update"),
    ]
    assert issue.labels == [*before, "question"]


def test_only_issue_delete_and_milestones_list_lack_an_mcp_tool() -> None:
    from pytest_ghxbench.adapters.oracle.mcp_args import mcp_call
    from pytest_ghxbench.sandbox.capabilities.registry import all_capabilities
    from tests.adapters.test_oracle_scenarios import MCP_GAPS

    world = fresh_world()
    unserved = []
    for cap in all_capabilities():
        try:
            next(mcp_plan(cap.id, {}, world))
        except NoPlan as exc:
            if "no MCP tool serves it" in str(exc):
                unserved.append(cap.id)
        except (KeyError, TypeError, ValueError):
            pass  # empty input: only whether a tool serves the capability matters here
    # The GitHub MCP server has no tool that deletes an issue or lists milestones.
    assert unserved == ["issue.delete", "repo.milestones.list"] == sorted(MCP_GAPS)
    with pytest.raises(NoPlan, match=r"oracle has no mcp plan for issue\.delete"):
        mcp_call("issue.delete", {"issueId": world.issues[0].node_id}, world)
