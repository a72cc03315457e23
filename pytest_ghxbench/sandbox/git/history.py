"""What a repository's history says: the commits that reach a ref (or changed a path), merge
bases and ancestry, the trees a merge or a cherry-pick would make, and blame.

:class:`HistoryQueries` is mixed into :class:`~pytest_ghxbench.sandbox.git.repo.GitRepo`,
which provides the pygit2 repository these read.
"""

from __future__ import annotations

import pygit2

from pytest_ghxbench.sandbox.git.objects import CommitInfo, commit_info

__all__ = ["HistoryQueries"]


class HistoryQueries:
    """History reads of a repository (see the module docstring)."""

    @property
    def repo(self) -> pygit2.Repository:
        raise NotImplementedError

    def _commit(self, sha: str) -> pygit2.Commit:
        raise NotImplementedError

    def read(self, commit: str, path: str) -> bytes | None:
        raise NotImplementedError

    def log(
        self, start: str, *, hide: tuple[str, ...] = (), path: str | None = None
    ) -> list[CommitInfo]:
        """Commits reachable from ``start`` and not from ``hide``, newest first (as ``git log``
        orders them); with ``path``, only those that changed it."""
        sort = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
        walker = self.repo.walk(pygit2.Oid(hex=start), sort)
        for sha in hide:
            walker.hide(pygit2.Oid(hex=sha))
        found = []
        for commit in walker:
            if path is None or self._touches(commit, path.strip("/")):
                found.append(commit_info(commit))
        return found

    def _touches(self, commit: pygit2.Commit, path: str) -> bool:
        mine = _tree_id(commit.tree, path)
        if not commit.parents:
            return mine is not None
        return all(_tree_id(parent.tree, path) != mine for parent in commit.parents)

    def merge_base(self, a: str, b: str) -> str | None:
        found = self.repo.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b))
        return str(found) if found is not None else None

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        if ancestor == descendant:
            return True
        return bool(self.repo.descendant_of(pygit2.Oid(hex=descendant), pygit2.Oid(hex=ancestor)))

    def merged_tree(self, ours: str, theirs: str) -> str | None:
        """The tree of merging ``theirs`` into ``ours``, or None when they conflict."""
        index = self.repo.merge_commits(pygit2.Oid(hex=ours), pygit2.Oid(hex=theirs))
        if index.conflicts is not None:
            return None
        return str(index.write_tree(self.repo))

    def picked_tree(self, commit: str, onto: str) -> str | None:
        """The tree of applying ``commit``'s change on top of commit ``onto`` (a cherry-pick),
        or None when it conflicts."""
        picked = self._commit(commit)
        base: pygit2.Tree | pygit2.Oid = (
            picked.parents[0].tree if picked.parents else self.repo.TreeBuilder().write()
        )
        index = self.repo.merge_trees(base, self._commit(onto).tree, picked.tree)
        if index.conflicts is not None:
            return None
        return str(index.write_tree(self.repo))

    def blame(self, commit: str, path: str) -> list[tuple[int, int, str]] | None:
        """``(first line, line count, commit sha)`` ranges of file ``path`` at ``commit``."""
        if self.read(commit, path) is None:
            return None
        found = self.repo.blame(path.strip("/"), newest_commit=pygit2.Oid(hex=commit))
        return [
            (hunk.final_start_line_number, hunk.lines_in_hunk, str(hunk.final_commit_id))
            for hunk in found
        ]


def _tree_id(tree: pygit2.Tree, path: str) -> str | None:
    try:
        return str(tree[path].id)
    except KeyError:
        return None
