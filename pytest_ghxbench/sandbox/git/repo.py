"""One sandbox repository: a real bare git repository on disk, read and written in process with
pygit2 (libgit2), and copied per item as a fork that shares the objects.

A fork (:meth:`GitRepo.fork_of`) is cheap: it snapshots its source's refs in memory and, on first
use, writes a bare repository whose ``objects/info/alternates`` lists the source's object
directories, so no object is copied. Objects are immutable, so what the source adds later cannot
change what the fork sees; refs are the fork's own from the moment it was made. A fork's
directory is removed when the fork is garbage, or at exit. ``copy.deepcopy`` of a repository is a
fork, so a deep copy of a world never shares a ref with the original.
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2

from pytest_ghxbench.sandbox.git.authoring import ObjectWrites
from pytest_ghxbench.sandbox.git.history import HistoryQueries
from pytest_ghxbench.sandbox.git.objects import CommitInfo, GitError, TreeEntry, commit_info

__all__ = ["BARE_CONFIG", "GitError", "GitRepo", "scratch_root"]

_ZERO = "0" * 40


_ROOT: Path | None = None
_ROOT_LOCK = threading.Lock()
_NAMES = itertools.count(1)


def scratch_root() -> Path:
    """This process's directory for sandbox repositories (removed at exit)."""
    global _ROOT
    with _ROOT_LOCK:
        if _ROOT is None:
            _ROOT = Path(tempfile.mkdtemp(prefix="ghxbench-git-"))
            atexit.register(shutil.rmtree, _ROOT, True)
        return _ROOT


@dataclass(frozen=True)
class _Pending:
    """What a fork writes when it is first used."""

    alternates: tuple[str, ...]
    refs: dict[str, str]
    head: str


