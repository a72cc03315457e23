"""World operations on the comments of issues and pull requests' conversations: adding one,
editing and deleting one (its author, or anyone with write access to the repository, as on
GitHub)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.errors import Conflict, GitHubError, NotFound
from pytest_ghxbench.sandbox.operations.issues import can_push, issue_by_id
from pytest_ghxbench.sandbox.operations.registry import operation
from pytest_ghxbench.sandbox.state import Comment, Issue, PullRequest, World

__all__ = ["comment_by_id"]


def _comment_data(world: World, item: Issue | PullRequest, comment: Comment) -> dict[str, Any]:
    kind = "pull" if isinstance(item, PullRequest) else "issues"
    return {
        "id": comment.node_id,
        "body": comment.body,
        "authorLogin": comment.author,
        "url": f"{world.repository.url}/{kind}/{item.number}#issuecomment-{comment.id}",
        "createdAt": comment.created_at,
    }


def comment_by_id(world: World, node: str) -> tuple[Issue | PullRequest, Comment]:
    """The comment with node id ``node`` and the issue or pull request it is on."""
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    for item in items:
        for comment in item.comments:
            if comment.node_id == node:
                return item, comment
    raise NotFound(f"Could not resolve to a node with the global id of '{node}'.")


def _may_change(world: World, comment: Comment, mutation: str) -> None:
    if comment.author != world.viewer and not can_push(world, world.viewer):
        raise GitHubError(
            403,
            "Must have admin rights to Repository.",
            graphql=f"{world.viewer} does not have the correct permissions to execute `{mutation}`",
        )


@operation("addComment")
def issue_comments_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.locked and world.viewer not in world.collaborators:
        raise Conflict(f"issue #{issue.number} is locked")
    with history.tracked(world, issue):
        comment = world.add_comment(issue, input["body"])
    return _comment_data(world, issue, comment)


@operation("updateIssueComment")
def issue_comment_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``id`` (the comment's node id) and the new ``body``."""
    item, comment = comment_by_id(world, input["id"])
    _may_change(world, comment, "UpdateIssueComment")
    comment.body = input["body"]
    comment.updated_at = world.tick()
    return _comment_data(world, item, comment)


@operation("deleteIssueComment")
def issue_comment_delete(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``id``: the comment's node id."""
    item, comment = comment_by_id(world, input["id"])
    _may_change(world, comment, "DeleteIssueComment")
    item.comments.remove(comment)
    return {"id": comment.node_id, "deleted": True}
