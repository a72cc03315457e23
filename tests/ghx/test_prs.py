"""ghx pull request capabilities over HTTP: reads, checks, mergeability, assignees, branch,
merge; the external pr.* scenarios; and answers recorded when they agreed with the former
in-process capabilities."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from pytest_ghxbench.attempt.judge import Judgement, judge_atomic
from pytest_ghxbench.sandbox.code import branch_sha
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import User, World
from pytest_ghxbench.scenario.manifest import bind_input
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.code import commit_on, conflicting_main, protect
from tests.ghx import conftest as served
from tests.sandbox.conftest import external_atomic, needs_external

REPO = {"owner": "acme-labs", "name": "tinykv"}
FAILED_RUN, GREEN_RUN = 13500000003, 13500000002
SCENARIOS = external_atomic("pr.")
DOTCOM = "https://github.com"


def data(world: World, task: str, **input: Any) -> Any:
    return served.ok(world, task, {**REPO, **input})


def error(world: World, task: str, **input: Any) -> dict[str, str]:
    return served.error(world, task, {**REPO, **input})


def protect_main(world: World) -> None:
    protect(world, "main")


def on_dotcom(value: Any) -> Any:
    """``value`` with the served web root (``http://127.0.0.1:PORT``) read as github.com, the
    host the world-based capabilities build their URLs on."""
    assert served._SERVER is not None
    root = served._SERVER.api_url.removesuffix("/api/v3")
    return json.loads(json.dumps(value).replace(json.dumps(root)[1:-1], DOTCOM))


def same_as_world(
    task: str, input: Mapping[str, Any], prepare: Callable[[World], None] | None = None
) -> dict[str, Any]:
    """:func:`tests.ghx.conftest.assert_as_recorded`."""
    return served.assert_as_recorded(task, input, prepare)


def run_scenario(scenario: AtomicScenario) -> tuple[dict[str, Any], Judgement]:
    """The scenario's task on its bound input over HTTP on a fresh world, judged as ghx."""
    bound = bind_input(scenario, seeded().manifest)
    world = fresh_world()
    try:
        envelope = served.run(world, scenario.task, bound)
    finally:
        served.forget(world)
    judgement = judge_atomic(
        scenario, mode="ghx", final_text=json.dumps(envelope), tool_call_count=1
    )
    return envelope, judgement


# ---------------------------------------------------------------- the external scenarios


@needs_external
def test_every_external_pr_scenario_is_covered() -> None:
    assert len(SCENARIOS) == 21


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.id)
def test_external_scenario_passes_in_ghx_mode(scenario: AtomicScenario) -> None:
    envelope, judgement = run_scenario(scenario)
    assert judgement.passed, (judgement.failures, envelope)


# ---------------------------------------------------------------- differential

