"""GraphQL fields gh's views ask for beyond the core ones: reactions, comment edit and minimize
state, auto-merge details, the head repository's owner, teams and commit statuses (the sandbox
has neither, but gh's fragments name them), closing and reopening pull requests, and
``resource(url:)`` (``search`` is in :mod:`.search`)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Resolver,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.mutations import (
    by_number,
    call_capability,
    done,
    input_of,
    issue_or_pull_node,
    logins_of,
    need,
    pull_of,
    register,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor
from pytest_ghxbench.sandbox.state import World

__all__: list[str] = []

A = dict[str, Any]
C = Context

# ---------------------------------------------------------------- reactions, comment state

obj("ReactingUserConnection", totalCount=("Int", lambda n, a, c: n))
obj(
    "ReactionGroup",
    content=("ReactionContent", lambda g, a, c: g[0]),
    users=("ReactingUserConnection", lambda g, a, c: g[1]),
)
_NO_REACTIONS: tuple[str, Resolver] = ("[ReactionGroup]", lambda v, a, c: [])
"""The sandbox records no reactions: every reactable has none."""
for _reactable in ("Issue", "PullRequest", "IssueComment", "PullRequestReview"):
    obj(_reactable, reactionGroups=_NO_REACTIONS)
obj(
    "IssueComment",
    includesCreatedEdit=("Boolean", lambda p, a, c: bool(p[1].updated_at)),
    minimizedReason=("String", lambda p, a, c: None),
)

# ---------------------------------------------------------------- pull request details

obj(
    "AutoMergeRequest",
    authorEmail=("String", lambda m, a, c: None),
    commitBody=("String", lambda m, a, c: None),
    commitHeadline=("String", lambda m, a, c: None),
    enabledAt=("DateTime", lambda m, a, c: None),
    enabledBy=("Actor", lambda m, a, c: None),
)
obj(
    "PullRequest",
    headRepositoryOwner=(
        "RepositoryOwner",
        lambda p, a, c: actor(c.world, c.world.repository.owner),
    ),
    maintainerCanModify=("Boolean", lambda p, a, c: False),
)
obj(
    "Team",
    id=("ID", lambda t, a, c: t["id"]),
    name=("String", lambda t, a, c: t["name"]),
    slug=("String", lambda t, a, c: t["slug"]),
    organization=("Organization", lambda t, a, c: c.world.repository.owner),
)
obj(
    "StatusContext",
    id=("ID", lambda s, a, c: s["id"]),
    context=("String", lambda s, a, c: s["context"]),
    state=("StatusState", lambda s, a, c: s["state"]),
    targetUrl=("URI", lambda s, a, c: s.get("target_url")),
    description=("String", lambda s, a, c: s.get("description")),
    createdAt=("DateTime", lambda s, a, c: s["created_at"]),
    isRequired=("Boolean", lambda s, a, c: False),
)


# ---------------------------------------------------------------- closing and reopening


def _set_pull_state(closing: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        pull = pull_of(ctx, need(data, "pullRequestId"))
        if pull.state == "MERGED":
            raise GraphQLError("Pull request is already merged", type="UNPROCESSABLE")
        wanted: Literal["CLOSED", "OPEN"] = "CLOSED" if closing else "OPEN"
        if pull.state != wanted:  # no capability covers this
            ctx.mutated = True
            with history.tracked(ctx.world, pull):
                now = ctx.world.tick()
                pull.state, pull.closed_at = wanted, now if closing else None
                pull.updated_at = now
        return done(data, pullRequest=pull)

    return resolve


register("closePullRequest", _set_pull_state(True), pullRequest="PullRequest")
register("reopenPullRequest", _set_pull_state(False), pullRequest="PullRequest")

_RESOURCE = re.compile(r"^https?://[^/]+/([^/]+/[^/]+)/(issues|pull)/(\d+)/?(?:[?#].*)?$")


def _resource(world: World, url: str) -> Typed | None:
    """The issue or pull request at ``url`` (on any host: the client may know the world as
    github.com or as the sandbox's); ``null`` for anything else, as for an unknown URL."""
    found = _RESOURCE.match(url)
    if found is None or found.group(1).casefold() != world.repository.full_name.casefold():
        return None
    number = int(found.group(3))
    pull = world.pull_request(number)
    if pull is not None:  # ``/issues/<n>`` of a pull request leads to the pull request too
        return Typed("PullRequest", pull)
    issue = world.issue(number) if found.group(2) == "issues" else None
    return Typed("Issue", issue) if issue is not None else None


abstract(
    "UniformResourceLocatable",
    ("Issue", "PullRequest"),
    resourcePath=("URI", lambda v, a, c: None),
    url=("URI", lambda v, a, c: None),
)
obj("Query", resource=("UniformResourceLocatable", lambda w, a, c: _resource(w, str(a["url"]))))


abstract("Assignee", ("Bot", "Mannequin", "Organization", "User"))


def _assigned_actors(world: World, logins: list[str]) -> list[Any]:
    return [actor(world, login) for login in logins]


obj(
    "Issue",
    assignedActors=connection("Assignee", lambda i, a, c: _assigned_actors(c.world, i.assignees)),
)
obj(
    "PullRequest",
    assignedActors=connection("Assignee", lambda p, a, c: _assigned_actors(c.world, p.assignees)),
)


def _replace_actors(_: Any, args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``replaceActorsForAssignable``: the assignees become exactly the actors given, by id
    (``actorIds``) and by login (``actorLogins``, what gh sends)."""
    data = input_of(args)
    target = issue_or_pull_node(ctx, need(data, "assignableId"))
    given = [*logins_of(ctx, data.get("actorIds") or []), *(data.get("actorLogins") or [])]
    wanted = list(dict.fromkeys(str(login) for login in given))
    item = target.value
    if target.typename == "Issue":
        call_capability(
            ctx, "replaceActorsForAssignable", {"issueId": item.node_id, "assignees": wanted}
        )
    else:
        change = {
            "add": [x for x in wanted if x not in item.assignees],
            "remove": [x for x in item.assignees if x not in wanted],
        }
        call_capability(ctx, "updatePullRequest(assigneeIds:)", {**by_number(ctx, item), **change})
    return done(data, assignable=target)


register("replaceActorsForAssignable", _replace_actors, assignable="Assignable")