class GitRepo(HistoryQueries, ObjectWrites):
    """A bare repository (see the module docstring). Not thread-safe: a world's lock guards it."""

    def __init__(self, path: Path, *, create: bool = False, default_branch: str = "main") -> None:
        """The repository at ``path`` (``create``: a new empty one there)."""
        self._path = path
        self._repo: pygit2.Repository | None = None
        self._pending: _Pending | None = None
        self._source: GitRepo | None = None
        self._frozen: _Pending | None = None
        self._noted: dict[str, str] | None = None
        """The refs as :meth:`ref_moves` last saw them (at first, as first read)."""
        if create:
            path.mkdir(parents=True, exist_ok=True)
            pygit2.init_repository(str(path), bare=True, initial_head=default_branch)

    @classmethod
    def fork_of(cls, source: GitRepo, directory: Path | None = None) -> GitRepo:
        """A fork of ``source`` (its refs now, its objects by reference), written on first use
        under ``directory`` (default: :func:`scratch_root`)."""
        path = (directory or scratch_root()) / f"r{next(_NAMES)}-{os.getpid()}.git"
        fork = cls(path)
        fork._pending = source._frozen or _Pending(
            source.object_dirs(), source.refs(), source.head_ref()
        )
        fork._source = source  # keeps the source's objects on disk while the fork lives
        weakref.finalize(fork, shutil.rmtree, str(path), True)
        return fork

    def freeze(self) -> None:
        """Promise that this repository no longer changes (a seed's), so forks reuse one reading
        of its refs instead of reading them each time."""
        self._frozen = _Pending(self.object_dirs(), self.refs(), self.head_ref())

    @classmethod
    def empty(cls, default_branch: str = "main") -> GitRepo:
        """A new repository without commits under :func:`scratch_root`, removed when garbage."""
        path = scratch_root() / f"r{next(_NAMES)}-{os.getpid()}.git"
        repo = cls(path, create=True, default_branch=default_branch)
        weakref.finalize(repo, shutil.rmtree, str(path), True)
        return repo

    def __deepcopy__(self, memo: dict[int, Any]) -> GitRepo:
        return GitRepo.fork_of(self)

    # ------------------------------------------------------------------ on disk

    @property
    def path(self) -> Path:
        """The repository's directory, written first if this is a fork not used yet."""
        self._materialize()
        return self._path

    @property
    def repo(self) -> pygit2.Repository:
        if self._repo is None:
            self._repo = pygit2.Repository(str(self.path))
        return self._repo

    def _materialize(self) -> None:
        pending = self._pending
        if pending is None:
            return
        root = self._path
        (root / "objects" / "info").mkdir(parents=True)
        (root / "objects" / "pack").mkdir()
        (root / "refs" / "heads").mkdir(parents=True)
        (root / "refs" / "tags").mkdir()
        (root / "objects" / "info" / "alternates").write_text(
            "".join(f"{d}\n" for d in pending.alternates), encoding="utf-8"
        )
        (root / "config").write_text(BARE_CONFIG, encoding="utf-8")
        (root / "HEAD").write_text(f"ref: {pending.head}\n", encoding="utf-8")
        lines = ["# pack-refs with: peeled fully-peeled sorted \n"]
        lines += [f"{sha} {name}\n" for name, sha in sorted(pending.refs.items())]
        (root / "packed-refs").write_text("".join(lines), encoding="utf-8")
        self._pending = None

    def object_dirs(self) -> tuple[str, ...]:
        """Every object directory this repository reads: its own, then its alternates."""
        if self._pending is not None:
            return (str(self._path / "objects"), *self._pending.alternates)
        own = self._path / "objects"
        alternates = own / "info" / "alternates"
        extra: list[str] = []
        if alternates.is_file():
            extra = [x for x in alternates.read_text(encoding="utf-8").splitlines() if x.strip()]
        return (str(own), *extra)

    # ------------------------------------------------------------------ refs

    def refs(self) -> dict[str, str]:
        """Every direct ref (full name -> the sha it points at)."""
        if self._pending is not None:
            found = dict(self._pending.refs)
        else:
            found = {}
            for name in self.repo.references:
                ref = self.repo.references.get(name)
                if ref is not None and ref.type == pygit2.enums.ReferenceType.DIRECT:
                    found[name] = str(ref.target)
        if self._noted is None:
            self._noted = dict(found)
        return found

    def ref_moves(self) -> tuple[dict[str, str], dict[str, str]]:
        """The refs when this was last asked (or, the first time, when they were first read:
        every writer reads them first, a push too) and the refs now; now is the next baseline."""
        now = self.refs()
        before = self._noted if self._noted is not None else now
        self._noted = dict(now)
        return before, now

    def head_ref(self) -> str:
        """The ref HEAD names (``refs/heads/<default branch>``)."""
        if self._pending is not None:
            return self._pending.head
        text = (self._path / "HEAD").read_text(encoding="utf-8").strip()
        return text.removeprefix("ref: ").strip()

    @property
    def default_branch(self) -> str:
        return self.head_ref().removeprefix("refs/heads/")

    def set_default_branch(self, name: str) -> None:
        self._materialize()
        (self._path / "HEAD").write_text(f"ref: refs/heads/{name}\n", encoding="utf-8")

    def branches(self) -> dict[str, str]:
        """Branch name -> tip sha, sorted by name."""
        return {
            name.removeprefix("refs/heads/"): sha
            for name, sha in sorted(self.refs().items())
            if name.startswith("refs/heads/")
        }

    def tags(self) -> dict[str, str]:
        """Tag name -> the sha of its ref (a commit, or an annotated tag object)."""
        return {
            name.removeprefix("refs/tags/"): sha
            for name, sha in sorted(self.refs().items())
            if name.startswith("refs/tags/")
        }

    def ref(self, name: str) -> str | None:
        """The sha of full ref ``name`` (``refs/heads/main``), or None."""
        return self.refs().get(name)

    def set_ref(self, name: str, sha: str, *, expect: str | None = None) -> None:
        """Point full ref ``name`` at ``sha``; with ``expect``, only if it is there now."""
        current = self.ref(name)
        if expect is not None and current != (None if expect == _ZERO else expect):
            raise GitError(f"{name} is at {current or 'nothing'}, not {expect}")
        self.repo.references.create(name, pygit2.Oid(hex=sha), force=True)

    def delete_ref(self, name: str) -> bool:
        if self._noted is None:
            self.refs()
        ref = self.repo.references.get(name)
        if ref is None:
            return False
        ref.delete()
        return True

    def resolve(self, rev: str) -> str | None:
        """The commit sha ``rev`` names: a branch, a tag (peeled), a full ref, ``HEAD`` or a
        full or abbreviated (>= 4 digits) sha; None when it names no commit."""
        refs = self.refs()
        rev = rev.strip()
        for name in (rev, f"refs/heads/{rev}", f"refs/tags/{rev}", f"refs/{rev}"):
            if name in refs:
                return self.peel(refs[name])
        if rev == "HEAD":
            head = refs.get(self.head_ref())
            return self.peel(head) if head else None
        if 4 <= len(rev) <= 40 and all(c in "0123456789abcdefABCDEF" for c in rev):
            try:
                found = self.repo.revparse_single(rev.lower())
            except (KeyError, ValueError, pygit2.GitError):
                return None
            return self.peel(str(found.id))
        return None

    def peel(self, sha: str) -> str | None:
        """The commit an object (commit or annotated tag) names."""
        try:
            found = self.repo.get(sha)
        except ValueError:
            return None
        while isinstance(found, pygit2.Tag):
            found = self.repo.get(found.target)
        return str(found.id) if isinstance(found, pygit2.Commit) else None

    # ------------------------------------------------------------------ objects

    def object_type(self, sha: str) -> str | None:
        """``commit``, ``tree``, ``blob`` or ``tag``; None for an unknown object."""
        try:
            found = self.repo.get(sha)
        except ValueError:
            return None
        if found is None:
            return None
        return {
            pygit2.enums.ObjectType.COMMIT: "commit",
            pygit2.enums.ObjectType.TREE: "tree",
            pygit2.enums.ObjectType.BLOB: "blob",
            pygit2.enums.ObjectType.TAG: "tag",
        }.get(found.type)

    def commit(self, sha: str) -> CommitInfo | None:
        try:
            found = self.repo.get(sha)
        except ValueError:
            return None
        return commit_info(found) if isinstance(found, pygit2.Commit) else None

    def blob(self, sha: str) -> bytes | None:
        try:
            found = self.repo.get(sha)
        except ValueError:
            return None
        return bytes(found.data) if isinstance(found, pygit2.Blob) else None

    def tag_object(self, sha: str) -> pygit2.Tag | None:
        try:
            found = self.repo.get(sha)
        except ValueError:
            return None
        return found if isinstance(found, pygit2.Tag) else None

    def entry(self, commit: str, path: str) -> TreeEntry | None:
        """The tree entry at ``path`` in ``commit`` (``""``: the root tree itself)."""
        tree = self._commit(commit).tree
        path = path.strip("/")
        if not path:
            return TreeEntry("", "", "040000", "tree", str(tree.id), None)
        try:
            found = tree[path]
        except KeyError:
            return None
        return _entry(path, found)

    def read(self, commit: str, path: str) -> bytes | None:
        """The content of file ``path`` at ``commit``, or None."""
        found = self.entry(commit, path)
        if found is None or found.type != "blob":
            return None
        return self.blob(found.sha)

    def tree(self, sha: str, *, recursive: bool = False) -> list[TreeEntry] | None:
        """The entries of tree ``sha`` (a tree, or a commit's tree), in git's order; with
        ``recursive``, every entry below it, with paths from that tree."""
        try:
            found = self.repo.get(sha)
        except ValueError:
            return None
        if isinstance(found, pygit2.Commit):
            found = found.tree
        if not isinstance(found, pygit2.Tree):
            return None
        entries: list[TreeEntry] = []
        self._walk_tree(found, "", recursive, entries)
        return entries

    def _walk_tree(self, tree: pygit2.Tree, prefix: str, deep: bool, out: list[TreeEntry]) -> None:
        for item in tree:
            path = f"{prefix}{item.name}"
            out.append(_entry(path, item))
            if deep and isinstance(item, pygit2.Tree):
                self._walk_tree(item, f"{path}/", deep, out)

    def _commit(self, sha: str) -> pygit2.Commit:
        found = self.repo.get(sha)
        if not isinstance(found, pygit2.Commit):
            raise GitError(f"{sha} is not a commit")
        return found


BARE_CONFIG = (  # a sandbox repository's config: bare, and its default branch kept
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"
    "[receive]\n\tdenyDeleteCurrent = true\n"
)


def _entry(path: str, found: pygit2.Object) -> TreeEntry:
    name = path.rsplit("/", 1)[-1]
    mode = f"{found.filemode:06o}" if hasattr(found, "filemode") else "100644"
    if isinstance(found, pygit2.Tree):
        return TreeEntry(path, name, "040000", "tree", str(found.id), None)
    if isinstance(found, pygit2.Blob):
        return TreeEntry(path, name, mode, "blob", str(found.id), found.size)
    return TreeEntry(path, name, mode, "commit", str(found.id), None)