PR = {**REPO, "prNumber": 7}
DIFFERENTIAL: list[tuple[str, dict[str, Any]]] = [
    ("pr.view", PR),
    ("pr.view", {**REPO, "prNumber": 9, "exclude": ["body"]}),
    ("pr.view", {**REPO, "prNumber": 8}),
    ("pr.view", {**REPO, "prNumber": 3}),
    ("pr.view", {**REPO, "prNumber": 99}),
    ("pr.view", {"owner": "acme-labs", "name": "nope", "prNumber": 7}),
    ("pr.view", {**REPO, "prNumber": 0}),
    ("pr.list", REPO),
    ("pr.list", {**REPO, "state": "all"}),
    ("pr.list", {**REPO, "state": "all", "first": 2}),
    ("pr.list", {**REPO, "state": "closed"}),
    ("pr.list", {**REPO, "state": "merged"}),
    ("pr.list", {**REPO, "state": "bogus"}),
    ("pr.list", {"owner": "nobody", "name": "tinykv"}),
    ("pr.diff.list_files", PR),
    ("pr.diff.list_files", {**PR, "first": 2}),
    ("pr.diff.list_files", {**REPO, "prNumber": 9}),
    ("pr.diff.list_files", {**REPO, "prNumber": 99}),
    ("pr.mergeability.view", PR),
    ("pr.mergeability.view", {**REPO, "prNumber": 8}),
    ("pr.mergeability.view", {**REPO, "prNumber": 9}),
    ("pr.mergeability.view", {**REPO, "prNumber": 3}),
    ("pr.assignees.update", {**PR, "add": ["aryeko", "mona"]}),
    ("pr.assignees.update", {**PR, "add": ["lee-k"], "remove": ["mona"]}),
    ("pr.assignees.update", {**PR, "remove": ["mona", "octocat"]}),
    ("pr.assignees.update", {**REPO, "prNumber": 9, "add": ["lee-k"]}),
    ("pr.assignees.update", {**PR, "add": ["nobody-here"]}),
    ("pr.assignees.update", PR),
    ("pr.assignees.update", {**REPO, "prNumber": 99, "add": ["lee-k"]}),
    ("pr.ready_for_review.set", {**REPO, "prNumber": 8, "ready": True}),
    ("pr.ready_for_review.set", {**REPO, "prNumber": 8, "ready": False}),
    ("pr.ready_for_review.set", {**PR, "ready": True}),
    ("pr.ready_for_review.set", {**PR, "ready": False}),
    ("pr.ready_for_review.set", {**REPO, "prNumber": 9, "ready": True}),
    ("pr.ready_for_review.set", {**REPO, "prNumber": 99, "ready": True}),
    ("pr.ready_for_review.set", PR),
    ("pr.branch.update", PR),
    ("pr.branch.update", {**REPO, "prNumber": 8}),
    ("pr.branch.update", {**REPO, "prNumber": 9}),
    ("pr.branch.update", {**REPO, "prNumber": 99}),
    ("pr.merge.execute", PR),
    ("pr.merge.execute", {**PR, "method": "squash", "deleteBranch": True}),
    ("pr.merge.execute", {**PR, "method": "rebase"}),
    ("pr.merge.execute", {**REPO, "prNumber": 8}),
    ("pr.merge.execute", {**REPO, "prNumber": 9}),
    ("pr.merge.execute", {**REPO, "prNumber": 99}),
    ("pr.merge.execute", {**PR, "method": "octopus"}),
    ("pr.status.checks", PR),
    ("pr.status.checks", {**REPO, "prNumber": 8}),
    ("pr.status.checks", {**REPO, "prNumber": 9}),
    ("pr.status.checks", {**REPO, "prNumber": 99}),
    ("pr.checks.get_failed", PR),
    ("pr.checks.get_failed", {**REPO, "prNumber": 8}),
    ("pr.checks.get_failed", {**REPO, "prNumber": 3}),
    ("pr.checks.rerun_failed", {**PR, "runId": FAILED_RUN}),
    ("pr.checks.rerun_failed", {**PR, "runId": GREEN_RUN}),
    ("pr.checks.rerun_failed", {**PR, "runId": 1}),
    ("pr.checks.rerun_failed", {**REPO, "prNumber": 99, "runId": FAILED_RUN}),
    ("pr.checks.rerun_all", {**PR, "runId": FAILED_RUN}),
    ("pr.checks.rerun_all", {**PR, "runId": GREEN_RUN}),
    ("pr.checks.rerun_all", PR),
]


@pytest.mark.parametrize(
    ("task", "input"), DIFFERENTIAL, ids=[f"{t}-{i}" for i, (t, _) in enumerate(DIFFERENTIAL)]
)
def test_same_as_the_world_capability(task: str, input: dict[str, Any]) -> None:
    same_as_world(task, input)


def _conflicting(world: World) -> None:
    conflicting_main(world)


def _main_moved(world: World) -> None:
    commit_on(world, "main", {"docs/index.md": "# tinykv\n"}, "Shorten the docs")


def _protect_head(world: World) -> None:
    protect(world, "fix/compaction-lock")


def _many_collaborators(world: World) -> None:
    world.collaborators += [f"dev{i}" for i in range(10)]
    world.users += [User(login=f"dev{i}") for i in range(10)]


def _ready_on_protected_main(world: World) -> None:
    protect_main(world)
    pull = world.pull_request(8)
    assert pull is not None
    pull.is_draft, pull.merge_state_status = False, "BLOCKED"


PREPARED: list[tuple[str, dict[str, Any], Callable[[World], None]]] = [
    ("pr.branch.update", PR, _conflicting),
    ("pr.merge.execute", PR, _conflicting),
    ("pr.mergeability.view", PR, _conflicting),
    ("pr.branch.update", PR, _main_moved),
    ("pr.merge.execute", {**PR, "deleteBranch": True}, _protect_head),
    ("pr.merge.execute", {**REPO, "prNumber": 8}, _ready_on_protected_main),
    ("pr.mergeability.view", {**REPO, "prNumber": 8}, _ready_on_protected_main),
    ("pr.mergeability.view", PR, protect_main),
    ("pr.assignees.update", {**PR, "add": [f"dev{i}" for i in range(10)]}, _many_collaborators),
    ("pr.assignees.update", {**PR, "add": [f"dev{i}" for i in range(9)]}, _many_collaborators),
]


