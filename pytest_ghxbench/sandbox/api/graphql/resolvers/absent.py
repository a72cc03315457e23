"""GraphQL fields for what the seed has none of, answered as GitHub answers a repository and
users without them: discussions (none: no discussions, no categories, ``discussion(number:)``
not found), teams and organization memberships (none), and the repository's suggested actors
(its collaborators: no Copilot coding agent among them).

The types registered here for discussions and teams (``Discussion``, ``Team`` ...) never have
a value in the sandbox; they are registered so that clients' queries of them validate and get
the empty answers above.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Page,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import World

__all__: list[str] = []

A = dict[str, Any]


def _none(parent: Any, args: A, ctx: Context) -> None:
    return None


def _nothing(parent: Any, args: A, ctx: Context) -> list[Any]:
    return []


obj("DiscussionCategory", id=("ID", _none), name=("String", _none))
obj("DiscussionComment", id=("ID", _none), body=("String", _none))
obj(
    "Discussion",
    id=("ID", _none),
    number=("Int", _none),
    title=("String", _none),
    body=("String", _none),
    createdAt=("DateTime", _none),
    updatedAt=("DateTime", _none),
    url=("URI", _none),
    author=("Actor", _none),
    category=("DiscussionCategory", _none),
    comments=connection("DiscussionComment", _nothing),
)


def _no_discussion(world: World, args: A, ctx: Context) -> None:
    number = args.get("number")
    raise GraphQLError(
        f"Could not resolve to a Discussion with the number of {number}.", type="NOT_FOUND"
    )


def _suggested_actors(world: World, args: A, ctx: Context) -> list[Any]:
    """Who can be assigned: the collaborators (``CAN_BE_ASSIGNED``), by ``loginNames``."""
    wanted = str(args.get("loginNames") or "").casefold()
    logins = [c for c in world.collaborators if wanted in c.casefold()]
    return [actor(world, login) for login in logins]


obj(
    "Repository",
    discussions=connection("Discussion", _nothing),
    discussionCategories=connection("DiscussionCategory", _nothing),
    discussion=("Discussion", _no_discussion),
    suggestedActors=connection("Actor", _suggested_actors),
)


def _no_members(team: Any, args: A, ctx: Context) -> Page:
    return Page([], 0, 0, False, False)


obj(
    "TeamMemberConnection",
    nodes=("[User]", lambda page, a, c: list(page.items)),
    totalCount=("Int", lambda page, a, c: page.total),
    pageInfo=("PageInfo", lambda page, a, c: page),
)
obj(
    "Team",
    id=("ID", _none),
    name=("String", _none),
    slug=("String", _none),
    description=("String", _none),
    members=("TeamMemberConnection", _no_members),
)


def _membership(value: Any) -> Any:
    # gap: the seed does not say who belongs to which organization or team
    record_unsupported("organization and team membership")
    return value


obj(
    "Organization",
    teams=connection("Team", lambda p, a, c: _membership([])),
    team=("Team", lambda p, a, c: _membership(None)),
)
obj("User", organizations=connection("Organization", lambda p, a, c: _membership([])))
