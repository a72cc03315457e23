"""GraphQL types for git objects, read from the world's git repository: commits (their people,
parents, history, blame, changes and the pull requests that brought them), trees and their
entries, blobs and annotated tags, and a pull request's commits. Refs and the repository's code
fields are in :mod:`.refs`.

A commit, blob or tag is its sha; a tree is a :class:`TreeAt` (its sha and, when known, its
path, which its entries' paths start with).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.code import (
    commit_authors,
    commit_login,
    headline_and_body,
    pull_commits,
)
from pytest_ghxbench.sandbox.git import CommitInfo, Person, TreeEntry
from pytest_ghxbench.sandbox.git.diff import changed_files
from pytest_ghxbench.sandbox.git.languages import language_of
from pytest_ghxbench.sandbox.git.lookup import is_binary, tag_info
from pytest_ghxbench.sandbox.operations.actions import latest_checks
from pytest_ghxbench.sandbox.state import PullRequest, World

__all__ = ["TreeAt", "commit_info", "find_git_node", "git_object", "object_id"]

A = dict[str, Any]
C = Context

_TYPENAMES = {"commit": "Commit", "tree": "Tree", "blob": "Blob", "tag": "Tag"}
_PREFIXES = {"Commit": "C", "Tree": "TR", "Blob": "BL", "Tag": "TAG"}


@dataclass(frozen=True)
class TreeAt:
    sha: str
    path: str = ""


@dataclass(frozen=True)
class _EntryAt:
    entry: TreeEntry
    path: str


def _sha(value: Any) -> str:
    return value.sha if isinstance(value, TreeAt) else str(value)


def object_id(typename: str, sha: str) -> str:
    """A git object's node id; a commit's is the one the REST API gives it."""
    if typename == "Commit":
        return f"C_kwDO{sha[:32]}"
    return f"{_PREFIXES[typename]}_kwDO{sha}"


def git_object(kind: str, sha: str, path: str = "") -> Typed:
    """A ``GitObject`` value for an object of git type ``kind`` (``commit``, ``tree``...)."""
    return Typed(_TYPENAMES[kind], TreeAt(sha, path) if kind == "tree" else sha)


def find_git_node(world: World, node: str) -> Typed | None:
    """The commit, tree, blob or tag whose node id is ``node``."""
    prefix, marker, rest = node.partition("_kwDO")
    typename = next((t for t, p in _PREFIXES.items() if p == prefix), None)
    if not marker or typename is None or not 32 <= len(rest) <= 40:
        return None
    if typename == "Commit":
        sha = world.git.resolve(rest)
        return Typed("Commit", sha) if sha and sha.startswith(rest) else None
    kind = world.git.object_type(rest) if len(rest) == 40 else None
    return git_object(kind, rest) if kind and _TYPENAMES[kind] == typename else None


def commit_info(world: World, sha: str) -> CommitInfo:
    found = world.git.commit(sha)
    if found is None:
        raise GraphQLError(
            f"Could not resolve to a Commit with the oid of {sha}.", type="NOT_FOUND"
        )
    return found


def _object_fields(typename: str) -> dict[str, tuple[str, Any]]:
    """The ``GitObject`` fields every git object has."""
    return {
        "id": ("ID", lambda v, a, c: object_id(typename, _sha(v))),
        "oid": ("GitObjectID", lambda v, a, c: _sha(v)),
        "abbreviatedOid": ("String", lambda v, a, c: _sha(v)[:7]),
        "commitUrl": ("URI", lambda v, a, c: f"{c.world.repository.url}/commit/{_sha(v)}"),
        "commitResourcePath": ("URI", lambda v, a, c: f"/{c.full_name}/commit/{_sha(v)}"),
        "repository": ("Repository", lambda v, a, c: c.world),
    }


# ---------------------------------------------------------------- people


def _avatar(world: World, who: Person, size: Any) -> str:
    login = commit_login(world, who)
    if login is not None:
        return f"https://avatars.githubusercontent.com/{login}"
    return f"https://avatars.githubusercontent.com/u/e?email={quote(who.email)}&s={size or 80}"


obj(
    "GitActor",
    name=("String", lambda p, a, c: p.name),
    email=("String", lambda p, a, c: p.email),
    date=("GitTimestamp", lambda p, a, c: p.date),
    user=("User", lambda p, a, c: commit_login(c.world, p)),
    avatarUrl=("URI", lambda p, a, c: _avatar(c.world, p, a.get("size"))),
)

# ---------------------------------------------------------------- commits


def _time(value: Any) -> datetime:
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _history(sha: str, args: A, ctx: C) -> list[str]:
    """``Commit.history``: commits reachable from ``sha``, newest first, that changed ``path``,
    by ``author``, committed between ``since`` and ``until``."""
    from pytest_ghxbench.sandbox.api.graphql.resolvers.types import user_node

    world = ctx.world
    commits = world.git.log(sha, path=str(args.get("path") or "").strip("/") or None)
    author = args.get("author") or {}
    if author.get("emails"):
        emails = {str(e).casefold() for e in author["emails"]}
        commits = [x for x in commits if x.author.email.casefold() in emails]
    if author.get("id"):
        login = user_node(world, str(author["id"]))
        if login is None:
            raise GraphQLError(
                f"Could not resolve to a User with the global id of '{author['id']}'.",
                type="NOT_FOUND",
            )
        commits = [x for x in commits if commit_login(world, x.author) == login]
    if args.get("since"):
        since = _time(args["since"])
        commits = [x for x in commits if _time(x.committer.date) >= since]
    if args.get("until"):
        until = _time(args["until"])
        commits = [x for x in commits if _time(x.committer.date) <= until]
    return [x.sha for x in commits]


def _changes(world: World, sha: str) -> tuple[int, int, int]:
    """Additions, deletions and changed files of a commit against its first parent."""
    info = commit_info(world, sha)
    files = changed_files(world.git, info.parents[0] if info.parents else None, sha)
    return sum(f.additions for f in files), sum(f.deletions for f in files), len(files)


def _associated(world: World, sha: str, args: A) -> list[PullRequest]:
    """``Commit.associatedPullRequests``: the merged pull request that brought the commit in;
    for a commit not on the default branch, also the open ones that have it."""
    git = world.git
    tip = git.ref(f"refs/heads/{world.repository.default_branch}")
    on_default = tip is not None and git.is_ancestor(sha, tip)
    found = []
    for pull in world.pull_requests:
        if pull.state == "CLOSED" or (on_default and pull.state != "MERGED"):
            continue
        if pull.merge_commit_sha == sha or any(x.sha == sha for x in pull_commits(world, pull)):
            found.append(pull)
    order = args.get("orderBy") or {}
    key = "updated_at" if order.get("field") == "UPDATED_AT" else "created_at"
    desc = order.get("direction") == "DESC"
    return sorted(found, key=lambda p: (getattr(p, key), p.number), reverse=desc)


def _blame(world: World, sha: str, path: str) -> list[A]:
    """``Commit.blame``: line ranges and their commits; ``age`` from 1 (the newest change in
    the file) to 10 (the oldest), by commit time."""
    ranges = world.git.blame(sha, path) or []
    times = {
        commit: _time(commit_info(world, commit).committer.date).timestamp()
        for _, _, commit in ranges
    }
    newest, oldest = max(times.values(), default=0.0), min(times.values(), default=0.0)
    span = newest - oldest
    return [
        {
            "startingLine": start,
            "endingLine": start + count - 1,
            "age": 1 + round(9 * (newest - times[commit]) / span) if span else 1,
            "commit": commit,
        }
        for start, count, commit in ranges
    ]


def _file(world: World, sha: str, path: Any) -> _EntryAt | None:
    path = str(path).strip("/")
    found = world.git.entry(sha, path) if path else None
    return _EntryAt(found, path) if found is not None else None


obj(
    "BlameRange",
    startingLine=("Int", lambda r, a, c: r["startingLine"]),
    endingLine=("Int", lambda r, a, c: r["endingLine"]),
    age=("Int", lambda r, a, c: r["age"]),
    commit=("Commit", lambda r, a, c: r["commit"]),
)
obj("Blame", ranges=("[BlameRange]", lambda ranges, a, c: ranges))


def _info(c: C, sha: str) -> CommitInfo:
    return commit_info(c.world, sha)


obj(
    "Commit",
    **_object_fields("Commit"),
    url=("URI", lambda sha, a, c: f"{c.world.repository.url}/commit/{sha}"),
    resourcePath=("URI", lambda sha, a, c: f"/{c.full_name}/commit/{sha}"),
    message=("String", lambda sha, a, c: _info(c, sha).message.rstrip("\n")),
    messageHeadline=("String", lambda sha, a, c: headline_and_body(_info(c, sha))[0]),
    messageBody=("String", lambda sha, a, c: headline_and_body(_info(c, sha))[1]),
    author=("GitActor", lambda sha, a, c: _info(c, sha).author),
    committer=("GitActor", lambda sha, a, c: _info(c, sha).committer),
    authors=connection("GitActor", lambda sha, a, c: commit_authors(_info(c, sha))),
    authoredDate=("DateTime", lambda sha, a, c: _info(c, sha).author.date),
    committedDate=("DateTime", lambda sha, a, c: _info(c, sha).committer.date),
    pushedDate=("DateTime", lambda sha, a, c: None),  # GitHub no longer records it
    authoredByCommitter=(
        "Boolean",
        lambda sha, a, c: (i := _info(c, sha)).author.email == i.committer.email,
    ),
    committedViaWeb=(
        "Boolean",
        lambda sha, a, c: _info(c, sha).committer.email == "noreply@github.com",
    ),
    parents=connection("Commit", lambda sha, a, c: list(_info(c, sha).parents)),
    tree=("Tree", lambda sha, a, c: TreeAt(_info(c, sha).tree)),
    treeUrl=("URI", lambda sha, a, c: f"{c.world.repository.url}/tree/{sha}"),
    treeResourcePath=("URI", lambda sha, a, c: f"/{c.full_name}/tree/{sha}"),
    tarballUrl=("URI", lambda sha, a, c: f"{c.world.repository.url}/tarball/{sha}"),
    zipballUrl=("URI", lambda sha, a, c: f"{c.world.repository.url}/zipball/{sha}"),
    file=("TreeEntry", lambda sha, a, c: _file(c.world, sha, a["path"])),
    history=connection(
        "Commit", lambda sha, a, c: _history(sha, a, c), name="CommitHistoryConnection"
    ),
    additions=("Int", lambda sha, a, c: _changes(c.world, sha)[0]),
    deletions=("Int", lambda sha, a, c: _changes(c.world, sha)[1]),
    changedFiles=("Int", lambda sha, a, c: _changes(c.world, sha)[2]),
    changedFilesIfAvailable=("Int", lambda sha, a, c: _changes(c.world, sha)[2]),
    associatedPullRequests=connection(
        "PullRequest", lambda sha, a, c: _associated(c.world, sha, a)
    ),
    blame=("Blame", lambda sha, a, c: _blame(c.world, sha, str(a["path"]))),
    statusCheckRollup=(
        "StatusCheckRollup",
        lambda sha, a, c: latest_checks(c.world, sha) or None,
    ),
    checkSuites=connection("CheckSuite", lambda sha, a, c: latest_checks(c.world, sha)),
)

# ---------------------------------------------------------------- trees, blobs, tags


def _entries(tree: TreeAt, c: C) -> list[_EntryAt]:
    prefix = f"{tree.path}/" if tree.path else ""
    return [_EntryAt(e, prefix + e.name) for e in c.world.git.tree(tree.sha) or []]


def _extension(name: str) -> str:
    """Ruby's ``File.extname``, which GitHub answers with: ``""`` for ``.gitignore``."""
    stem, dot, ext = name.lstrip(".").rpartition(".")
    return f".{ext}" if dot and stem and ext else ""


