"""Writing objects into a repository: blobs, trees (a base tree with paths set or removed) and
commits, without moving any ref.

:class:`ObjectWrites` is mixed into :class:`~pytest_ghxbench.sandbox.git.repo.GitRepo`,
which provides the pygit2 repository these write to.
"""

from __future__ import annotations

import pygit2

from pytest_ghxbench.sandbox.git.objects import GitError, Person

__all__ = ["ObjectWrites"]


class ObjectWrites:
    """Object writes of a repository (see the module docstring)."""

    @property
    def repo(self) -> pygit2.Repository:
        raise NotImplementedError

    def write_blob(self, data: bytes) -> str:
        return str(self.repo.create_blob(data))

    def write_tree(self, base: str | None, changes: dict[str, bytes | None]) -> str:
        """A tree: ``base``'s (a commit or tree sha; None for empty) with each path of
        ``changes`` set to its content, or removed where the content is None."""
        index = pygit2.Index()
        if base is not None:
            found = self.repo.get(base)
            tree = found.tree if isinstance(found, pygit2.Commit) else found
            if not isinstance(tree, pygit2.Tree):
                raise GitError(f"{base} is neither a commit nor a tree")
            index.read_tree(tree)
        for path, data in changes.items():
            path = path.strip("/")
            if data is None:
                if path in index:
                    index.remove(path)
                continue
            mode = pygit2.enums.FileMode.BLOB
            if path in index:
                mode = index[path].mode
            index.add(pygit2.IndexEntry(path, self.repo.create_blob(data), mode))
        return str(index.write_tree(self.repo))

    def write_commit(
        self,
        tree: str,
        parents: list[str],
        message: str,
        author: Person,
        committer: Person | None = None,
    ) -> str:
        """A new commit object (no ref moves)."""
        sha = self.repo.create_commit(
            None,
            author.signature(),
            (committer or author).signature(),
            message,
            pygit2.Oid(hex=tree),
            [pygit2.Oid(hex=p) for p in parents],
        )
        return str(sha)
