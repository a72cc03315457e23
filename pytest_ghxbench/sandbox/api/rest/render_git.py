"""Git objects in GitHub's REST shapes: commits (``commit`` and ``git-commit``), changed files
(``diff-entry``) and the people behind commits."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_core import user_json
from pytest_ghxbench.sandbox.code import commit_login
from pytest_ghxbench.sandbox.git import CommitInfo, FileChange, Person

__all__ = [
    "commit_json",
    "commit_node_id",
    "file_json",
    "git_commit_json",
    "person_json",
    "verification",
]

A = dict[str, Any]


def commit_node_id(sha: str) -> str:
    """A commit's node id (GitHub's are opaque; these are stable per sha)."""
    return f"C_kwDO{sha[:32]}"


def person_json(person: Person) -> A:
    """A ``git-user``: name, email, date."""
    return {"name": person.name, "email": person.email, "date": person.date}


def verification() -> A:
    return {
        "verified": False,
        "reason": "unsigned",
        "signature": None,
        "payload": None,
        "verified_at": None,
    }


def _parents(links: Links, commit: CommitInfo, *, html: bool) -> list[A]:
    parents = []
    for sha in commit.parents:
        entry: A = {"sha": sha, "url": links.api(f"commits/{sha}")}
        if html:
            entry["html_url"] = links.web(f"commit/{sha}")
        parents.append(entry)
    return parents


def commit_json(links: Links, commit: CommitInfo, files: list[FileChange] | None = None) -> A:
    """A ``commit`` (``GET /commits/{ref}`` and lists); with ``files``, its stats and files."""
    sha = commit.sha
    url = links.api(f"commits/{sha}")
    world = links.world
    data: A = {
        "url": url,
        "sha": sha,
        "node_id": commit_node_id(sha),
        "html_url": links.web(f"commit/{sha}"),
        "comments_url": f"{url}/comments",
        "commit": {
            "url": links.api(f"git/commits/{sha}"),
            "author": person_json(commit.author),
            "committer": person_json(commit.committer),
            "message": commit.message.rstrip("\n"),
            "comment_count": 0,
            "tree": {"sha": commit.tree, "url": links.api(f"git/trees/{commit.tree}")},
            "verification": verification(),
        },
        "author": user_json(links, commit_login(world, commit.author)),
        "committer": user_json(links, commit_login(world, commit.committer)),
        "parents": _parents(links, commit, html=True),
    }
    if files is not None:
        additions = sum(f.additions for f in files)
        deletions = sum(f.deletions for f in files)
        data["stats"] = {
            "total": additions + deletions,
            "additions": additions,
            "deletions": deletions,
        }
        data["files"] = [file_json(links, change, sha) for change in files]
    return data


def git_commit_json(links: Links, commit: CommitInfo) -> A:
    """A ``git-commit`` (the git data API's view: no GitHub users)."""
    sha = commit.sha
    return {
        "sha": sha,
        "node_id": commit_node_id(sha),
        "url": links.api(f"git/commits/{sha}"),
        "html_url": links.web(f"commit/{sha}"),
        "author": person_json(commit.author),
        "committer": person_json(commit.committer),
        "message": commit.message.rstrip("\n"),
        "tree": {"sha": commit.tree, "url": links.api(f"git/trees/{commit.tree}")},
        "parents": _parents(links, commit, html=True),
        "verification": verification(),
    }


def file_json(links: Links, change: FileChange, ref: str) -> A:
    """A ``diff-entry`` of a file changed at commit ``ref``."""
    data: A = {
        "sha": change.sha,
        "filename": change.path,
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.changes,
        "blob_url": links.web(f"blob/{ref}/{change.path}"),
        "raw_url": links.web(f"raw/{ref}/{change.path}"),
        "contents_url": links.api(f"contents/{change.path}?ref={ref}"),
    }
    if change.patch is not None:
        data["patch"] = change.patch
    if change.previous_path:
        data["previous_filename"] = change.previous_path
    return data