@pytest.mark.parametrize(
    ("task", "input", "prepare"),
    PREPARED,
    ids=[f"{t}-{p.__name__}-{i}" for i, (t, _, p) in enumerate(PREPARED)],
)
def test_same_as_the_world_capability_after_a_change(
    task: str, input: dict[str, Any], prepare: Callable[[World], None]
) -> None:
    same_as_world(task, input, prepare)


# ---------------------------------------------------------------- reads


def test_view(world: World) -> None:
    pull = data(world, "pr.view", prNumber=7)
    assert (pull["number"], pull["state"], pull["isDraft"]) == (7, "OPEN", False)
    assert (pull["headRefName"], pull["baseRefName"]) == ("fix/compaction-lock", "main")
    assert pull["labels"] == ["bug", "performance"]
    assert pull["url"].endswith("/acme-labs/tinykv/pull/7")
    assert "body" not in data(world, "pr.view", prNumber=7, exclude=["body"])


def test_an_issue_number_is_not_a_pull_request(world: World) -> None:
    problem = error(world, "pr.view", prNumber=3)
    assert problem["code"] == "NOT_FOUND"
    assert "#3 is an issue" in problem["message"]
    assert error(world, "pr.view", prNumber=99)["code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    "input", [{"prNumber": 0}, {"prNumber": "7"}, {}, {"prNumber": 7, "fields": ["title"]}]
)
def test_bad_input_is_a_validation_error(world: World, input: dict[str, Any]) -> None:
    assert error(world, "pr.view", **input)["code"] == "VALIDATION"


@pytest.mark.parametrize(
    ("state", "numbers"),
    [("open", [8, 7]), ("closed", [9]), ("merged", [9]), ("all", [9, 8, 7])],
)
def test_list_by_state_newest_first(world: World, state: str, numbers: list[int]) -> None:
    items = data(world, "pr.list", state=state)["items"]
    assert [pull["number"] for pull in items] == numbers


def test_list_pages(world: World) -> None:
    first = data(world, "pr.list", first=1)
    assert [p["number"] for p in first["items"]] == [8]
    assert first["pageInfo"]["hasNextPage"] is True
    second = data(world, "pr.list", first=1, after=first["pageInfo"]["endCursor"])
    assert [p["number"] for p in second["items"]] == [7]
    assert second["pageInfo"]["hasNextPage"] is False


def test_changed_files(world: World) -> None:
    items = data(world, "pr.diff.list_files", prNumber=7)["items"]
    assert [(f["path"], f["additions"], f["deletions"], f["changeType"]) for f in items] == [
        ("src/tinykv/compaction.py", 3, 2, "MODIFIED"),
        ("src/tinykv/segment.py", 7, 0, "MODIFIED"),
        ("src/tinykv/snapshot.py", 6, 3, "MODIFIED"),
        ("tests/test_compaction.py", 12, 0, "MODIFIED"),
    ]
    first = data(world, "pr.diff.list_files", prNumber=7, first=3)
    assert first["pageInfo"]["hasNextPage"] is True
    rest = data(world, "pr.diff.list_files", prNumber=7, after=first["pageInfo"]["endCursor"])
    assert [f["path"] for f in rest["items"]] == ["tests/test_compaction.py"]


# ---------------------------------------------------------------- checks


def test_checks_of_the_head_commit(world: World) -> None:
    checks = data(world, "pr.status.checks", prNumber=7)
    assert [(c["name"], c["state"], c["bucket"], c["workflow"]) for c in checks["items"]] == [
        ("lint", "SUCCESS", "pass", "CI"),
        ("test (3.11)", "SUCCESS", "pass", "CI"),
        ("test (3.12)", "FAILURE", "fail", "CI"),
        ("codecov/patch", "NEUTRAL", "skipping", ""),
    ]
    summary = {"total": 4, "passed": 2, "failed": 1, "pending": 0, "skipped": 1}
    assert checks["summary"] == summary
    failed = data(world, "pr.checks.get_failed", prNumber=7)
    assert [c["name"] for c in failed["items"]] == ["test (3.12)"]
    assert failed["items"][0]["link"].endswith("/actions/runs/13500000003/job/37800000007")
    assert failed["summary"] == summary
    assert data(world, "pr.status.checks", prNumber=8) == {
        "items": [],
        "summary": {"total": 0, "passed": 0, "failed": 0, "pending": 0, "skipped": 0},
    }


