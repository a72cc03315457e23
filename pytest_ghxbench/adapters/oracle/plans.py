"""The oracle's ``gh`` plans: the command lines that perform each capability with the GitHub
CLI, built from the capability's input: porcelain commands (``gh issue``, ``gh pr``...) here,
``gh api`` / ``gh project`` where gh has no porcelain command (:mod:`.plans_api`), and ``git``
in the item's checkout for code (:mod:`.plans_code`, whose steps are :class:`Shell` commands).

Capabilities keyed by GraphQL node id (``issueId``) name their issue by number on the command
line, as a real agent would after reading it; the oracle looks the number up in the world it
acts on. Capabilities with no entry in :data:`GH_PLANS` make :func:`gh_plan` raise :class:`NoPlan`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_ghxbench.adapters.oracle.executors import NoPlan, Shell, compact_json
from pytest_ghxbench.adapters.oracle.plans_api import API_PLANS
from pytest_ghxbench.adapters.oracle.plans_code import CODE_PLANS
from pytest_ghxbench.sandbox.state import World

__all__ = ["GH_PLANS", "gh_plan", "reports_by_exit_status", "unsupported_capabilities"]

Argv = list[str]
Step = Argv | Shell
"""A gh command line (without the leading ``gh``), or a shell command in the checkout."""
Plan = Callable[[Mapping[str, Any], World], Sequence[Step]]


def _repo(input: Mapping[str, Any]) -> Argv:
    return ["--repo", f"{input['owner']}/{input['name']}"]


def _issue_number(input: Mapping[str, Any], world: World) -> str:
    node = str(input["issueId"])
    issue = world.issue_by_node_id(node)
    # An unknown id is passed through: gh then reports it, as the capability would.
    return str(issue.number) if issue is not None else node


def _world_repo(world: World) -> Argv:
    return ["--repo", world.repository.full_name]


def _limit(input: Mapping[str, Any]) -> Argv:
    return ["--limit", str(input["first"])] if "first" in input else []


def _pr(sub: str, *extra: str) -> Plan:
    return lambda i, w: [["pr", sub, str(i["prNumber"]), *extra, *_repo(i)]]


def _issue_edit(flags: Callable[[Mapping[str, Any], World], Argv]) -> Plan:
    return lambda i, w: [["issue", "edit", _issue_number(i, w), *flags(i, w), *_world_repo(w)]]


def _set_members(current: list[str], wanted: list[str], add: str, remove: str) -> Argv:
    argv: Argv = []
    for name in wanted:
        if name not in current:
            argv += [add, name]
    for name in current:
        if name not in wanted:
            argv += [remove, name]
    return argv


def _labels_update(i: Mapping[str, Any], w: World) -> Argv:
    issue = w.issue_by_node_id(str(i["issueId"]))
    current = list(issue.labels) if issue is not None else []
    return _set_members(current, list(i["labels"]), "--add-label", "--remove-label") or [
        "--add-label",
        ",".join(i["labels"]),
    ]


def _assignees_update(i: Mapping[str, Any], w: World) -> Argv:
    issue = w.issue_by_node_id(str(i["issueId"]))
    current = list(issue.assignees) if issue is not None else []
    wanted = list(i["assignees"])
    # Already as wanted: an edit that changes nothing (gh refuses one without flags); never
    # ``--add-assignee @me``, which would assign the viewer.
    unchanged = ["--add-assignee", ",".join(wanted)] if wanted else ["--remove-assignee", "@me"]
    return _set_members(current, wanted, "--add-assignee", "--remove-assignee") or unchanged


def _milestone(i: Mapping[str, Any], w: World) -> Argv:
    number = i["milestoneNumber"]
    if number is None:
        return ["--remove-milestone"]
    found = next((m for m in w.milestones if m.number == number), None)
    return ["--milestone", found.title if found is not None else str(number)]


def _issue_update(i: Mapping[str, Any], w: World) -> Argv:
    argv: Argv = []
    if "title" in i:
        argv += ["--title", str(i["title"])]
    if "body" in i:
        argv += ["--body", str(i["body"])]
    return argv


def _issue_create(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["issue", "create", "--title", str(i["title"]), "--body", str(i.get("body", ""))]
    for label in i.get("labels", []):
        argv += ["--label", label]
    for login in i.get("assignees", []):
        argv += ["--assignee", login]
    if i.get("milestoneNumber") is not None:
        argv += _milestone(i, w)
    return [[*argv, *_repo(i)]]


def _issue_close(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["issue", "close", _issue_number(i, w)]
    reason = i.get("reason")
    if reason:
        argv += ["--reason", str(reason).lower().replace("_", " ")]
    return [[*argv, *_world_repo(w)]]


def _issue_list(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["issue", "list", *_repo(i), "--state", str(i.get("state", "open")).lower()]
    for label in i.get("labels", []) or []:
        argv += ["--label", label]
    if i.get("assignee"):
        argv += ["--assignee", str(i["assignee"])]
    return [[*argv, *_limit(i)]]


def _pr_list(i: Mapping[str, Any], w: World) -> list[Argv]:
    state = str(i.get("state", "open")).lower()
    return [["pr", "list", *_repo(i), "--state", state, *_limit(i)]]


def _pr_assignees(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["pr", "edit", str(i["prNumber"])]
    for login in i.get("add", []) or []:
        argv += ["--add-assignee", login]
    for login in i.get("remove", []) or []:
        argv += ["--remove-assignee", login]
    return [[*argv, *_repo(i)]]


def _pr_merge(i: Mapping[str, Any], w: World) -> list[Argv]:
    method = str(i.get("method", "merge")).lower()
    argv = ["pr", "merge", str(i["prNumber"]), f"--{method}"]
    if i.get("commitTitle"):
        argv += ["--subject", str(i["commitTitle"])]
    if i.get("commitBody") is not None:
        argv += ["--body", str(i["commitBody"])]
    if i.get("deleteBranch"):
        argv.append("--delete-branch")
    return [[*argv, *_repo(i)]]


def _pr_ready(i: Mapping[str, Any], w: World) -> list[Argv]:
    undo = [] if i["ready"] else ["--undo"]
    return [["pr", "ready", str(i["prNumber"]), *undo, *_repo(i)]]


def _pr_review(kind: str) -> Plan:
    def plan(i: Mapping[str, Any], w: World) -> list[Argv]:
        body = ["--body", str(i["body"])] if i.get("body") else []
        return [["pr", "review", str(i["prNumber"]), f"--{kind}", *body, *_repo(i)]]

    return plan


def _release_tag(i: Mapping[str, Any], w: World) -> str:
    found = next((r for r in w.releases if r.id == i["releaseId"]), None)
    return found.tag_name if found is not None else str(i["releaseId"])


def _release_flags(i: Mapping[str, Any]) -> Argv:
    argv: Argv = []
    for key, flag in (("title", "--title"), ("notes", "--notes"), ("targetCommitish", "--target")):
        if i.get(key) is not None:
            argv += [flag, str(i[key])]
    if i.get("prerelease") is not None:
        argv.append(f"--prerelease={str(bool(i['prerelease'])).lower()}")
    return argv


def _release_create(i: Mapping[str, Any], w: World) -> list[Argv]:
    return [["release", "create", str(i["tagName"]), "--draft", *_release_flags(i), *_repo(i)]]


def _release_update(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["release", "edit", _release_tag(i, w), *_release_flags(i)]
    if i.get("tagName") is not None:
        argv += ["--tag", str(i["tagName"])]
    if i.get("draft") is not None:
        argv.append(f"--draft={str(bool(i['draft'])).lower()}")
    return [[*argv, *_repo(i)]]


def _release_publish(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["release", "edit", _release_tag(i, w), *_release_flags(i), "--draft=false"]
    return [[*argv, *_repo(i)]]


def _dispatch(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["workflow", "run", str(i["workflowId"]), "--ref", str(i["ref"])]
    for key, value in (i.get("inputs") or {}).items():
        argv += ["-f", f"{key}={value if isinstance(value, str) else compact_json(value)}"]
    return [[*argv, *_repo(i)]]


def _runs_list(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["run", "list", *_repo(i), *_limit(i)]
    for key, flag in (
        ("branch", "--branch"),
        ("event", "--event"),
        ("status", "--status"),
        ("workflowId", "--workflow"),
    ):
        if i.get(key) is not None:
            argv += [flag, str(i[key])]
    return [argv]


def _cancel(i: Mapping[str, Any], w: World) -> list[Argv]:
    """GitHub refuses to cancel a finished run (409): an agent that looks first only reads it."""
    run = w.workflow_run(int(i["runId"]))
    if run is not None and run.status == "completed":
        return [
            ["run", "view", str(i["runId"]), "--json", "databaseId,status,conclusion", *_repo(i)]
        ]
    return [["run", "cancel", str(i["runId"]), *_repo(i)]]


_PORCELAIN_PLANS: Mapping[str, Plan] = {
    "repo.view": lambda i, w: [["repo", "view", f"{i['owner']}/{i['name']}"]],
    "repo.labels.list": lambda i, w: [["label", "list", *_repo(i), *_limit(i)]],
    "issue.view": lambda i, w: [["issue", "view", str(i["issueNumber"]), *_repo(i)]],
    "issue.list": _issue_list,
    "issue.comments.list": lambda i, w: [
        ["issue", "view", str(i["issueNumber"]), "--comments", *_repo(i)]
    ],
    "issue.create": _issue_create,
    "issue.update": _issue_edit(_issue_update),
    "issue.close": _issue_close,
    "issue.reopen": lambda i, w: [["issue", "reopen", _issue_number(i, w), *_world_repo(w)]],
    "issue.delete": lambda i, w: [
        ["issue", "delete", _issue_number(i, w), "--yes", *_world_repo(w)]
    ],
    "issue.comments.create": lambda i, w: [
        ["issue", "comment", _issue_number(i, w), "--body", str(i["body"]), *_world_repo(w)]
    ],
    "issue.labels.update": _issue_edit(_labels_update),
    "issue.labels.add": _issue_edit(lambda i, w: ["--add-label", ",".join(i["labels"])]),
    "issue.assignees.update": _issue_edit(_assignees_update),
    "issue.milestone.set": _issue_edit(_milestone),
    "pr.view": _pr("view"),
    "pr.list": _pr_list,
    "pr.diff.list_files": _pr("diff", "--name-only"),
    "pr.status.checks": _pr("checks"),
    "pr.checks.get_failed": _pr("checks"),
    "pr.reviews.list": _pr("view", "--json", "reviews"),
    "pr.mergeability.view": _pr("view", "--json", "mergeable,mergeStateStatus"),
    "pr.assignees.update": _pr_assignees,
    "pr.reviewers.request": lambda i, w: [
        ["pr", "edit", str(i["prNumber"]), "--add-reviewer", ",".join(i["reviewers"]), *_repo(i)]
    ],
    "pr.branch.update": _pr("update-branch"),
    "pr.merge.execute": _pr_merge,
    "pr.ready_for_review.set": _pr_ready,
    "pr.review.submit_approve": _pr_review("approve"),
    "pr.review.submit_comment": _pr_review("comment"),
    "pr.review.submit_request_changes": _pr_review("request-changes"),
    "pr.checks.rerun_all": lambda i, w: [["run", "rerun", str(i["runId"]), *_repo(i)]],
    "pr.checks.rerun_failed": lambda i, w: [
        ["run", "rerun", str(i["runId"]), "--failed", *_repo(i)]
    ],
    "release.list": lambda i, w: [["release", "list", *_repo(i), *_limit(i)]],
    "release.get": lambda i, w: [["release", "view", str(i["tagName"]), *_repo(i)]],
    "release.create_draft": _release_create,
    "release.update": _release_update,
    "release.publish_draft": _release_publish,
    "workflow.list": lambda i, w: [["workflow", "list", *_repo(i), *_limit(i)]],
    "workflow.get": lambda i, w: [["workflow", "view", str(i["workflowId"]), *_repo(i)]],
    "workflow_dispatch.run": _dispatch,
    "workflow_runs.list": _runs_list,
    "workflow_run.get": lambda i, w: [["run", "view", str(i["runId"]), *_repo(i)]],
    "workflow_run.jobs.list": lambda i, w: [
        ["run", "view", str(i["runId"]), "--json", "jobs", *_repo(i)]
    ],
    "workflow_run.cancel": _cancel,
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
}

GH_PLANS: Mapping[str, Plan] = {**_PORCELAIN_PLANS, **API_PLANS, **CODE_PLANS}
"""Capability id -> the gh command lines (without the leading ``gh``) and shell commands that
perform it."""


def gh_plan(task: str, input: Mapping[str, Any], world: World) -> list[Step]:
    """The steps for capability ``task`` with ``input``; :class:`NoPlan` if none."""
    plan = GH_PLANS.get(task)
    if plan is None:
        raise NoPlan(f"oracle has no gh plan for {task}")
    try:
        return list(plan(input, world))
    except KeyError as exc:
        # A missing required input: the capability's validation error is the honest answer,
        # and one plain command still shows the attempt in the transcript.
        raise NoPlan(f"gh plan for {task} needs input key {exc}") from None


def unsupported_capabilities() -> list[str]:
    """Capability ids of the sandbox that have no gh plan (sorted)."""
    from pytest_ghxbench.ghx.registry import all_capabilities

    return sorted(cap.id for cap in all_capabilities() if cap.id not in GH_PLANS)


def reports_by_exit_status(step: Step) -> bool:
    """Whether a non-zero exit of this step is an answer rather than a failure: ``gh pr
    checks`` exits 1 when a check failed and 8 when checks are pending."""
    return isinstance(step, list) and step[:2] == ["pr", "checks"]
