"""A repository's files and git objects in GitHub's REST shapes: contents (``content-file``,
directory entries, ``content-tree``), trees (``git-tree``), blobs and annotated tags, and the
raw-file links (``download_url``) of the host the client came in on."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

import pygit2

from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_git import verification
from pytest_ghxbench.sandbox.api.types import ApiUrls
from pytest_ghxbench.sandbox.git import TreeEntry
from pytest_ghxbench.sandbox.git.objects import iso_time

__all__ = [
    "MAX_CONTENT",
    "base64_lines",
    "blob_json",
    "content_json",
    "entry_type",
    "raw_root",
    "raw_url",
    "tag_json",
    "tree_json",
]

A = dict[str, Any]

MAX_CONTENT = 1024 * 1024
"""The contents API inlines files up to 1 MB; a larger one comes with ``content: ""`` and
``encoding: "none"`` (its bytes through the raw media type or the blobs API)."""

SYMLINK, SUBMODULE = "120000", "160000"


def base64_lines(data: bytes) -> str:
    """Base64 as GitHub writes ``content``: lines of 60 characters, each ending in a newline."""
    text = base64.b64encode(data).decode("ascii")
    return "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60))


def raw_root(urls: ApiUrls) -> str:
    """Where raw files are served for a client on ``urls``: ``/raw`` on an Enterprise Server,
    ``raw.githubusercontent.com`` for github.com, ``raw.<host>`` for another github.com-style
    host (as GitHub Enterprise Cloud names it)."""
    if urls.api == f"{urls.web}/api/v3":
        return f"{urls.web}/raw"
    scheme, _, host = urls.web.partition("://")
    if host == "github.com":
        return f"{scheme}://raw.githubusercontent.com"
    return f"{scheme}://raw.{host}"


def raw_url(links: Links, ref: str, path: str) -> str:
    repo = links.world.repository
    return f"{raw_root(links.urls)}/{repo.full_name}/{quote(ref, safe='/')}/{quote(path)}"


def entry_type(entry: TreeEntry) -> str:
    """The contents API's type: ``file``, ``dir``, ``symlink`` or ``submodule``."""
    if entry.type == "tree":
        return "dir"
    if entry.type == "commit":
        return "submodule"
    return "symlink" if entry.mode == SYMLINK else "file"


def content_json(
    links: Links, ref: str, entry: TreeEntry, *, kind: str | None = None, listed: bool = False
) -> A:
    """One item of the contents API at ``ref``: its name, path, sha, size, links and type
    (``kind``, default :func:`entry_type`). ``listed``: as a directory listing shows it, where
    a submodule is a ``file`` (GitHub keeps that for compatibility)."""
    kind = kind or entry_type(entry)
    if listed and kind == "submodule":
        kind = "file"
    path = entry.path
    url = links.api(f"contents/{quote(path)}?ref={quote(ref, safe='/')}")
    place = "tree" if kind == "dir" else "blob"
    html: str | None = links.web(f"{place}/{quote(ref, safe='/')}/{quote(path)}")
    git: str | None = links.api(f"git/{'trees' if kind == 'dir' else 'blobs'}/{entry.sha}")
    download = raw_url(links, ref, path) if kind in ("file", "symlink") else None
    if entry.type == "commit":  # a submodule's objects are in another repository
        html = git = download = None
    return {
        "name": entry.name,
        "path": path,
        "sha": entry.sha,
        "size": entry.size or 0,
        "url": url,
        "html_url": html,
        "git_url": git,
        "download_url": download,
        "type": kind,
        "_links": {"self": url, "git": git, "html": html},
    }


def tree_json(links: Links, sha: str, entries: list[TreeEntry], truncated: bool = False) -> A:
    """A ``git-tree``: entries with mode, type, sha, size (blobs) and url (blobs, trees)."""
    items = []
    for entry in entries:
        item: A = {"path": entry.path, "mode": entry.mode, "type": entry.type, "sha": entry.sha}
        if entry.type == "blob":
            item["size"] = entry.size or 0
        if entry.type in ("blob", "tree"):
            item["url"] = links.api(f"git/{entry.type}s/{entry.sha}")
        items.append(item)
    return {
        "sha": sha,
        "url": links.api(f"git/trees/{sha}"),
        "tree": items,
        "truncated": truncated,
    }


def blob_json(links: Links, sha: str, data: bytes) -> A:
    """A ``blob``: its content in base64."""
    return {
        "sha": sha,
        "node_id": f"B_kwDO{sha[:32]}",
        "size": len(data),
        "url": links.api(f"git/blobs/{sha}"),
        "content": base64_lines(data),
        "encoding": "base64",
    }


def tag_json(links: Links, tag: pygit2.Tag) -> A:
    """A ``git-tag``: an annotated tag object, what it points at and who tagged it."""
    sha = str(tag.id)
    kind = links.world.git.object_type(str(tag.target)) or "commit"
    tagger = tag.tagger
    person = (
        {"name": tagger.name, "email": tagger.email, "date": iso_time(tagger.time)}
        if tagger is not None
        else {"name": "", "email": "", "date": iso_time(0)}
    )
    return {
        "node_id": f"TA_kwDO{sha[:32]}",
        "sha": sha,
        "url": links.api(f"git/tags/{sha}"),
        "tag": tag.name,
        "message": tag.message,
        "tagger": person,
        "object": {
            "sha": str(tag.target),
            "type": kind,
            "url": links.api(f"git/{kind}s/{tag.target}"),
        },
        "verification": verification(),
    }
