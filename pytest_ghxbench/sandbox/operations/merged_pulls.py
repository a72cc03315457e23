"""What the world's history says about pull requests and commits: the pull requests a commit
belongs to (``GET /commits/{sha}/pulls``) and the release notes GitHub generates from the pull
requests merged between two tags (``POST /releases/generate-notes``).
"""

from __future__ import annotations

from pytest_ghxbench.sandbox.code import pull_range
from pytest_ghxbench.sandbox.errors import GitHubError
from pytest_ghxbench.sandbox.state import PullRequest, World

__all__ = ["pulls_with_commit", "release_notes"]


def _carries(world: World, pull: PullRequest, sha: str) -> bool:
    """Whether ``sha`` is one of the pull request's commits or its merge commit."""
    if sha == pull.merge_commit_sha:
        return True
    span = pull_range(world, pull)
    if span is None:
        return False
    base, head = span
    git = world.git
    return git.is_ancestor(sha, head) and not (base and git.is_ancestor(sha, base))


def pulls_with_commit(world: World, sha: str) -> list[PullRequest]:
    """The merged pull request that brought ``sha`` into the default branch; for a commit the
    default branch does not have, the open and merged pull requests that carry it."""
    git = world.git
    tip = git.ref(f"refs/heads/{world.repository.default_branch}")
    landed = tip is not None and git.is_ancestor(sha, tip)
    states = ("MERGED",) if landed else ("OPEN", "MERGED")
    return [p for p in world.pull_requests if p.state in states and _carries(world, p, sha)]


def _tag_commit(world: World, tag: str) -> str | None:
    found = world.git.ref(f"refs/tags/{tag}")
    return world.git.peel(found) if found is not None else None


def _previous_tag(world: World, tag: str, head: str) -> str | None:
    """The tag of the newest published release before ``head`` (not ``tag`` itself)."""
    git = world.git
    earlier = [
        r
        for r in world.releases
        if not r.draft
        and r.tag_name != tag
        and (sha := _tag_commit(world, r.tag_name)) is not None
        and sha != head
        and git.is_ancestor(sha, head)
    ]
    newest = max(earlier, key=lambda r: (r.published_at or r.created_at, r.id), default=None)
    return newest.tag_name if newest is not None else None


def _merged_between(world: World, since: str | None, head: str) -> list[PullRequest]:
    git = world.git
    found = [
        p
        for p in world.pull_requests
        if p.state == "MERGED"
        and p.merge_commit_sha
        and git.commit(p.merge_commit_sha) is not None
        and git.is_ancestor(p.merge_commit_sha, head)
        and not (since and git.is_ancestor(p.merge_commit_sha, since))
    ]
    return sorted(found, key=lambda p: (p.merged_at or "", p.number))


def _first_merged(world: World) -> dict[str, int]:
    """Each author's first merged pull request."""
    first: dict[str, int] = {}
    merged = sorted(
        (p for p in world.pull_requests if p.state == "MERGED"),
        key=lambda p: (p.merged_at or "", p.number),
    )
    for pull in merged:
        first.setdefault(pull.author, pull.number)
    return first


def release_notes(
    world: World,
    repo_url: str,
    tag: str,
    target: str | None = None,
    previous: str | None = None,
) -> dict[str, str]:
    """GitHub's generated ``{name, body}`` for a release of ``tag``: the pull requests merged
    since the previous release's tag (or ``previous``), their new contributors and the full
    changelog link; pages are under ``repo_url`` (the repository's page on the client's host).

    The release's commit is the tag's when it exists, else ``target`` (default: the default
    branch); GitHub's 422 when that names no commit, or ``previous`` no tag."""
    head = _tag_commit(world, tag)
    if head is None:
        head = world.git.resolve(target or world.repository.default_branch)
    if head is None:
        raise GitHubError.validation("Release", "target_commitish", "invalid")
    if previous is not None and _tag_commit(world, previous) is None:
        raise GitHubError.validation("Release", "previous_tag_name", "invalid")
    previous = previous or _previous_tag(world, tag, head)
    since = _tag_commit(world, previous) if previous else None
    pulls = _merged_between(world, since, head)
    sections = []
    if pulls:
        changed = [f"* {p.title} by @{p.author} in {repo_url}/pull/{p.number}" for p in pulls]
        sections.append("## What's Changed\n" + "\n".join(changed))
        first = _first_merged(world)
        newcomers = [
            f"* @{p.author} made their first contribution in {repo_url}/pull/{p.number}"
            for p in pulls
            if first.get(p.author) == p.number
        ]
        if newcomers:
            sections.append("## New Contributors\n" + "\n".join(newcomers))
    span = f"compare/{previous}...{tag}" if previous else f"commits/{tag}"
    sections.append(f"**Full Changelog**: {repo_url}/{span}")
    return {"name": tag, "body": "\n\n".join(sections)}