def test_rerunning_failed_checks_makes_them_pending(world: World) -> None:
    result = data(world, "pr.checks.rerun_failed", prNumber=7, runId=FAILED_RUN)
    assert result == {
        "prNumber": 7,
        "runId": FAILED_RUN,
        "mode": "failed",
        "queued": True,
        "runAttempt": 2,
    }
    checks = data(world, "pr.status.checks", prNumber=7)
    assert [(c["name"], c["state"]) for c in checks["items"]][2] == ("test (3.12)", "QUEUED")
    assert checks["summary"]["failed"] == 0 and checks["summary"]["pending"] == 1
    assert data(world, "pr.checks.get_failed", prNumber=7)["items"] == []
    run = world.workflow_run(FAILED_RUN)
    assert run is not None and (run.status, run.run_attempt) == ("queued", 2)
    # A queued run cannot re-run again.
    assert error(world, "pr.checks.rerun_all", prNumber=7, runId=FAILED_RUN)["code"] == "CONFLICT"


def test_rerun_all_checks(world: World) -> None:
    data(world, "pr.checks.rerun_all", prNumber=7, runId=FAILED_RUN)
    summary = data(world, "pr.status.checks", prNumber=7)["summary"]
    assert (summary["pending"], summary["passed"], summary["skipped"]) == (3, 0, 1)


def test_rerun_needs_a_run_of_the_pull_request(world: World) -> None:
    problem = error(world, "pr.checks.rerun_failed", prNumber=7, runId=GREEN_RUN)
    assert (
        problem["code"] == "VALIDATION" and "did not run for pull request #7" in problem["message"]
    )
    assert error(world, "pr.checks.rerun_all", prNumber=7, runId=1)["code"] == "NOT_FOUND"
    assert error(world, "pr.checks.rerun_all", prNumber=7)["code"] == "VALIDATION"


# ---------------------------------------------------------------- mergeability and draft state


def test_mergeability(world: World) -> None:
    assert data(world, "pr.mergeability.view", prNumber=7) == {
        "mergeable": "MERGEABLE",
        "mergeStateStatus": "UNSTABLE",
        "reviewDecision": "CHANGES_REQUESTED",
        "isDraft": False,
        "state": "OPEN",
    }
    draft = data(world, "pr.mergeability.view", prNumber=8)
    assert (draft["mergeStateStatus"], draft["reviewDecision"], draft["isDraft"]) == (
        "DRAFT",
        None,
        True,
    )


def test_ready_for_review_and_back_to_draft(world: World) -> None:
    assert data(world, "pr.ready_for_review.set", prNumber=8, ready=True) == {
        "prNumber": 8,
        "isDraft": False,
    }
    assert data(world, "pr.mergeability.view", prNumber=8)["mergeStateStatus"] == "CLEAN"
    assert data(world, "pr.ready_for_review.set", prNumber=8, ready=False)["isDraft"] is True
    assert data(world, "pr.mergeability.view", prNumber=8)["mergeStateStatus"] == "DRAFT"
    # Asking for the state it already has changes nothing.
    assert data(world, "pr.ready_for_review.set", prNumber=7, ready=True)["isDraft"] is False
    assert error(world, "pr.ready_for_review.set", prNumber=9, ready=True)["code"] == "CONFLICT"


def test_a_protected_base_requires_review(world: World) -> None:
    protect_main(world)
    data(world, "pr.ready_for_review.set", prNumber=8, ready=True)
    view = data(world, "pr.mergeability.view", prNumber=8)
    assert (view["reviewDecision"], view["mergeStateStatus"]) == ("REVIEW_REQUIRED", "BLOCKED")
    problem = error(world, "pr.merge.execute", prNumber=8)
    assert problem["code"] == "CONFLICT"
    assert "At least 1 approving review is required" in problem["message"]  # GitHub's words


# ---------------------------------------------------------------- assignees


def test_assignees_are_added_and_removed(world: World) -> None:
    result = data(world, "pr.assignees.update", prNumber=7, add=["aryeko", "mona"], remove=[])
    assert result["assignees"] == ["mona", "aryeko"]
    result = data(world, "pr.assignees.update", prNumber=7, remove=["mona", "octocat"])
    assert result == {
        "prNumber": 7,
        "add": [],
        "remove": ["mona", "octocat"],
        "assignees": ["aryeko"],
        "updated": True,
    }


