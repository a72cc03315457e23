"""GitHub's repository search (REST ``GET /search/repositories``, GraphQL ``search(type:
REPOSITORY)``) over the world's one repository.

Evaluated, each negatable with ``-``: ``repo:``, ``user:``/``org:``/``owner:``, ``in:`` (name,
description, topics, readme: where the free words are looked for; without it name, description
and topics), ``topic:``, ``topics:N``, ``language:`` (the top language of the default branch by
linguist's count, as ``GET /languages`` shows it; the seed's when the repository has no code),
``license:`` (its key, ``mit``), ``stars:``, ``forks:``, ``followers:`` (watchers),
``good-first-issues:``/``help-wanted-issues:`` (open issues with that label), ``created:``/
``pushed:`` ranges, ``is:``/``archived:``/``mirror:``/``template:``/``fork:`` (public, private,
internal, archived; the repository is no mirror, template or fork), ``has:funding-file`` and
``sort:`` (matches everything: the caller orders). Numbers and dates take the ranges of issue
search (``>100``, ``10..50``, ``>=2026-01-01``).

A qualifier GitHub has that the sandbox does not evaluate (:data:`UNEVALUATED`: the repository's
size and sponsors, custom properties) matches nothing and is recorded as an ``unsupported`` gap;
one GitHub does not have matches nothing, as on GitHub.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_ghxbench.sandbox.api.linguist import primary_language
from pytest_ghxbench.sandbox.api.search_syntax import in_range, parse_query
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import World

__all__ = ["UNEVALUATED", "repository_matches"]

UNEVALUATED = frozenset({"size", "is:sponsorable"})
"""Qualifiers of GitHub's repository search the sandbox does not evaluate (``props.*``, custom
properties, too)."""
_FIELDS = ("name", "description", "topics", "readme")
_README = ("readme", "readme.md", "readme.markdown", "readme.rst", "readme.txt")
_FLAGS = ("mirror", "template", "fork")


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
        "repo": lambda: folded == repo.full_name.casefold(),
        "user": lambda: folded == repo.owner.casefold(),
        "org": lambda: folded == repo.owner.casefold(),
        "owner": lambda: folded == repo.owner.casefold(),
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
        "sort": lambda: True,
    }
    check = checks.get(name)
    if check is not None:
        return check()
    if name == "is":
        state = _is(world, folded)
        if state is None and f"is:{folded}" in UNEVALUATED:
            record_unsupported(f"repository search qualifier is:{folded}")
        return bool(state)
    if name in _FLAGS:  # the repository is no mirror, template or fork
        return folded == "false" or (name == "fork" and folded == "true")
    if name in UNEVALUATED:
        record_unsupported(f"repository search qualifier {name}:")
    return False


def repository_matches(world: World, query: str) -> bool:
    """Whether the world's repository is found by the repository search ``query``."""
    qualifiers, words = parse_query(query)
    if any(word.casefold().startswith(("props.", "-props.")) for word in words):
        record_unsupported("repository search qualifier props.")
        return False
    fields: set[str] = set()
    for negated, name, value in qualifiers:
        if name == "in":
            fields.update(part.strip().lower() for part in value.split(","))
            continue
        if _qualifier(world, name, value) == negated:
            return False
    chosen = [f for f in _FIELDS if f in fields] if fields else ["name", "description", "topics"]
    if fields and not chosen:
        return False
    haystack = "\n".join(_text(world, field) for field in chosen).casefold()
    return all(word.casefold() in haystack for word in words)
