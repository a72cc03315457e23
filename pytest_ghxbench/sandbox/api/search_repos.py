"""GitHub's repository search (REST ``GET /search/repositories``, GraphQL ``search(type:
REPOSITORY)``) over the world's one repository: :func:`repository_found`.

Evaluated, each negatable with ``-`` and combined with ``AND``/``OR``/``NOT``: ``repo:``,
``user:``/``org:``/``owner:``, ``in:`` (name, description, topics, readme: where the free words
are looked for; without it name, description and topics), ``topic:``, ``topics:N``,
``language:`` (the top language of the default branch by linguist's count, as ``GET
/languages`` shows it; the seed's when the repository has no code), ``license:`` (its key,
``mit``), ``stars:``, ``forks:``, ``followers:`` (watchers), ``good-first-issues:``/
``help-wanted-issues:`` (open issues with that label), ``created:``/``pushed:`` ranges,
``is:``/``archived:``/``mirror:``/``template:``/``fork:`` (public, private, internal, archived;
the repository is no mirror, template or fork), ``has:funding-file`` and ``sort:`` (stars,
forks, help-wanted-issues, updated: one repository is in every order). Numbers and dates take
the ranges of issue search (``>100``, ``10..50``, ``>=2026-01-01``).

Not evaluated, matching nothing and recorded as ``unevaluated_parameter`` gaps: ``size:`` (the
world does not know the repository's size), ``is:sponsorable`` and custom properties
(``props.team:storage``). A qualifier GitHub does not have is free text, as on GitHub.
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
    in_scope,
    normalized,
    parse_query,
    text_has,
)
from pytest_ghxbench.sandbox.state import World

__all__ = ["QUALIFIERS", "SORTS", "repository_found"]

QUALIFIERS = frozenset(
    {"repo", "user", "org", "owner", "in", "size", "followers", "forks", "stars", "created",
     "pushed", "language", "topic", "topics", "license", "is", "mirror", "template",
     "archived", "good-first-issues", "help-wanted-issues", "has", "fork", "sort"}
)  # fmt: skip
"""Every qualifier of GitHub's repository search but custom properties (``props.<name>``)."""
SORTS = ("stars", "forks", "help-wanted-issues", "updated", "relevance")
_FIELDS = ("name", "description", "topics", "readme")
_README = ("readme", "readme.md", "readme.markdown", "readme.rst", "readme.txt")


def _readme(world: World) -> str:
    git = world.git
    head = git.resolve(git.default_branch)
    files = {
        e.name.lower(): e.sha for e in (git.tree(head) if head else None) or [] if e.type == "blob"
    }
    chosen = next((n for n in _README if n in files), None)
    chosen = chosen or next((n for n in sorted(files) if n.startswith("readme.")), None)
    return (git.blob(files[chosen]) or b"").decode("utf-8", "replace") if chosen else ""


def _text(world: World, field: str) -> str:
    repo = world.repository
    if field == "name":
        return repo.full_name
    if field == "description":
        return repo.description
    if field == "topics":
        return " ".join(repo.topics)
    return _readme(world) if field == "readme" else ""


def _open_with_label(world: World, label: str) -> int:
    return sum(
        1
        for issue in world.issues
        if issue.state == "OPEN" and label in {n.casefold() for n in issue.labels}
    )


def _language(name: str) -> str:
    return name.casefold().replace("-", " ")


def _has_funding_file(world: World) -> bool:
    git = world.git
    head = git.resolve(git.default_branch)
    paths = (".github/FUNDING.yml", "FUNDING.yml", "docs/FUNDING.yml")
    return head is not None and any(git.entry(head, path) is not None for path in paths)


def _is(world: World, value: str) -> bool | None:
    repo = world.repository
    states = {
        "public": repo.visibility == "PUBLIC",
        "private": repo.visibility == "PRIVATE",
        "internal": repo.visibility == "INTERNAL",
        "archived": repo.is_archived,
        "mirror": False,
        "template": False,
        "fork": False,
    }
    return states.get(value)


def _qualifier(world: World, name: str, value: str) -> bool:
    repo = world.repository
    folded = value.casefold()
    checks: dict[str, Callable[[], bool]] = {
        "topic": lambda: folded in {t.casefold() for t in repo.topics},
        "topics": lambda: in_range(value, len(repo.topics)),
        "language": lambda: _language(primary_language(world) or "") == _language(value),
        "license": lambda: repo.license is not None and folded == repo.license.casefold(),
        "stars": lambda: in_range(value, repo.stargazer_count),
        "forks": lambda: in_range(value, repo.fork_count),
        "followers": lambda: in_range(value, repo.watcher_count),
        "good-first-issues": lambda: in_range(value, _open_with_label(world, "good first issue")),
        "help-wanted-issues": lambda: in_range(value, _open_with_label(world, "help wanted")),
        "created": lambda: in_range(value, repo.created_at),
        "pushed": lambda: in_range(value, repo.pushed_at),
        "archived": lambda: folded == str(repo.is_archived).lower(),
        "has": lambda: folded == "funding-file" and _has_funding_file(world),
        "is": lambda: bool(_is(world, folded)),
    }
    check = checks.get(name)
    if check is not None:
        return check()
    # the repository is no mirror, template or fork
    return folded == "false" or (name == "fork" and folded == "true")


def _check(world: World, term: Term) -> Check[World] | Pass | None:
    name, value = term.name, term.value
    if name in ("in", "sort", "repo", "user", "org", "owner"):
        return PASS  # where the words are, the order and the scope: evaluated apart
    sponsorable = name == "is" and value.lower() == "sponsorable"
    if name == "size" or name.startswith("props.") or sponsorable:
        return None
    return lambda found: _qualifier(found, name, value)


def _known(name: str) -> bool:
    return name in QUALIFIERS or name.startswith("props.")


def repository_found(world: World, text: str) -> bool:
    """Whether the world's repository is found by the repository search ``text``."""
    query = parse_query(text, _known)
    query.refusal()
    scoped = in_scope(world, query)
    ins = query.qualifiers("in")
    fields = {part.strip().lower() for t in ins for part in t.value.split(",")}
    for term in ins:
        term.evaluated = True
    chosen = [f for f in _FIELDS if f in fields] if fields else ["name", "description", "topics"]
    haystack = normalized("\n".join(_text(world, field) for field in chosen))

    def word(term: Term) -> Check[World]:
        return lambda found: bool(chosen) and text_has(haystack, term.value)

    check = query.compile(lambda term: _check(world, term), word)
    query.sort(SORTS)
    query.account("repositories")
    return scoped and check(world)
