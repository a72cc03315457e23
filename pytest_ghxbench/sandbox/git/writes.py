"""Writing git objects the way GitHub's git data API composes them: trees from entries that
name blobs, trees or submodule commits by sha (or carry content, or delete a path), annotated
tag objects without a ref; and reading a submodule's URL from ``.gitmodules``."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

import pygit2

from pytest_ghxbench.sandbox.git.objects import Person
from pytest_ghxbench.sandbox.git.repo import GitError, GitRepo

__all__ = ["TreeChange", "build_tree", "submodule_url", "write_tag"]

_TYPES = {
    "commit": pygit2.enums.ObjectType.COMMIT,
    "tree": pygit2.enums.ObjectType.TREE,
    "blob": pygit2.enums.ObjectType.BLOB,
    "tag": pygit2.enums.ObjectType.TAG,
}


def _mode(text: str) -> pygit2.enums.FileMode:
    return pygit2.enums.FileMode(int(text, 8))


@dataclass(frozen=True)
class TreeChange:
    """One entry of a new tree: ``path`` (from the root, may be nested) set to object ``sha``
    with ``mode`` (``100644``, ``100755``, ``120000``, ``040000``, ``160000``), or to ``data``
    (a new blob); neither removes the path."""

    path: str
    mode: str
    sha: str | None = None
    data: bytes | None = None


def build_tree(repo: GitRepo, base: str | None, changes: list[TreeChange]) -> str:
    """The sha of a tree: ``base``'s (a tree or commit sha; None for an empty one) with
    ``changes`` applied in order. :class:`GitError` when a removed path is not there."""
    git = repo.repo
    index = pygit2.Index()
    if base is not None:
        found = git.get(base)
        tree = found.tree if isinstance(found, pygit2.Commit) else found
        if not isinstance(tree, pygit2.Tree):
            raise GitError(f"{base} is not a tree")
        index.read_tree(tree)
    for change in changes:
        path = change.path.strip("/")
        below = [e.path for e in index if e.path.startswith(path + "/")]
        if change.sha is None and change.data is None:
            if path not in index and not below:
                raise GitError(f"{path} is not in the tree")
            for name in [path, *below]:
                if name in index:
                    index.remove(name)
            continue
        parts = path.split("/")
        above = ["/".join(parts[:i]) for i in range(1, len(parts))]  # a file where a folder goes
        for name in [path, *above, *below]:
            if name in index:
                index.remove(name)
        if change.data is not None:
            oid = git.create_blob(change.data)
            index.add(pygit2.IndexEntry(path, oid, _mode(change.mode)))
        elif change.mode == "040000":
            for entry in repo.tree(str(change.sha), recursive=True) or []:
                if entry.type != "tree":
                    mode = _mode(entry.mode)
                    index.add(
                        pygit2.IndexEntry(f"{path}/{entry.path}", pygit2.Oid(hex=entry.sha), mode)
                    )
        else:
            index.add(pygit2.IndexEntry(path, pygit2.Oid(hex=str(change.sha)), _mode(change.mode)))
    return str(index.write_tree(git))


def write_tag(repo: GitRepo, name: str, target: str, message: str, tagger: Person) -> str:
    """A new annotated tag object (no ref moves: GitHub's ``POST /git/tags`` only writes the
    object; ``refs/tags/<name>`` is the client's to create)."""
    git = repo.repo
    kind = repo.object_type(target)
    if kind is None:
        raise GitError(f"{target} does not exist")
    ref = f"refs/tags/{name}"
    before = repo.ref(ref)
    if before is not None:  # libgit2 writes the ref too and refuses to replace one
        repo.delete_ref(ref)
    try:
        sha = str(
            git.create_tag(name, pygit2.Oid(hex=target), _TYPES[kind], tagger.signature(), message)
        )
    finally:
        if before is not None:
            repo.set_ref(ref, before)
        elif repo.ref(ref) is not None:
            repo.delete_ref(ref)
    return sha


def submodule_url(repo: GitRepo, commit: str, path: str) -> str | None:
    """The URL ``.gitmodules`` at ``commit`` gives the submodule at ``path``."""
    done = subprocess.run(
        ["git", "--git-dir", str(repo.path), "config", "--blob", f"{commit}:.gitmodules",
         "--get-regexp", r"^submodule\..*\.(path|url)$"],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return None
    paths: dict[str, str] = {}
    urls: dict[str, str] = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        name, _, field = key.removeprefix("submodule.").rpartition(".")
        (paths if field == "path" else urls)[name] = value
    return next((urls.get(name) for name, where in paths.items() if where == path), None)
