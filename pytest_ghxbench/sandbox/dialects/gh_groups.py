"""The command groups (``gh pr``, ``gh issue``...) and top-level commands the sandbox's ``gh``
knows, with gh's aliases (``gh pr ls`` is ``gh pr list``)."""

from __future__ import annotations

from pytest_ghxbench.sandbox.dialects.gh_api import API_COMMAND
from pytest_ghxbench.sandbox.dialects.gh_args import Command, Group
from pytest_ghxbench.sandbox.dialects.gh_issue import ISSUE_READ_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_issue_write import ISSUE_WRITE_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_label import LABEL_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_pr import PR_READ_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_pr_state import PR_STATE_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_pr_write import PR_WRITE_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_project import PROJECT_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_release import RELEASE_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_repo import AUTH_COMMANDS, REPO_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_run import RUN_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_search import SEARCH_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_status import STATUS_COMMANDS
from pytest_ghxbench.sandbox.dialects.gh_workflow import WORKFLOW_COMMANDS

__all__ = ["ALIASES", "GROUPS", "TOP_COMMANDS", "UNAVAILABLE"]


def _sorted(*commands: Command) -> tuple[Command, ...]:
    return tuple(sorted(commands, key=lambda c: c.name))


GROUPS: dict[str, Group] = {
    "auth": Group("auth", "Authenticate gh and git with GitHub", _sorted(*AUTH_COMMANDS)),
    "issue": Group(
        "issue",
        "Manage issues",
        _sorted(*ISSUE_READ_COMMANDS, *ISSUE_WRITE_COMMANDS, STATUS_COMMANDS["issue"]),
        long="Work with GitHub issues.",
    ),
    "pr": Group(
        "pr",
        "Manage pull requests",
        _sorted(*PR_READ_COMMANDS, *PR_WRITE_COMMANDS, *PR_STATE_COMMANDS, STATUS_COMMANDS["pr"]),
        long="Work with GitHub pull requests.",
    ),
    "label": Group(
        "label", "Manage labels", _sorted(*LABEL_COMMANDS), long="Work with GitHub labels."
    ),
    "project": Group(
        "project",
        "Work with GitHub Projects.",
        _sorted(*PROJECT_COMMANDS),
        long="Work with GitHub Projects.\n\nThe minimum required scope for the token is: "
        "`project`.",
    ),
    "release": Group("release", "Manage releases", _sorted(*RELEASE_COMMANDS)),
    "repo": Group(
        "repo",
        "Manage repositories",
        _sorted(*REPO_COMMANDS),
        long="Work with GitHub repositories.",
    ),
    "search": Group(
        "search",
        "Search for repositories, issues, and pull requests",
        _sorted(*SEARCH_COMMANDS),
        long="Search across all of GitHub (in the sandbox: its one repository).",
    ),
    "run": Group(
        "run",
        "View details about workflow runs",
        _sorted(*RUN_COMMANDS),
        long="List, view, and watch recent workflow runs from GitHub Actions.",
    ),
    "workflow": Group(
        "workflow",
        "View details about GitHub Actions workflows",
        _sorted(*WORKFLOW_COMMANDS),
        long="List, view, and run workflows in GitHub Actions.",
    ),
}

TOP_COMMANDS: dict[str, Command] = {"api": API_COMMAND}

UNAVAILABLE: dict[tuple[str, str], str] = {
    ("pr", "checkout"): "there is no git checkout in the sandbox",
    ("pr", "create"): "the sandbox has no git branches to push; work on existing pull requests",
    ("pr", "lock"): "locking conversations is not modelled",
    ("pr", "unlock"): "locking conversations is not modelled",
    ("issue", "develop"): "there are no git branches to create in the sandbox",
    ("issue", "transfer"): "the sandbox has a single repository",
    ("issue", "pin"): "pinning is not modelled",
    ("issue", "unpin"): "pinning is not modelled",
    ("issue", "lock"): "locking conversations is not modelled",
    ("issue", "unlock"): "locking conversations is not modelled",
    ("repo", "clone"): "there is no git in the sandbox",
    ("repo", "fork"): "the sandbox has a single repository",
    ("repo", "create"): "the sandbox has a single repository",
    ("repo", "list"): "the sandbox has a single repository; see gh repo view",
    ("release", "upload"): "release assets cannot be uploaded in the sandbox",
    ("release", "download"): "release assets cannot be downloaded in the sandbox",
    ("run", "download"): "artifacts cannot be downloaded in the sandbox; list them with gh api",
    ("run", "delete"): "deleting runs is not modelled",
    ("auth", "login"): "the sandbox is already authenticated",
    ("auth", "logout"): "the sandbox is already authenticated",
    ("auth", "token"): "the sandbox has no token to show",
}
"""Real gh subcommands the sandbox does not serve, with the reason it gives."""

ALIASES: dict[tuple[str, str], str] = {
    ("pr", "ls"): "list",
    ("issue", "ls"): "list",
    ("issue", "new"): "create",
    ("run", "ls"): "list",
    ("release", "ls"): "list",
    ("label", "ls"): "list",
    ("workflow", "ls"): "list",
}
