"""``GET /search/code`` and ``GET /search/commits`` over the world's git repository (see
:mod:`pytest_ghxbench.sandbox.api.search_git` for what a query finds). With the text-match
media type (``application/vnd.github.text-match+json``, which ``gh search code`` sends), code
results carry ``text_matches``: the lines around each match, with where the terms are.

Code search's ``sort`` (``indexed``: when GitHub indexed a file, which the world does not know)
and ``order`` are not evaluated: the router records them. Commit search orders by ``sort``
(``author-date``, ``committer-date``) and ``order``, else newest first. A query GitHub refuses
is answered with its 422 (:func:`~.search.searching`)."""

from __future__ import annotations

import bisect
from typing import Any
from urllib.parse import quote

from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_core import minimal_repository, user_json
from pytest_ghxbench.sandbox.api.rest.render_git import commit_node_id, person_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, paged, route
from pytest_ghxbench.sandbox.api.rest.search import searching
from pytest_ghxbench.sandbox.api.search_git import CodeHit, search_code, search_commits
from pytest_ghxbench.sandbox.code import commit_login
from pytest_ghxbench.sandbox.git import CommitInfo

__all__: list[str] = []

_FRAGMENTS = 3
"""At most this many text matches per file."""


def _fragments(url: str, hit: CodeHit) -> list[dict[str, Any]]:
    """The lines around the matches (one before, one after), at most :data:`_FRAGMENTS`."""
    text = hit.text
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    windows: list[list[int]] = []  # [first line, last line]
    for start, _ in hit.in_text:
        line = bisect.bisect_right(starts, start) - 1
        low, high = max(line - 1, 0), min(line + 1, len(starts) - 1)
        if windows and low <= windows[-1][1] + 1:
            windows[-1][1] = max(windows[-1][1], high)
        elif len(windows) < _FRAGMENTS:
            windows.append([low, high])
    found = []
    for low, high in windows:
        begin = starts[low]
        end = starts[high + 1] - 1 if high + 1 < len(starts) else len(text)
        fragment = text[begin:end]
        matches = [
            {"text": text[a:b], "indices": [a - begin, b - begin]}
            for a, b in hit.in_text
            if begin <= a and b <= end
        ]
        found.append(_text_match(url, "content", fragment, matches))
    if hit.in_path and not found:  # found by its path alone
        path = hit.entry.path
        matches = [{"text": path[a:b], "indices": [a, b]} for a, b in hit.in_path]
        found.append(_text_match(url, "path", path, matches))
    return found


def _text_match(url: str, prop: str, fragment: str, matches: list[Any]) -> dict[str, Any]:
    return {
        "object_url": url,
        "object_type": "FileContent",
        "property": prop,
        "fragment": fragment,
        "matches": matches,
    }


def _code_item(links: Links, head: str, hit: CodeHit, text_matches: bool) -> dict[str, Any]:
    entry = hit.entry
    path = quote(entry.path)
    url = links.api(f"contents/{path}?ref={head}")
    item: dict[str, Any] = {
        "name": entry.name,
        "path": entry.path,
        "sha": entry.sha,
        "url": url,
        "git_url": links.api(f"git/blobs/{entry.sha}"),
        "html_url": links.web(f"blob/{head}/{path}"),
        "repository": minimal_repository(links),
        "score": 1.0,
    }
    if text_matches:
        item["text_matches"] = _fragments(url, hit)
    return item


@route("GET", "/search/code")
def _search_code(ctx: Ctx) -> Any:
    def answer(query: str) -> Any:
        hits = search_code(ctx.world, query)
        git = ctx.world.git
        head = git.resolve(git.default_branch) or ""
        wanted = "text-match" in ctx.accept
        links = ctx.links
        return {
            "total_count": len(hits),
            "incomplete_results": False,
            "items": [_code_item(links, head, hit, wanted) for hit in paged(ctx, hits)],
        }

    return searching(ctx, answer)


def _commit_item(links: Links, commit: CommitInfo) -> dict[str, Any]:
    sha = commit.sha
    url = links.api(f"commits/{sha}")
    world = links.world
    return {
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
        },
        "author": user_json(links, commit_login(world, commit.author)),
        "committer": user_json(links, commit_login(world, commit.committer)),
        "parents": [
            {"url": links.api(f"commits/{p}"), "html_url": links.web(f"commit/{p}"), "sha": p}
            for p in commit.parents
        ],
        "repository": minimal_repository(links),
        "score": 1.0,
    }


@route("GET", "/search/commits")
def _search_commits(ctx: Ctx) -> Any:
    """Commits by ``q``, ordered by its ``sort:`` or by ``sort`` and ``order``."""

    def answer(query: str) -> Any:
        found = search_commits(ctx.world, query, ctx.param("sort"), ctx.param("order"))
        links = ctx.links
        return {
            "total_count": len(found),
            "incomplete_results": False,
            "items": [_commit_item(links, c) for c in paged(ctx, found)],
        }

    return searching(ctx, answer)
