"""GitHub's user search (REST ``GET /search/users``, GraphQL ``search(type: USER)``; the MCP
server's ``search_users`` sends ``type:user``, ``search_orgs`` ``type:org``) over the world's
accounts: its users and organizations (bots are not found, as on GitHub): :func:`found_users`.

Evaluated, each negatable with ``-`` and combined with ``AND``/``OR``/``NOT``: ``type:user|org``,
``in:login|name|email`` (where the free words are looked for; without it all three),
``fullname:``, ``user:``/``org:`` (that login), ``repos:`` (public repositories: the world's one
for its owner), ``followers:`` (nobody in the world has any), ``language:`` (the language of an
account's repositories), ``created:`` (as ``GET /users/{username}`` shows it), ``location:``
(no account in the world gives one) and ``sort:``/the ``sort`` parameter (followers,
repositories, joined; nobody has followers and everyone joined when ``GET /users`` says). Nobody
shows a public email, so ``in:email`` finds no one. ``is:sponsorable`` is not evaluated: it
matches no one and is recorded as an ``unevaluated_parameter`` gap. A qualifier GitHub does not
have is free text, as on GitHub.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_ghxbench.sandbox.api.linguist import primary_language
from pytest_ghxbench.sandbox.api.search_syntax import (
    PASS,
    Check,
    Pass,
    Term,
    in_range,
    normalized,
    parse_query,
    text_has,
)
from pytest_ghxbench.sandbox.state import User, World

__all__ = ["QUALIFIERS", "found_users", "public_repos"]

QUALIFIERS = frozenset(
    {"type", "in", "repos", "location", "language", "created", "followers", "fullname", "user",
     "org", "is", "sort"}
)  # fmt: skip
"""Every qualifier of GitHub's user search; any other is free text."""
SORTS = ("followers", "repositories", "joined")
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
        "fullname": lambda: text_has(normalized(user.name), value),
        "user": lambda: folded == user.login.casefold(),
        "org": lambda: folded == user.login.casefold() and kind == "org",
        "repos": lambda: in_range(value, public_repos(world, user.login)),
        "followers": lambda: in_range(value, 0),
        "created": lambda: in_range(value, world.repository.created_at),
        "location": lambda: False,
        "language": lambda: (
            public_repos(world, user.login) > 0
            and (primary_language(world) or "").casefold() == folded
        ),
    }
    check = checks.get(name)
    return check() if check is not None else False  # is: other than sponsorable


def _check(world: World, term: Term) -> Check[User] | Pass | None:
    name, value = term.name, term.value
    if name in ("in", "sort"):
        return PASS  # where the words are and the order: evaluated apart
    if name == "is" and value.lower() == "sponsorable":
        return None
    return lambda user: _qualifier(world, user, name, value)


def _words(user: User, fields: set[str], word: str) -> bool:
    chosen = [f for f in _FIELDS if f in fields] if fields else list(_FIELDS)
    texts = {"login": user.login, "name": user.name, "email": ""}
    return bool(chosen) and text_has(normalized("\n".join(texts[f] for f in chosen)), word)


def found_users(
    world: World, text: str, sort: str | None = None, order: str | None = None
) -> list[str]:
    """The logins the query ``text`` finds, best match first (an exact login first), or by
    its ``sort:`` or else ``sort`` and ``order`` (REST's parameters)."""
    query = parse_query(text, QUALIFIERS)
    query.refusal()
    ins = [t for t in query.qualifiers("in") if not t.negated]
    fields = {part.strip().lower() for t in ins for part in t.value.split(",")}
    for term in query.qualifiers("in"):
        term.evaluated = True

    def word(term: Term) -> Check[User]:
        return lambda user: _words(user, fields, term.value)

    check = query.compile(lambda term: _check(world, term), word)
    found = [user for user in world.users if user.type != "Bot" and check(user)]
    wanted = {word.value.casefold() for word in query.words()}
    found.sort(key=lambda user: user.login.casefold() not in wanted)
    key, descending = query.sort(SORTS) or (sort, order != "asc")
    if key == "repositories":
        found.sort(key=lambda user: public_repos(world, user.login), reverse=descending)
    query.account("users")
    return [user.login for user in found]
