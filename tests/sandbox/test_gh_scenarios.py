"""Every external atomic scenario can be done with gh commands in the sandbox.

For each scenario's task, ``ROUTES`` gives gh command lines a careful agent would type (plain
subcommands where gh has one, ``gh api`` and ``gh project`` otherwise). Reads must succeed with
output; writes must leave the world exactly as the capability itself leaves it (timestamps
aside), so the gh dialect and the capabilities cannot drift apart.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from pytest_ghxbench.sandbox.capabilities.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.manifest import bind_input
from tests.sandbox.conftest import external_scenarios, needs_external

In = Mapping[str, Any]
Route = Callable[[In, World], list[list[str]]]


def _repo(i: In) -> list[str]:
    return ["-R", f"{i['owner']}/{i['name']}"]


def _issue(i: In, w: World, key: str = "issueId") -> str:
    issue = w.issue_by_node_id(str(i[key]))
    assert issue is not None
    return str(issue.number)


def _graphql(query: str, **variables: Any) -> list[str]:
    argv = ["api", "graphql", "-f", f"query={query}"]
    for name, value in variables.items():
        argv += ["-F" if isinstance(value, int) else "-f", f"{name}={value}"]
    return argv


def _set_members(i: In, w: World, key: str, flag: str) -> list[str]:
    """``gh issue edit`` adding the wanted labels/assignees and removing the others."""
    issue = w.issue_by_node_id(str(i["issueId"]))
    assert issue is not None
    wanted = list(i[key])
    argv = ["issue", "edit", str(issue.number), f"--add-{flag}", ",".join(wanted)]
    for name in getattr(issue, key):
        if name not in wanted:
            argv += [f"--remove-{flag}", name]
    return argv


def _milestone_title(w: World, number: int) -> str:
    milestone = w.milestone(number)
    assert milestone is not None
    return milestone.title


def _tag(i: In, w: World) -> str:
    release = w.release(int(i["releaseId"]))
    assert release is not None
    return release.tag_name


def _parent_remove(i: In, w: World) -> list[list[str]]:
    child = w.issue_by_node_id(str(i["issueId"]))
    assert child is not None and child.parent is not None
    parent = w.issue(child.parent)
    assert parent is not None
    return [_graphql(REMOVE_SUB_ISSUE, p=parent.node_id, c=child.node_id)]


ISSUE_TYPES = (
    "query($o: String!, $r: String!) { repository(owner: $o, name: $r) { "
    "issueTypes(first: 20) { nodes { id name } } } }"
)
ADD_BLOCKER = (
    "mutation($i: ID!, $b: ID!) { addBlockedBy(input: {issueId: $i, blockingIssueId: $b}) "
    "{ issue { number } } }"
)
REMOVE_BLOCKER = (
    "mutation($i: ID!, $b: ID!) { removeBlockedBy(input: {issueId: $i, blockingIssueId: "
    "$b}) { issue { number } } }"
)
ADD_SUB_ISSUE = (
    "mutation($p: ID!, $c: ID!) { addSubIssue(input: {issueId: $p, subIssueId: $c}) { "
    "issue { number } } }"
)
REPLY = (
    "mutation($t: ID!, $b: String!) { addPullRequestReviewThreadReply(input: "
    "{pullRequestReviewThreadId: $t, body: $b}) { comment { id } } }"
)
RESOLVE = (
    "mutation($t: ID!) { resolveReviewThread(input: {threadId: $t}) { thread { isResolved } } }"
)
UNRESOLVE = (
    "mutation($t: ID!) { unresolveReviewThread(input: {threadId: $t}) { thread { isResolved } } }"
)
REMOVE_SUB_ISSUE = (
    "mutation($p: ID!, $c: ID!) { removeSubIssue(input: {issueId: $p, subIssueId: $c}) { "
    "issue { number } } }"
)
THREADS = (
    "query($o: String!, $r: String!, $n: Int!) { repository(owner: $o, name: $r) { "
    "pullRequest(number: $n) { reviewThreads(first: 50) { nodes { id isResolved isOutdated "
    "path line comments(first: 20) { nodes { author { login } body } } } } } } }"
)
RELATIONS = (
    "query($o: String!, $r: String!, $n: Int!) { repository(owner: $o, name: $r) { "
    "issue(number: $n) { parent { number } subIssues(first: 50) { nodes { number } } "
    "blockedBy(first: 50) { nodes { number } } blocking(first: 50) { nodes { number } } } } }"
)
ROUTES: dict[str, Route] = {
    "repo.view": lambda i, w: [
        ["repo", "view", f"{i['owner']}/{i['name']}", "--json", "name,description"]
    ],
    "repo.labels.list": lambda i, w: [["label", "list", *_repo(i), "--json", "name,color"]],
    "repo.issue_types.list": lambda i, w: [
        _graphql(
            ISSUE_TYPES,
            o=i["owner"],
            r=i["name"],
        )
    ],
    "issue.view": lambda i, w: [["issue", "view", str(i["issueNumber"]), *_repo(i)]],
    "issue.list": lambda i, w: [
        ["issue", "list", *_repo(i), "--state", i["state"], "-L", str(i["first"])]
    ],
    "issue.comments.list": lambda i, w: [
        ["api", f"repos/{i['owner']}/{i['name']}/issues/{i['issueNumber']}/comments"]
    ],
    "issue.linked_prs.list": lambda i, w: [
        [
            "issue",
            "view",
            str(i["issueNumber"]),
            *_repo(i),
            "--json",
            "closedByPullRequestsReferences",
        ]
    ],
    "issue.relations.get": lambda i, w: [
        _graphql(RELATIONS, o=i["owner"], r=i["name"], n=i["issueNumber"])
    ],
    "issue.create": lambda i, w: [
        ["issue", "create", *_repo(i), "--title", i["title"], "--body", i["body"]]
    ],
    "issue.update": lambda i, w: [
        ["issue", "edit", _issue(i, w), "--title", i["title"], "--body", i["body"]]
    ],
    "issue.close": lambda i, w: [["issue", "close", _issue(i, w)]],
    "issue.reopen": lambda i, w: [["issue", "reopen", _issue(i, w)]],
    "issue.delete": lambda i, w: [["issue", "delete", _issue(i, w), "--yes"]],
    "issue.comments.create": lambda i, w: [["issue", "comment", _issue(i, w), "--body", i["body"]]],
    "issue.labels.update": lambda i, w: [_set_members(i, w, "labels", "label")],
    "issue.assignees.update": lambda i, w: [_set_members(i, w, "assignees", "assignee")],
    "issue.milestone.set": lambda i, w: [
        ["issue", "edit", _issue(i, w), "--milestone", _milestone_title(w, i["milestoneNumber"])]
    ],
    "issue.blocked_by.add": lambda i, w: [
        _graphql(
            ADD_BLOCKER,
            i=i["issueId"],
            b=i["blockedByIssueId"],
        )
    ],
    "issue.blocked_by.remove": lambda i, w: [
        _graphql(
            REMOVE_BLOCKER,
            i=i["issueId"],
            b=i["blockedByIssueId"],
        )
    ],
    "issue.parent.set": lambda i, w: [
        _graphql(
            ADD_SUB_ISSUE,
            p=i["parentIssueId"],
            c=i["issueId"],
        )
    ],
    "issue.parent.remove": _parent_remove,
    "pr.view": lambda i, w: [["pr", "view", str(i["prNumber"]), *_repo(i)]],
    "pr.list": lambda i, w: [
        ["pr", "list", *_repo(i), "--state", i["state"], "-L", str(i["first"])]
    ],
    "pr.diff.list_files": lambda i, w: [
        ["pr", "diff", str(i["prNumber"]), "--name-only", *_repo(i)]
    ],
    "pr.status.checks": lambda i, w: [["pr", "checks", str(i["prNumber"]), *_repo(i)]],
    "pr.checks.get_failed": lambda i, w: [
        [
            "pr",
            "checks",
            str(i["prNumber"]),
            *_repo(i),
            "--json",
            "name,bucket,link",
            "-q",
            '.[] | select(.bucket == "fail")',
        ]
    ],
    "pr.mergeability.view": lambda i, w: [
        [
            "pr",
            "view",
            str(i["prNumber"]),
            *_repo(i),
            "--json",
            "mergeable,mergeStateStatus,reviewDecision",
        ]
    ],
    "pr.reviews.list": lambda i, w: [
        ["pr", "view", str(i["prNumber"]), *_repo(i), "--json", "reviews"]
    ],
    "pr.comments.list": lambda i, w: [
        _graphql(THREADS, o=i["owner"], r=i["name"], n=i["prNumber"])
    ],
    "pr.comment.reply": lambda i, w: [
        _graphql(
            REPLY,
            t=i["threadId"],
            b=i["body"],
        )
    ],
    "pr.comment.resolve": lambda i, w: [_graphql(RESOLVE, t=i["threadId"])],
    "pr.comment.unresolve": lambda i, w: [_graphql(UNRESOLVE, t=i["threadId"])],
    "pr.assignees.update": lambda i, w: [
        [
            "pr",
            "edit",
            str(i["prNumber"]),
            *_repo(i),
            *[a for login in i["add"] for a in ("--add-assignee", login)],
            *[a for login in i["remove"] for a in ("--remove-assignee", login)],
        ]
    ],
    "pr.reviewers.request": lambda i, w: [
        ["pr", "edit", str(i["prNumber"]), *_repo(i), "--add-reviewer", ",".join(i["reviewers"])]
    ],
    "pr.branch.update": lambda i, w: [["pr", "update-branch", str(i["prNumber"]), *_repo(i)]],
    "pr.merge.execute": lambda i, w: [
        [
            "pr",
            "merge",
            str(i["prNumber"]),
            *_repo(i),
            f"--{i['method']}",
            *(["--delete-branch"] if i.get("deleteBranch") else []),
        ]
    ],
    "pr.ready_for_review.set": lambda i, w: [
        ["pr", "ready", str(i["prNumber"]), *_repo(i), *([] if i["ready"] else ["--undo"])]
    ],
    "pr.review.submit_approve": lambda i, w: [
        ["pr", "review", str(i["prNumber"]), *_repo(i), "--approve", "-b", i["body"]]
    ],
    "pr.review.submit_comment": lambda i, w: [
        ["pr", "review", str(i["prNumber"]), *_repo(i), "--comment", "-b", i["body"]]
    ],
    "pr.review.submit_request_changes": lambda i, w: [
        ["pr", "review", str(i["prNumber"]), *_repo(i), "--request-changes", "-b", i["body"]]
    ],
    "pr.checks.rerun_all": lambda i, w: [["run", "rerun", str(i["runId"]), *_repo(i)]],
    "pr.checks.rerun_failed": lambda i, w: [
        ["run", "rerun", str(i["runId"]), "--failed", *_repo(i)]
    ],
    "check_run.annotations.list": lambda i, w: [
        ["api", f"repos/{i['owner']}/{i['name']}/check-runs/{i['checkRunId']}/annotations"]
    ],
    "workflow.list": lambda i, w: [["workflow", "list", *_repo(i), "--json", "id,name,path,state"]],
    "workflow.get": lambda i, w: [["workflow", "view", str(i["workflowId"]), *_repo(i)]],
    "workflow_dispatch.run": lambda i, w: [
        [
            "workflow",
            "run",
            str(i["workflowId"]),
            *_repo(i),
            "--ref",
            i["ref"],
            *[a for key, value in i["inputs"].items() for a in ("-f", f"{key}={value}")],
        ]
    ],
    "workflow_runs.list": lambda i, w: [["run", "list", *_repo(i), "-L", str(i["first"])]],
    "workflow_run.get": lambda i, w: [["run", "view", str(i["runId"]), *_repo(i)]],
    "workflow_run.jobs.list": lambda i, w: [
        ["run", "view", str(i["runId"]), *_repo(i), "--json", "jobs"]
    ],
    "workflow_run.artifacts.list": lambda i, w: [
        ["api", f"repos/{i['owner']}/{i['name']}/actions/runs/{i['runId']}/artifacts"]
    ],
    "workflow_run.cancel": lambda i, w: [["run", "cancel", str(i["runId"]), *_repo(i)]],
    "workflow_run.rerun_all": lambda i, w: [["run", "rerun", str(i["runId"]), *_repo(i)]],
    "workflow_run.rerun_failed": lambda i, w: [
        ["run", "rerun", str(i["runId"]), "--failed", *_repo(i)]
    ],
    "workflow_job.logs.get": lambda i, w: [
        ["run", "view", "--job", str(i["jobId"]), "--log", *_repo(i)]
    ],
    "workflow_job.logs.analyze": lambda i, w: [
        ["run", "view", "--job", str(i["jobId"]), "--log-failed", *_repo(i)]
    ],
    "release.list": lambda i, w: [["release", "list", *_repo(i), "-L", str(i["first"])]],
    "release.get": lambda i, w: [
        ["release", "create", i["tagName"], *_repo(i), "--draft", "--title", "t", "--notes", "n"],
        ["release", "view", i["tagName"], *_repo(i)],
    ],
    "release.create_draft": lambda i, w: [
        [
            "release",
            "create",
            i["tagName"],
            *_repo(i),
            "--draft",
            "--title",
            i["title"],
            "--notes",
            i["notes"],
            *(["--prerelease"] if i.get("prerelease") else []),
        ]
    ],
    "release.update": lambda i, w: [
        ["release", "edit", _tag(i, w), *_repo(i), "--title", i["title"], "--notes", i["notes"]]
    ],
    "release.publish_draft": lambda i, w: [
        ["release", "edit", _tag(i, w), *_repo(i), "--title", i["title"], "--draft=false"]
    ],
    "project_v2.org.get": lambda i, w: [
        ["project", "view", str(i["projectNumber"]), "--owner", i["org"], "--format", "json"]
    ],
    "project_v2.user.get": lambda i, w: [
        ["project", "view", str(i["projectNumber"]), "--owner", i["user"], "--format", "json"]
    ],
    "project_v2.fields.list": lambda i, w: [
        [
            "project",
            "field-list",
            str(i["projectNumber"]),
            "--owner",
            i["owner"],
            "--format",
            "json",
        ]
    ],
    "project_v2.items.list": lambda i, w: [
        ["project", "item-list", str(i["projectNumber"]), "--owner", i["owner"], "--format", "json"]
    ],
    "project_v2.item.add_issue": lambda i, w: [
        [
            "project",
            "item-add",
            str(i["projectNumber"]),
            "--owner",
            i["owner"],
            "--url",
            i["issueUrl"],
        ]
    ],
    "project_v2.item.field.update": lambda i, w: [
        [
            "project",
            "item-edit",
            "--id",
            i["itemId"],
            "--project-id",
            i["projectId"],
            "--field-id",
            i["fieldId"],
            "--single-select-option-id",
            i["valueSingleSelectOptionId"],
        ]
    ],
}
"""Capability id -> gh command lines that perform it on a sandbox world."""

_CHECKS_EXIT = {"pr.status.checks": 1}
"""gh pr checks exits 1 when a check failed (the seeded pull request has a failing check)."""
_SETUP = {"release.get"}
"""Tasks whose scenario names an object the seed lacks; the route creates it first."""

_NOW = re.compile(r"^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _normalized(world: World) -> Any:
    """The world's data with every time at or after the seed's clock replaced by ``<now>``."""
    start = seeded().seed.world.clock

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k not in ("clock", "last_id")}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and _NOW.match(value) and value >= start:
            return "<now>"
        return value

    return walk(world.model_dump())


def _atomic() -> list[Any]:
    return [pytest.param(s, id=s.id) for s in external_scenarios() if s.kind == "atomic" and s.task]


@needs_external
@pytest.mark.parametrize("scenario", _atomic())
def test_scenario_task_through_gh(scenario: Any, manifest: dict[str, Any]) -> None:
    bound = bind_input(scenario, manifest)
    route = ROUTES.get(scenario.task)
    assert route is not None, f"no gh route for {scenario.task}"
    world = fresh_world()
    expected_world = copy.deepcopy(world)
    commands = route(bound, world)
    for argv in commands:
        result = run_gh(world, argv)
        wanted = _CHECKS_EXIT.get(scenario.task, 0)
        assert result.exit_code == wanted, f"gh {' '.join(argv)}: {result.stderr}"
        assert result.stdout or result.stderr, f"gh {' '.join(argv)} printed nothing"
        if argv[:2] == ["api", "graphql"]:
            assert "errors" not in json.loads(result.stdout)
    cap = get_capability(scenario.task)
    assert cap is not None
    if cap.mutates and scenario.task not in _SETUP:
        envelope = run_capability(expected_world, scenario.task, bound)
        assert envelope["ok"], envelope["error"]
        assert _normalized(world) == _normalized(expected_world)


def test_every_external_task_has_a_route() -> None:
    tasks = {s.task for s in external_scenarios() if s.kind == "atomic" and s.task}
    assert tasks <= set(ROUTES)