def test_assignee_refusals(world: World) -> None:
    problem = error(world, "pr.assignees.update", prNumber=7, add=["nobody-here"])
    assert problem["code"] == "VALIDATION" and "nobody-here" in problem["message"]
    assert error(world, "pr.assignees.update", prNumber=7)["code"] == "VALIDATION"
    assert error(world, "pr.assignees.update", prNumber=7, add=[""])["code"] == "VALIDATION"
    _many_collaborators(world)
    too_many = [f"dev{i}" for i in range(10)]
    assert error(world, "pr.assignees.update", prNumber=7, add=too_many)["code"] == "VALIDATION"
    assert data(world, "pr.view", prNumber=7)["number"] == 7
    pull = world.pull_request(7)
    assert pull is not None and pull.assignees == ["mona"]


# ---------------------------------------------------------------- branch update and merge


def test_updating_a_branch_that_is_behind(world: World) -> None:
    assert data(world, "pr.branch.update", prNumber=7)["updated"] is False
    old_head = branch_sha(world, "fix/compaction-lock")
    _main_moved(world)
    main = branch_sha(world, "main")
    result = data(world, "pr.branch.update", prNumber=7)
    assert result["updated"] is True
    assert result["headSha"] == branch_sha(world, "fix/compaction-lock") != old_head
    merge = world.git.commit(result["headSha"])
    assert merge is not None and merge.parents == (old_head, main)
    assert merge.title == "Merge branch 'main' into fix/compaction-lock"
    # As on GitHub, the push to the pull request's branch started its CI: checks pending.
    summary = data(world, "pr.status.checks", prNumber=7)["summary"]
    assert summary["total"] == summary["pending"] > 0
    assert data(world, "pr.branch.update", prNumber=7)["updated"] is False


def test_a_conflicting_branch_cannot_be_updated_or_merged(world: World) -> None:
    conflicting_main(world)
    pull = world.pull_request(7)
    assert pull is not None and pull.mergeable == "CONFLICTING"
    assert error(world, "pr.branch.update", prNumber=7)["code"] == "CONFLICT"
    assert error(world, "pr.merge.execute", prNumber=7)["code"] == "CONFLICT"


def test_merging_closes_the_fixed_issue_and_deletes_the_branch(world: World) -> None:
    result = data(world, "pr.merge.execute", prNumber=7, method="squash", deleteBranch=True)
    assert (result["merged"], result["queued"], result["branchDeleted"]) == (True, False, True)
    view = data(world, "pr.view", prNumber=7)
    assert view["state"] == "MERGED"
    assert [p["number"] for p in data(world, "pr.list")["items"]] == [8]
    issue = world.issue(3)
    assert issue is not None and (issue.state, issue.state_reason) == ("CLOSED", "COMPLETED")
    branches = world.git.branches()
    assert "fix/compaction-lock" not in branches
    assert branches["main"] == result["mergeCommitSha"]
    squashed = world.git.commit(result["mergeCommitSha"])
    assert squashed is not None and len(squashed.parents) == 1
    assert squashed.title == "Release the compaction lock before writing snapshots (#7)"
    assert world.git.read(squashed.sha, "tests/test_compaction.py") == world.git.read(
        world.git.ref("refs/pull/7/head") or "", "tests/test_compaction.py"
    )
    problem = error(world, "pr.merge.execute", prNumber=7)
    assert problem["code"] == "CONFLICT" and "merged" in problem["message"]


def test_a_protected_head_branch_is_kept(world: World) -> None:
    protect(world, "fix/compaction-lock")
    result = data(world, "pr.merge.execute", prNumber=7, deleteBranch=True)
    assert (result["merged"], result["branchDeleted"]) == (True, False)
    assert "fix/compaction-lock" in world.git.branches()


def test_merge_defaults_keep_the_branch(world: World) -> None:
    result = data(world, "pr.merge.execute", prNumber=7)
    assert (result["method"], result["deleteBranch"], result["branchDeleted"]) == (
        "merge",
        False,
        False,
    )
    assert "fix/compaction-lock" in world.git.branches()
    merge = world.git.commit(result["mergeCommitSha"])
    assert merge is not None and merge.parents[1] == world.git.branches()["fix/compaction-lock"]
    assert merge.title == "Merge pull request #7 from acme-labs/fix/compaction-lock"


def test_a_draft_cannot_be_merged(world: World) -> None:
    problem = error(world, "pr.merge.execute", prNumber=8, method="rebase")
    assert problem["code"] == "CONFLICT" and "draft" in problem["message"]
    assert error(world, "pr.merge.execute", prNumber=7, method="octopus")["code"] == "VALIDATION"