def _line_count(world: World, entry: TreeEntry) -> int | None:
    data = world.git.blob(entry.sha) if entry.type == "blob" else None
    if data is None or is_binary(data):
        return None
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def _entry_object(e: _EntryAt) -> Typed | None:
    if e.entry.type == "commit":  # a submodule's commit is in another repository
        return None
    return git_object(e.entry.type, e.entry.sha, e.path)


def _language(e: _EntryAt) -> str | None:
    found = language_of(e.path) if e.entry.type == "blob" else None
    return found.name if found else None


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


obj(
    "TreeEntry",
    name=("String", lambda e, a, c: e.entry.name),
    nameRaw=("Base64String", lambda e, a, c: _b64(e.entry.name)),
    path=("String", lambda e, a, c: e.path),
    pathRaw=("Base64String", lambda e, a, c: _b64(e.path)),
    type=("String", lambda e, a, c: e.entry.type),
    mode=("Int", lambda e, a, c: int(e.entry.mode, 8)),
    oid=("GitObjectID", lambda e, a, c: e.entry.sha),
    object=("GitObject", lambda e, a, c: _entry_object(e)),
    extension=("String", lambda e, a, c: _extension(e.entry.name)),
    isGenerated=("Boolean", lambda e, a, c: False),
    language=("Language", lambda e, a, c: _language(e)),
    size=("Int", lambda e, a, c: e.entry.size or 0),
    lineCount=("Int", lambda e, a, c: _line_count(c.world, e.entry)),
    repository=("Repository", lambda e, a, c: c.world),
)
obj(
    "Tree",
    **_object_fields("Tree"),
    entries=("[TreeEntry]", lambda t, a, c: _entries(t, c)),
)


