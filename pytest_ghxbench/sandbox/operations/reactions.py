"""World operations on the reactions to issues and pull requests: the viewer adds one (a
second of the same content is the first again, as GitHub answers it) or deletes one."""

from __future__ import annotations

from typing import Any, cast

from pytest_ghxbench.sandbox.errors import GitHubError, NotFound
from pytest_ghxbench.sandbox.operations.registry import operation
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World
from pytest_ghxbench.sandbox.state_issues import Reaction, ReactionContent

__all__ = ["CONTENTS"]

CONTENTS: dict[str, ReactionContent] = {
    "THUMBS_UP": "+1",
    "THUMBS_DOWN": "-1",
    "LAUGH": "laugh",
    "CONFUSED": "confused",
    "HEART": "heart",
    "HOORAY": "hooray",
    "ROCKET": "rocket",
    "EYES": "eyes",
}
"""GraphQL's ``ReactionContent`` by the name REST gives it."""


def _subject(world: World, node: str) -> Issue | PullRequest:
    found = world.issue_by_node_id(node) or world.pull_request_by_node_id(node)
    if found is None:
        raise NotFound(f"Could not resolve to a node with the global id of '{node}'.")
    return found


def _content(value: str) -> ReactionContent:
    if value in CONTENTS.values():
        return cast(ReactionContent, value)
    if value in CONTENTS:
        return CONTENTS[value]
    raise GitHubError.validation("Reaction", "content", "invalid", value=value)


def _data(reaction: Reaction, created: bool) -> dict[str, Any]:
    return {
        "id": reaction.id,
        "nodeId": reaction.node_id,
        "content": reaction.content,
        "user": reaction.user,
        "created": created,
    }


@operation("addReaction")
def reaction_add(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``subjectId`` (an issue's or pull request's node id) and ``content`` (``+1`` or
    ``THUMBS_UP``); ``created`` is false when the viewer had already reacted so."""
    item = _subject(world, input["subjectId"])
    content = _content(str(input["content"]))
    mine = next(
        (r for r in item.reactions if r.user == world.viewer and r.content == content), None
    )
    if mine is not None:
        return _data(mine, False)
    reaction_id = world.next_id()
    reaction = Reaction(
        id=reaction_id,
        node_id=world.node("REA", reaction_id),
        user=world.viewer,
        content=content,
        created_at=world.tick(),
    )
    item.reactions.append(reaction)
    return _data(reaction, True)


@operation("reactions/delete-for-issue")
def reaction_delete(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """``subjectId`` and ``reactionId`` (its database id)."""
    item = _subject(world, input["subjectId"])
    wanted = int(input["reactionId"])
    found = next((r for r in item.reactions if r.id == wanted), None)
    if found is None:
        raise NotFound("Not Found")
    item.reactions.remove(found)
    return _data(found, False)
