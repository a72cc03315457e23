"""World operation: a new comment on an issue (``issue.comments.create``)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.errors import Conflict
from pytest_ghxbench.sandbox.operations.issues import (
    issue_by_id,
    issue_url,
)
from pytest_ghxbench.sandbox.operations.registry import (
    operation,
)
from pytest_ghxbench.sandbox.state import Comment, Issue, World

__all__: list[str] = []


def _comment_data(world: World, issue: Issue, comment: Comment) -> dict[str, Any]:
    return {
        "id": comment.node_id,
        "body": comment.body,
        "authorLogin": comment.author,
        "url": f"{issue_url(world, issue.number)}#issuecomment-{comment.id}",
        "createdAt": comment.created_at,
    }


@operation("addComment")
def issue_comments_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.locked and world.viewer not in world.collaborators:
        raise Conflict(f"issue #{issue.number} is locked")
    with history.tracked(world, issue):
        comment = world.add_comment(issue, input["body"])
    return _comment_data(world, issue, comment)
