"""Plain values read out of a repository: people, commits, tree entries and changed files."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import pygit2

__all__ = [
    "NOREPLY",
    "CommitInfo",
    "FileChange",
    "GitError",
    "Person",
    "TreeEntry",
    "commit_info",
    "iso_time",
    "login_of_email",
]

NOREPLY = "users.noreply.github.com"
"""Sandbox users commit as ``<login>@users.noreply.github.com``, which maps an email back to a
login (GitHub links commits to users by email)."""


class GitError(Exception):
    """A git operation that cannot be done (unknown object, conflicting merge...)."""


def iso_time(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _epoch(iso: str) -> int:
    parsed = datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return int(parsed.timestamp())


def login_of_email(email: str) -> str | None:
    """The login a ``<login>@users.noreply.github.com`` (or ``<id>+<login>@...``) email names."""
    local, _, domain = email.partition("@")
    if domain.lower() != NOREPLY:
        return None
    return local.rpartition("+")[2] or None


@dataclass(frozen=True)
class Person:
    """An author or committer: name, email and the time (ISO 8601, UTC)."""

    name: str
    email: str
    date: str

    @classmethod
    def of_login(cls, login: str, name: str, date: str) -> Person:
        return cls(name or login, f"{login}@{NOREPLY}", date)

    @property
    def login(self) -> str | None:
        return login_of_email(self.email)

    def signature(self) -> pygit2.Signature:
        return pygit2.Signature(self.name, self.email, _epoch(self.date), 0)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    parents: tuple[str, ...]
    message: str
    author: Person
    committer: Person

    @property
    def title(self) -> str:
        """The message's first line (``messageHeadline``)."""
        return self.message.split("\n", 1)[0]

    @property
    def body(self) -> str:
        """The message after its first paragraph's line and the blank line (``messageBody``)."""
        _, _, rest = self.message.partition("\n")
        return rest.strip("\n")


def _person(signature: pygit2.Signature) -> Person:
    return Person(signature.name, signature.email, iso_time(signature.time))


def commit_info(commit: pygit2.Commit) -> CommitInfo:
    return CommitInfo(
        sha=str(commit.id),
        tree=str(commit.tree_id),
        parents=tuple(str(p) for p in commit.parent_ids),
        message=commit.message,
        author=_person(commit.author),
        committer=_person(commit.committer),
    )


@dataclass(frozen=True)
class TreeEntry:
    path: str
    """From the root of the tree that was read."""
    name: str
    mode: str
    """Git's six-digit octal mode: ``100644``, ``100755``, ``040000``, ``120000``, ``160000``."""
    type: str
    """``blob``, ``tree`` or ``commit`` (a submodule)."""
    sha: str
    size: int | None
    """Blobs only."""


@dataclass(frozen=True)
class FileChange:
    """One file of a diff, in the terms of GitHub's ``diff-entry``."""

    path: str
    status: str
    """``added``, ``removed``, ``modified``, ``renamed``, ``copied`` or ``changed``."""
    additions: int
    deletions: int
    patch: str | None
    """The hunks (from the first ``@@``), without a trailing newline; None for binary files."""
    sha: str
    """The blob on the new side (the old one for a removed file)."""
    previous_path: str | None = None

    @property
    def changes(self) -> int:
        return self.additions + self.deletions
