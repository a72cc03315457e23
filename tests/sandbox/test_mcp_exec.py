"""The mcp dialect in process: every catalogue route runs on a seeded world."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_ghxbench.sandbox.dialects.mcp_exec import ROUTES, call_tool
from pytest_ghxbench.sandbox.dialects.mcp_exec_base import database_id
from pytest_ghxbench.sandbox.dialects.mcp_tools import CAPABILITY_FOR_TOOL
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.conftest import NAME, OWNER

R = {"owner": OWNER, "repo": NAME}
RUN, JOB, CHECK = 13500000003, 37800000007, 37800000007
PROJECT = {"owner": OWNER, "project_number": 1}


def _issue_id(world: World, number: int) -> int:
    found = world.issue(number)
    assert found is not None
    return database_id(found.node_id)


def _args(world: World, tool: str, method: str | None) -> dict[str, Any]:
    """Arguments a sensible agent would pass for this route on the seeded world."""
    m = {"method": method} if method else {}
    item = database_id("PVTI_kwDOtinykv0002")
    field = database_id("PVTSSF_kwDOtinykvF0003")
    table: dict[tuple[str, str | None], dict[str, Any]] = {
        ("get_me", None): {},
        ("add_reply_to_pull_request_comment", None): {
            "commentId": world.pull_requests[0].review_threads[0].comments[0].id
            if world.pull_requests[0].review_threads
            else next(p for p in world.pull_requests if p.review_threads)
            .review_threads[0].comments[0].id,
            "body": "Done",
        },
        ("list_issue_types", None): {"owner": OWNER},
        ("issue_write", "create"): {"title": "New bug"},
        ("issue_write", "update"): {"issue_number": 3, "state": "closed", "labels": ["bug"]},
        ("search_issues", None): {"query": "snapshot is:open"},
        ("add_issue_comment", None): {"issue_number": 3, "body": "On it"},
        ("sub_issue_write", "add"): {"issue_number": 1, "sub_issue_id": _issue_id(world, 6)},
        ("sub_issue_write", "remove"): {"issue_number": 1, "sub_issue_id": _issue_id(world, 3)},
        ("sub_issue_write", "reprioritize"): {
            "issue_number": 1, "sub_issue_id": _issue_id(world, 3), "after_id": 1,
        },
        ("issue_dependency_write", "add"): {
            "type": "blocked_by", "issue_number": 3, "related_issue_number": 6,
        },
        ("issue_dependency_write", "remove"): {
            "type": "blocked_by", "issue_number": 3, "related_issue_number": 5,
        },
        ("update_pull_request", None): {"pullNumber": 8, "draft": False, "title": "WAL fsync"},
        ("merge_pull_request", None): {"pullNumber": 7, "merge_method": "squash"},
        ("update_pull_request_branch", None): {"pullNumber": 7},
        ("pull_request_review_write", "create"): {"pullNumber": 7, "event": "COMMENT", "body": "x"},
        ("pull_request_review_write", "resolve_thread"): {
            "pullNumber": 7, "threadId": "PRRT_kwDOtinykv7001",
        },
        ("pull_request_review_write", "unresolve_thread"): {
            "pullNumber": 7, "threadId": "PRRT_kwDOtinykv7001",
        },
        ("actions_list", "list_workflow_jobs"): {"resource_id": str(RUN)},
        ("actions_list", "list_workflow_run_artifacts"): {"resource_id": str(RUN)},
        ("actions_list", "list_check_runs"): {"ref": "fix/compaction-lock"},
        ("actions_list", "list_check_run_annotations"): {"resource_id": str(CHECK)},
        ("actions_get", "get_workflow"): {"resource_id": "ci.yml"},
        ("actions_get", "get_workflow_run"): {"resource_id": str(RUN)},
        ("actions_get", "get_workflow_job"): {"resource_id": str(JOB)},
        ("actions_get", "download_workflow_run_artifact"): {"resource_id": "2800000001"},
        ("actions_get", "get_workflow_run_usage"): {"resource_id": str(RUN)},
        ("actions_get", "get_workflow_run_logs_url"): {"resource_id": str(RUN)},
        ("actions_get", "get_check_run"): {"resource_id": str(CHECK)},
        ("actions_run_trigger", "run_workflow"): {"workflow_id": "release.yml", "ref": "main"},
        ("actions_run_trigger", "rerun_workflow_run"): {"run_id": RUN},
        ("actions_run_trigger", "rerun_failed_jobs"): {"run_id": RUN},
        ("actions_run_trigger", "cancel_workflow_run"): {"run_id": RUN},
        ("actions_run_trigger", "delete_workflow_run_logs"): {"run_id": RUN},
        ("get_job_logs", None): {"job_id": JOB},
        ("get_release_by_tag", None): {"tag": "v0.4.0"},
        ("create_release", None): {"tag_name": "v0.5.0", "name": "v0.5.0"},
        ("update_release", None): {"release_id": 201000002, "body": "Notes"},
        ("projects_get", "get_project_field"): {**PROJECT, "field_id": field},
        ("projects_get", "get_project_item"): {**PROJECT, "item_id": item},
        ("projects_get", "get_project_status_update"): {**PROJECT, "status_update_id": "x"},
        ("projects_write", "add_project_item"): {
            **PROJECT, "item_type": "issue", "issue_number": 6,
        },
        ("projects_write", "update_project_item"): {
            **PROJECT, "item_id": item, "updated_field": {"id": field, "value": "Done"},
        },
        ("projects_write", "delete_project_item"): {**PROJECT, "item_id": item},
        ("projects_write", "create_project_status_update"): {**PROJECT, "body": "ok"},
    }  # fmt: skip
    if (tool, method) in table:
        extra = table[(tool, method)]
        base = PROJECT if tool.startswith("projects") else R
        if tool in ("get_me", "list_issue_types", "search_issues"):
            base = {}
        return {**m, **base, **extra}
    if tool.startswith("projects"):
        return {**m, **PROJECT}
    if tool in ("issue_read", "issue_dependency_read"):
        return {**m, **R, "issue_number": 3}
    if tool in ("pull_request_read", "pull_request_review_write"):
        return {**m, **R, "pullNumber": 7}
    return {**m, **R}


# Routes whose subject does not exist in the seeded world: they answer with a clear error.
EXPECTED_ERRORS = {
    ("sub_issue_write", "reprioritize"),
    ("projects_get", "get_project_status_update"),
    ("projects_write", "create_project_status_update"),
}


def test_every_catalogue_route_has_a_handler() -> None:
    assert set(ROUTES) == set(CAPABILITY_FOR_TOOL)


@pytest.mark.parametrize(("tool", "method"), sorted(CAPABILITY_FOR_TOOL, key=str))
def test_route_runs_on_a_seeded_world(world: World, tool: str, method: str | None) -> None:
    if method in ("submit_pending", "delete_pending"):
        pending = call_tool(world, tool, {**R, "method": "create", "pullNumber": 7})
        assert not pending.is_error, pending.text
    arguments = _args(world, tool, method)
    if method == "submit_pending":
        arguments["event"] = "COMMENT"
        arguments["body"] = "Looks fine"
    outcome = call_tool(world, tool, arguments)
    if (tool, method) in EXPECTED_ERRORS:
        assert outcome.is_error and outcome.text.startswith("failed to "), outcome.text
        return
    assert not outcome.is_error, outcome.text
    assert outcome.text
    served = CAPABILITY_FOR_TOOL[(tool, method)]
    assert set(served) & set(outcome.capability_ids) or not served or outcome.capability_ids


def test_issue_read_get_renders_the_issue_like_the_server(world: World) -> None:
    outcome = call_tool(world, "issue_read", {"method": "get", **R, "issue_number": 3})
    issue = json.loads(outcome.text)
    assert not outcome.mutated
    assert issue["number"] == 3 and issue["state"] == "open"
    assert issue["user"]["login"] == "dana-ops"
    assert issue["labels"] == ["bug", "performance"]
    assert issue["html_url"] == "https://github.com/acme-labs/tinykv/issues/3"
    assert issue["parent"]["number"] == 1
    assert [pr["number"] for pr in issue["closed_by_pull_requests"]] == [7]
    assert outcome.capability_ids == ["issue.view", "issue.relations.get", "issue.linked_prs.list"]


def test_comment_shows_up_in_get_comments_and_marks_the_world_mutated(world: World) -> None:
    added = call_tool(world, "add_issue_comment", {**R, "issue_number": 3, "body": "On it"})
    assert added.mutated and not added.is_error
    comments = json.loads(
        call_tool(world, "issue_read", {"method": "get_comments", **R, "issue_number": 3}).text
    )
    assert [(c["body"], c["user"]["login"]) for c in comments] == [("On it", world.viewer)]


def test_missing_issue_is_a_server_style_error(world: World) -> None:
    outcome = call_tool(world, "issue_read", {"method": "get", **R, "issue_number": 999})
    assert outcome.is_error and not outcome.mutated
    assert outcome.text.startswith("failed to get issue: ")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"method": "get", **R}, "missing required parameter: issue_number"),
        ({"method": "get", **R, "issue_number": "3"}, "invalid parameter issue_number"),
        ({"method": "nope", **R, "issue_number": 3}, "invalid parameter method"),
    ],
)
def test_bad_arguments_name_the_parameter(
    world: World, arguments: dict[str, Any], expected: str
) -> None:
    outcome = call_tool(world, "issue_read", arguments)
    assert outcome.is_error and outcome.text.startswith(expected), outcome.text
    assert outcome.capability_ids == []


def test_unknown_tool(world: World) -> None:
    assert call_tool(world, "delete_issue", {}).text == "unknown tool: delete_issue"


def test_wrong_repository_fails_without_changes(world: World) -> None:
    outcome = call_tool(world, "add_issue_comment", {**R, "repo": "other", "issue_number": 3,
                                                     "body": "x"})  # fmt: skip
    assert outcome.is_error and not outcome.mutated
    assert "acme-labs/other" in outcome.text
