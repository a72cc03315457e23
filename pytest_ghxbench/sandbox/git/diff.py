"""Diffs between two commits, as GitHub shows them: changed files with their patches
(``diff-entry``), whole unified diffs, and comparisons of two commits.

Commits are named by content, so a diff of two shas is the same in every repository that has
them: results are cached per process, shared by every item's fork of a seed.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypeVar

import pygit2

from pytest_ghxbench.sandbox.git.objects import CommitInfo, FileChange
from pytest_ghxbench.sandbox.git.repo import GitRepo

__all__ = [
    "Comparison",
    "changed_files",
    "commentable_lines",
    "compare",
    "diff_text",
    "hunk_lines",
]

_STATUS = {
    pygit2.enums.DeltaStatus.ADDED: "added",
    pygit2.enums.DeltaStatus.DELETED: "removed",
    pygit2.enums.DeltaStatus.MODIFIED: "modified",
    pygit2.enums.DeltaStatus.RENAMED: "renamed",
    pygit2.enums.DeltaStatus.COPIED: "copied",
    pygit2.enums.DeltaStatus.TYPECHANGE: "changed",
}
_NO_NEWLINE = "\\ No newline at end of file\n"
_CACHE_SIZE = 256
_lock = threading.Lock()
_Key = tuple[str | None, str]
_V = TypeVar("_V")
_files: OrderedDict[_Key, tuple[FileChange, ...]] = OrderedDict()
_texts: OrderedDict[_Key, str] = OrderedDict()


def _remember(cache: OrderedDict[_Key, _V], key: _Key, value: _V) -> None:
    with _lock:
        cache[key] = value
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)


def _diff(repo: GitRepo, base: str | None, head: str) -> pygit2.Diff:
    git = repo.repo
    new = git.get(head)
    assert isinstance(new, pygit2.Commit)
    if base is None:
        diff = new.tree.diff_to_tree(swap=True)
    else:
        old = git.get(base)
        assert isinstance(old, pygit2.Commit)
        diff = git.diff(old, new, context_lines=3)
    diff.find_similar()
    return diff


def changed_files(repo: GitRepo, base: str | None, head: str) -> list[FileChange]:
    """The files that differ between commit ``base`` (None: nothing) and commit ``head``,
    renames detected, in path order."""
    key = (base, head)
    with _lock:
        found = _files.get(key)
    if found is None:
        found = tuple(_change(patch) for patch in _diff(repo, base, head) if patch is not None)
        _remember(_files, key, found)
    return list(found)


def diff_text(repo: GitRepo, base: str | None, head: str) -> str:
    """``git diff base head`` (what ``Accept: application/vnd.github.diff`` returns)."""
    key = (base, head)
    with _lock:
        found = _texts.get(key)
    if found is None:
        found = _diff(repo, base, head).patch or ""
        _remember(_texts, key, found)
    return found


def hunk_lines(patch: pygit2.Patch) -> str:
    parts: list[str] = []
    for hunk in patch.hunks:
        parts.append(hunk.header if hunk.header.endswith("\n") else hunk.header + "\n")
        for line in hunk.lines:
            if line.origin in "+- ":
                text = line.content
                parts.append(line.origin + text + ("" if text.endswith("\n") else "\n"))
            elif line.origin in "=<>":
                parts.append(_NO_NEWLINE)
    return "".join(parts).rstrip("\n")


def _change(patch: pygit2.Patch) -> FileChange:
    delta = patch.delta
    status = _STATUS.get(delta.status, "modified")
    removed = status == "removed"
    side = delta.old_file if removed else delta.new_file
    _, additions, deletions = patch.line_stats
    binary = delta.is_binary
    return FileChange(
        path=side.path,
        status=status,
        additions=additions,
        deletions=deletions,
        patch=None if binary else hunk_lines(patch),
        sha=str(side.id),
        previous_path=delta.old_file.path if status in ("renamed", "copied") else None,
    )


@dataclass(frozen=True)
class Comparison:
    """``base...head``: where they forked and what each has that the other lacks."""

    base: str
    head: str
    merge_base: str | None
    ahead: list[CommitInfo]
    """Commits of ``head`` not in ``base``, oldest first."""
    behind: int
    """How many commits of ``base`` are not in ``head``."""

    @property
    def status(self) -> str:
        """GitHub's ``identical``, ``ahead``, ``behind`` or ``diverged``."""
        if self.base == self.head:
            return "identical"
        if self.ahead and self.behind:
            return "diverged"
        return "ahead" if self.ahead else "behind" if self.behind else "identical"


def compare(repo: GitRepo, base: str, head: str) -> Comparison:
    """Compare commits ``base`` and ``head`` (three-dot, as GitHub's compare does)."""
    fork = repo.merge_base(base, head)
    ahead = repo.log(head, hide=(base,))
    behind = len(repo.log(base, hide=(head,)))
    return Comparison(base, head, fork, list(reversed(ahead)), behind)


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def commentable_lines(patch: str, side: str = "RIGHT") -> dict[int, str]:
    """Line number -> the diff hunk up to that line (a review comment's ``diff_hunk``), for
    the lines of ``side`` a comment may be attached to (``RIGHT``: the new file, ``LEFT``: the
    old one): GitHub accepts comments on lines that are in the patch only."""
    found: dict[int, str] = {}
    header, seen = "", []
    old = new = 0
    for text in patch.splitlines():
        match = _HUNK.match(text)
        if match:
            old, new = int(match.group(1)), int(match.group(2))
            header, seen = text, [text]
            continue
        if not header:
            continue
        seen.append(text)
        if text.startswith("+"):
            if side == "RIGHT":
                found[new] = "\n".join(seen)
            new += 1
        elif text.startswith("-"):
            if side == "LEFT":
                found[old] = "\n".join(seen)
            old += 1
        elif not text.startswith("\\"):
            found[new if side == "RIGHT" else old] = "\n".join(seen)
            old, new = old + 1, new + 1
    return found
