"""Repository capabilities: ``repo.view``, ``repo.labels.list``, ``repo.issue_types.list``,
``repo.milestones.list``."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    AFTER,
    FIRST,
    capability,
    page,
    repo_schema,
    require_repo,
)
from pytest_ghxbench.sandbox.state import IssueType, Label, Milestone, World

REPO_INPUT = repo_schema()
REPO_PAGE_INPUT = repo_schema(first=FIRST, after=AFTER)


@capability("repo.view", "Fetch repository metadata.", REPO_INPUT)
def repo_view(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    repo = world.repository
    return {
        "id": repo.node_id,
        "name": repo.name,
        "nameWithOwner": repo.full_name,
        "owner": repo.owner,
        "description": repo.description,
        "isPrivate": repo.is_private,
        "visibility": repo.visibility,
        "isArchived": repo.is_archived,
        "url": repo.url,
        "homepageUrl": repo.homepage_url,
        "defaultBranch": repo.default_branch,
        "stargazerCount": repo.stargazer_count,
        "forkCount": repo.fork_count,
        "watcherCount": repo.watcher_count,
        "primaryLanguage": repo.primary_language,
        "licenseInfo": repo.license,
        "topics": list(repo.topics),
        "hasIssuesEnabled": repo.has_issues_enabled,
        "createdAt": repo.created_at,
        "pushedAt": repo.pushed_at,
    }


def label_data(label: Label) -> dict[str, Any]:
    return {
        "id": label.node_id,
        "name": label.name,
        "color": label.color,
        "description": label.description,
        "isDefault": label.is_default,
    }


@capability("repo.labels.list", "List the repository's labels.", REPO_PAGE_INPUT)
def repo_labels_list(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    return page(world.labels, input, label_data)


def issue_type_data(kind: IssueType) -> dict[str, Any]:
    return {
        "id": kind.node_id,
        "name": kind.name,
        "description": kind.description,
        "color": kind.color,
        "isEnabled": kind.is_enabled,
    }


@capability(
    "repo.issue_types.list", "List the issue types available in the repository.", REPO_PAGE_INPUT
)
def repo_issue_types_list(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    return page(world.issue_types, input, issue_type_data)


def milestone_data(world: World, milestone: Milestone) -> dict[str, Any]:
    issues = [i for i in world.issues if i.milestone == milestone.number]
    return {
        "id": milestone.node_id,
        "number": milestone.number,
        "title": milestone.title,
        "description": milestone.description,
        "state": milestone.state,
        "dueOn": milestone.due_on,
        "openIssues": sum(1 for i in issues if i.state == "OPEN"),
        "closedIssues": sum(1 for i in issues if i.state == "CLOSED"),
        "url": f"{world.repository.url}/milestone/{milestone.number}",
    }


@capability(
    "repo.milestones.list",
    "List the repository's milestones (open ones unless state says otherwise).",
    repo_schema(
        state={"enum": ["open", "closed", "all"], "default": "open"},
        first=FIRST,
        after=AFTER,
    ),
)
def repo_milestones_list(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    wanted = input["state"].upper()
    chosen = [m for m in world.milestones if wanted in ("ALL", m.state)]
    return page(chosen, input, lambda m: milestone_data(world, m))
