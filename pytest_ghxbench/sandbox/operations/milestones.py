"""World operations on a repository's milestones: creating, editing (closing, reopening) and
deleting one. GitHub's GraphQL schema has no milestone mutations: these are its REST
operations."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.errors import GitHubError, NotFound
from pytest_ghxbench.sandbox.operations.registry import operation, require_repo
from pytest_ghxbench.sandbox.state import Issue, Milestone, PullRequest, World

__all__: list[str] = []


def _milestone(world: World, number: int) -> Milestone:
    found = world.milestone(number)
    if found is None:
        raise NotFound(f"Could not resolve to a Milestone with the number of {number}.")
    return found


def _require_free_title(world: World, title: str, number: int | None = None) -> None:
    """GitHub's 422 ``already_exists`` when another milestone has ``title``."""
    folded = title.casefold()
    if any(m.title.casefold() == folded and m.number != number for m in world.milestones):
        raise GitHubError.validation("Milestone", "title", "already_exists")


def _apply(world: World, milestone: Milestone, input: dict[str, Any], now: str) -> None:
    if input.get("description") is not None:
        milestone.description = str(input["description"])
    if "dueOn" in input:
        milestone.due_on = input["dueOn"]
    state = input.get("state")
    if state is not None and state.upper() != milestone.state:
        milestone.state = "CLOSED" if state.upper() == "CLOSED" else "OPEN"
        milestone.closed_at = now if milestone.state == "CLOSED" else None
    milestone.updated_at = now


def _data(milestone: Milestone) -> dict[str, Any]:
    return {
        "id": milestone.node_id,
        "number": milestone.number,
        "title": milestone.title,
        "state": milestone.state,
    }


@operation("issues/create-milestone")
def milestone_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``title``, and optionally ``description``, ``state`` (open, closed) and ``dueOn``."""
    require_repo(world, input)
    title = str(input["title"])
    _require_free_title(world, title)
    number = max((m.number for m in world.milestones), default=0) + 1
    now = world.tick()
    milestone = Milestone(
        number=number, title=title, node_id=world.node("MI", number), created_at=now
    )
    _apply(world, milestone, input, now)
    world.milestones.append(milestone)
    return _data(milestone)


@operation("issues/update-milestone")
def milestone_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``number``, and any of ``title``, ``description``, ``state`` and ``dueOn``."""
    require_repo(world, input)
    milestone = _milestone(world, int(input["number"]))
    if input.get("title") is not None:
        _require_free_title(world, str(input["title"]), milestone.number)
    now = world.tick()
    if input.get("title") is not None:
        milestone.title = str(input["title"])
    _apply(world, milestone, input, now)
    return _data(milestone)


@operation("issues/delete-milestone")
def milestone_delete(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``number``: the milestone goes, and its issues and pull requests lose it."""
    require_repo(world, input)
    milestone = _milestone(world, int(input["number"]))
    world.milestones.remove(milestone)
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    for item in items:
        if item.milestone == milestone.number:
            item.milestone = None
    return {"number": milestone.number, "deleted": True}