def _blob(world: World, sha: str) -> bytes:
    return world.git.blob(sha) or b""


obj(
    "Blob",
    **_object_fields("Blob"),
    byteSize=("Int", lambda sha, a, c: len(_blob(c.world, sha))),
    isBinary=("Boolean", lambda sha, a, c: is_binary(_blob(c.world, sha))),
    isTruncated=("Boolean", lambda sha, a, c: False),
    text=(
        "String",
        lambda sha, a, c: None if is_binary(b := _blob(c.world, sha)) else b.decode("utf-8"),
    ),
)


def _tag(world: World, sha: str) -> Any:
    found = tag_info(world.git, sha)
    if found is None:
        raise GraphQLError(f"Could not resolve to a Tag with the oid of {sha}.", type="NOT_FOUND")
    return found


obj(
    "Tag",
    **_object_fields("Tag"),
    name=("String", lambda sha, a, c: _tag(c.world, sha).name),
    message=("String", lambda sha, a, c: _tag(c.world, sha).message or None),
    tagger=("GitActor", lambda sha, a, c: _tag(c.world, sha).tagger),
    target=(
        "GitObject",
        lambda sha, a, c: git_object((t := _tag(c.world, sha)).target_kind, t.target),
    ),
)
abstract(
    "GitObject",
    ("Commit", "Tree", "Blob", "Tag"),
    **{key: (kind, lambda v, a, c: None) for key, (kind, _) in _object_fields("Commit").items()},
)

# ---------------------------------------------------------------- pull request commits


def _pull_url(world: World, pull: PullRequest) -> str:
    return f"{world.repository.url}/pull/{pull.number}"


obj(
    "PullRequestCommit",
    id=("ID", lambda p, a, c: c.world.node("PURC", p[0].number, p[1])),
    commit=("Commit", lambda p, a, c: p[1]),
    pullRequest=("PullRequest", lambda p, a, c: p[0]),
    url=("URI", lambda p, a, c: f"{_pull_url(c.world, p[0])}/commits/{p[1]}"),
    resourcePath=("URI", lambda p, a, c: f"/{c.full_name}/pull/{p[0].number}/commits/{p[1]}"),
)
