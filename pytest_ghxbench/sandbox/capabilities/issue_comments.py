"""Issue comment capabilities: ``issue.comments.list`` (oldest first) and
``issue.comments.create``.

Listing addresses the issue by repository and number, commenting by node id (``issueId``).
A locked issue takes comments from collaborators only (``CONFLICT`` otherwise).
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.issues import (
    BODY,
    by_id,
    issue_by_id,
    issue_url,
)
from pytest_ghxbench.sandbox.capabilities.registry import (
    CapabilityError,
    capability,
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


@capability(
    "issue.comments.create",
    "Add a comment to an issue.",
    by_id("body", body=BODY),
    mutates=True,
)
def issue_comments_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    issue = issue_by_id(world, input["issueId"])
    if issue.locked and world.viewer not in world.collaborators:
        raise CapabilityError("CONFLICT", f"issue #{issue.number} is locked")
    comment = world.add_comment(issue, input["body"])
    return _comment_data(world, issue, comment)
