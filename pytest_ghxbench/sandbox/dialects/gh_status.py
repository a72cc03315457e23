"""``gh pr status`` and ``gh issue status``: what concerns the viewer, as gh lists it.

The sandbox behaves as if run in a clone checked out on the default branch, so the "current
branch" section names that branch.
"""

from __future__ import annotations

from pytest_ghxbench.sandbox.dialects.gh_args import Command, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, ok
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Issue, PullRequest

__all__ = ["STATUS_COMMANDS"]


def _pull_line(pull: PullRequest) -> str:
    state = "Draft" if pull.is_draft else pull.state.capitalize()
    return f"  #{pull.number}  {pull.title} [{pull.head_ref}]  - {state}"


def _section(title: str, lines: list[str], empty: str) -> list[str]:
    return [title, *(lines or [f"  {empty}"]), ""]


def _pr_status(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    world = ctx.world
    viewer = world.viewer
    branch = world.repository.default_branch
    open_pulls = [p for p in world.pull_requests if p.state == "OPEN"]
    current = [p for p in open_pulls if p.head_ref == branch]
    mine = [p for p in open_pulls if p.author == viewer]
    to_review = [p for p in open_pulls if viewer in p.requested_reviewers]
    lines = [
        "",
        f"Relevant pull requests in {ctx.full_name}",
        "",
        *_section(
            "Current branch",
            [_pull_line(p) for p in current],
            f"There is no pull request associated with [{branch}]",
        ),
        *_section(
            "Created by you", [_pull_line(p) for p in mine], "You have no open pull requests"
        ),
        *_section(
            "Requesting a code review from you",
            [_pull_line(p) for p in to_review],
            "You have no pull requests to review",
        ),
    ]
    return ok("\n".join(lines))


def _issue_line(issue: Issue) -> str:
    labels = f"  ({', '.join(issue.labels)})" if issue.labels else ""
    return f"  #{issue.number}  {issue.title}{labels}"


def _issue_status(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    world = ctx.world
    viewer = world.viewer
    open_issues = [i for i in world.issues if i.state == "OPEN"]
    lines = [
        "",
        f"Relevant issues in {ctx.full_name}",
        "",
        *_section(
            "Issues assigned to you",
            [_issue_line(i) for i in open_issues if viewer in i.assignees],
            "There are no issues assigned to you",
        ),
        *_section(
            "Issues mentioning you",
            [_issue_line(i) for i in open_issues if f"@{viewer}" in i.body],
            "There are no issues mentioning you",
        ),
        *_section(
            "Issues opened by you",
            [_issue_line(i) for i in open_issues if i.author == viewer],
            "There are no issues opened by you",
        ),
    ]
    return ok("\n".join(lines))


STATUS_COMMANDS = {
    "pr": Command(
        "pr status",
        "status",
        "Show status of relevant pull requests",
        _pr_status,
        long="Show status of relevant pull requests.",
        max_args=0,
    ),
    "issue": Command(
        "issue status",
        "status",
        "Show status of relevant issues",
        _issue_status,
        max_args=0,
    ),
}
