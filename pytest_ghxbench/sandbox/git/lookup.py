"""Finding objects as GitHub's GraphQL API does: by a revision expression (``main:README.md``,
``HEAD~2``, as ``git rev-parse`` reads it), by id, and reading annotated tags."""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

from pytest_ghxbench.sandbox.git.objects import Person, iso_time
from pytest_ghxbench.sandbox.git.repo import GitRepo

__all__ = ["TagInfo", "find_object", "is_binary", "tag_info"]

_KINDS = {
    pygit2.enums.ObjectType.COMMIT: "commit",
    pygit2.enums.ObjectType.TREE: "tree",
    pygit2.enums.ObjectType.BLOB: "blob",
    pygit2.enums.ObjectType.TAG: "tag",
}


def find_object(repo: GitRepo, expression: str) -> tuple[str, str] | None:
    """``(kind, sha)`` of the object a revision expression or (abbreviated) id names; None
    when it names nothing or cannot be read."""
    if not expression.strip():
        return None
    try:
        found = repo.repo.revparse_single(expression)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    kind = _KINDS.get(found.type)
    return (kind, str(found.id)) if kind else None


@dataclass(frozen=True)
class TagInfo:
    """An annotated tag object."""

    sha: str
    name: str
    message: str
    tagger: Person | None
    target: str
    target_kind: str


def tag_info(repo: GitRepo, sha: str) -> TagInfo | None:
    tag = repo.tag_object(sha)
    if tag is None:
        return None
    tagger = tag.tagger
    who = Person(tagger.name, tagger.email, iso_time(tagger.time)) if tagger else None
    target = repo.repo.get(tag.target)
    kind = _KINDS.get(target.type, "commit") if target is not None else "commit"
    return TagInfo(sha, tag.name, tag.message, who, str(tag.target), kind)


def is_binary(data: bytes) -> bool:
    """Git's test: a NUL in the first 8000 bytes; GitHub also shows undecodable text as
    binary."""
    if b"\0" in data[:8000]:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False
