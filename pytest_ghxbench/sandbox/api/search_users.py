"""GitHub's user search (REST ``GET /search/users``, GraphQL ``search(type: USER)``; the MCP
server's ``search_users`` sends ``type:user``, ``search_orgs`` ``type:org``) over the world's
accounts: its users and organizations (bots are not found, as on GitHub).

Evaluated, each negatable with ``-``: ``type:user|org``, ``in:login|name|email`` (where the free
words are looked for; without it all three), ``fullname:``, ``user:``/``org:`` (that login),
``repos:`` (public repositories: the world's one for its owner), ``followers:`` (nobody in the
world has any), ``language:`` (the language of an account's repositories), ``created:`` (as
``GET /users/{username}`` shows it), ``location:`` (no account in the world gives one) and
``sort:``. Nobody shows a public email, so ``in:email`` finds no one. ``is:sponsorable`` is not
evaluated: it matches no one and is recorded as an ``unsupported`` gap. A qualifier GitHub does
not have matches no one, as on GitHub.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_ghxbench.sandbox.api.linguist import primary_language
from pytest_ghxbench.sandbox.api.search_syntax import in_range, parse_query
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import User, World

__all__ = ["found_users", "public_repos"]

_FIELDS = ("login", "name", "email")


def public_repos(world: World, login: str) -> int:
    """How many public repositories ``login`` owns in the world."""
    repo = world.repository
    return int(login == repo.owner and not repo.is_private)


def _qualifier(world: World, user: User, name: str, value: str) -> bool:
    folded = value.casefold()
    kind = "org" if user.type == "Organization" else "user"
    checks: dict[str, Callable[[], bool]] = {
        "type": lambda: folded == kind,
        "fullname": lambda: folded in user.name.casefold(),
        "user": lambda: folded == user.login.casefold(),
        "org": lambda: folded == user.login.casefold() and kind == "org",
        "repos": lambda: in_range(value, public_repos(world, user.login)),
        "followers": lambda: in_range(value, 0),
        "created": lambda: in_range(value, world.repository.created_at),
        "location": lambda: False,
        "sort": lambda: True,
        "language": lambda: (
            public_repos(world, user.login) > 0
            and (primary_language(world) or "").casefold() == folded
        ),
    }
    check = checks.get(name)
    if check is not None:
        return check()
    if (name, folded) == ("is", "sponsorable"):
        record_unsupported("user search qualifier is:sponsorable")
    return False


def _words_match(user: User, fields: set[str], words: list[str]) -> bool:
    chosen = [f for f in _FIELDS if f in fields] if fields else list(_FIELDS)
    texts = {"login": user.login, "name": user.name, "email": ""}
    haystack = "\n".join(texts[f] for f in chosen).casefold()
    return all(word.casefold() in haystack for word in words) and bool(chosen)


def found_users(
    world: World, query: str, sort: str | None = None, order: str = "desc"
) -> list[str]:
    """The logins ``query`` finds, best match first (an exact login first), or by ``sort``
    (``repositories``; ``followers`` and ``joined`` tie for everyone)."""
    qualifiers, words = parse_query(query)
    fields = {
        part.strip().lower()
        for negated, name, value in qualifiers
        if name == "in" and not negated
        for part in value.split(",")
    }
    found = [
        user
        for user in world.users
        if user.type != "Bot"
        and all(
            _qualifier(world, user, name, value) != negated
            for negated, name, value in qualifiers
            if name != "in"
        )
        and _words_match(user, fields, words)
    ]
    wanted = {word.casefold() for word in words}
    found.sort(key=lambda user: user.login.casefold() not in wanted)
    if sort == "repositories":
        found.sort(key=lambda user: public_repos(world, user.login), reverse=order != "asc")
    return [user.login for user in found]
