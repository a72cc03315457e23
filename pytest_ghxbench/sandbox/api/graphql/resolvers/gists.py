"""GraphQL types for gists (``gh gist list``): a user's gists, the viewer's secret ones too."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import connection, obj
from pytest_ghxbench.sandbox.state import Gist, GistFile

__all__: list[str] = []

A = dict[str, Any]


def _gists(login: str, args: A, ctx: Context) -> list[Gist]:
    world = ctx.world
    privacy = str(args.get("privacy") or "PUBLIC")
    mine = login.casefold() == world.viewer.casefold()
    shown = [
        g
        for g in world.gists
        if g.owner.casefold() == login.casefold()
        and (g.public or (mine and privacy in ("ALL", "SECRET")))
        and not (privacy == "SECRET" and g.public)
    ]
    order = args.get("orderBy") or {}
    key = "updated_at" if str(order.get("field", "")) == "UPDATED_AT" else "created_at"
    return sorted(shown, key=lambda g: getattr(g, key), reverse=order.get("direction") != "ASC")


obj(
    "GistFile",
    name=("String", lambda f, a, c: f.filename),
    text=("String", lambda f, a, c: f.content),
    size=("Int", lambda f, a, c: len(f.content.encode())),
    extension=("String", lambda f, a, c: "." + f.filename.rsplit(".", 1)[-1]),
)


def _files(gist: Gist, args: A, ctx: Context) -> list[GistFile]:
    return list(gist.files)[: int(args.get("limit") or 10)]


obj(
    "Gist",
    id=("ID", lambda g, a, c: f"G_kwDO{g.id[:14]}"),
    name=("String", lambda g, a, c: g.id),
    description=("String", lambda g, a, c: g.description),
    isPublic=("Boolean", lambda g, a, c: g.public),
    createdAt=("DateTime", lambda g, a, c: g.created_at),
    updatedAt=("DateTime", lambda g, a, c: g.updated_at),
    url=("URI", lambda g, a, c: f"https://gist.github.com/{g.owner}/{g.id}"),
    files=("[GistFile]", _files),
)
obj("User", gists=connection("Gist", _gists))
