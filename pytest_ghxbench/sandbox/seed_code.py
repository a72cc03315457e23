"""A seed's code: its ``code`` section built into the seed's git repository, and the world's
references to commits resolved against it.

In the ``world`` of a seed, a commit is named by its label in ``code.commits`` with an ``@``
(``head_sha: "@lock-3"``) in the fields that hold shas (:data:`SHA_FIELDS`); the label becomes
the commit's sha, which depends on the whole history and would be tedious to write by hand. An
open pull request leaves ``head_sha`` and ``base_sha`` out: they follow its branches.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pytest_ghxbench.sandbox.code import pull_files, sync_pulls
from pytest_ghxbench.sandbox.git import GitRepo, scratch_root
from pytest_ghxbench.sandbox.git.diff import commentable_lines
from pytest_ghxbench.sandbox.git.seed import CodeSeed, build_repository
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "SHA_FIELDS",
    "build_code",
    "resolve_labels",
    "settle",
    "unknown_commits",
]

SHA_FIELDS = frozenset({"head_sha", "base_sha", "merge_commit_sha", "commit_id"})
"""The world's fields whose value may be ``@<commit label>``."""
_LABEL = re.compile(r"^@([A-Za-z0-9][A-Za-z0-9._-]*)$")
_counter = iter(range(1, 1 << 62))


def resolve_labels(node: Any, shas: dict[str, str], where: str = "world") -> list[str]:
    """Replace ``@label`` values of :data:`SHA_FIELDS` in the raw ``world`` data (in place) by
    the labelled commits' shas; returns a problem per unknown label."""
    problems: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{where}.{key}"
            found = _LABEL.match(value) if isinstance(value, str) else None
            if key in SHA_FIELDS and found:
                label = found.group(1)
                if label in shas:
                    node[key] = shas[label]
                else:
                    problems.append(f"{here}: {value!r} is not a commit of code.commits")
            else:
                problems += resolve_labels(value, shas, here)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            problems += resolve_labels(value, shas, f"{where}[{index}]")
    return problems


def build_code(code: CodeSeed | None, world_data: dict[str, Any]) -> tuple[GitRepo, dict[str, str]]:
    """The seed's repository (built under :func:`scratch_root`) and its commit labels' shas."""
    repository = world_data.get("repository") or {}
    branch = str(repository.get("default_branch") or "main")
    if code is None:
        return GitRepo.empty(branch), {}
    names = {
        str(u.get("login")): str(u.get("name") or "")
        for u in world_data.get("users") or []
        if isinstance(u, dict)
    }
    path: Path = scratch_root() / f"seed-{next(_counter)}.git"
    return build_repository(code, path, branch, names)


def unknown_commits(world: World) -> list[str]:
    """Problems with the world's commit references: each must name a commit of its repository,
    and each open pull request's branches must exist."""
    git = world.git
    problems = []

    def need(sha: str, where: str) -> None:
        if sha and git.commit(sha) is None:
            problems.append(f"{where}: {sha} is not a commit of the seed's code")

    branches = git.branches()
    for index, pull in enumerate(world.pull_requests):
        where = f"world.pull_requests[{index}] (#{pull.number})"
        if pull.state == "OPEN":
            for role in ("head_ref", "base_ref"):
                name = getattr(pull, role)
                if name not in branches:
                    problems.append(f"{where}.{role}: branch {name!r} is not in code.branches")
        need(pull.head_sha, f"{where}.head_sha")
        need(pull.base_sha, f"{where}.base_sha")
        need(pull.merge_commit_sha or "", f"{where}.merge_commit_sha")
        for review in pull.reviews:
            need(review.commit_id, f"{where}.reviews ({review.id}).commit_id")
    for index, run in enumerate(world.workflow_runs):
        need(run.head_sha, f"world.workflow_runs[{index}].head_sha")
    for index, check in enumerate(world.check_runs):
        need(check.head_sha, f"world.check_runs[{index}].head_sha")
    return problems


def settle(world: World) -> None:
    """Fill in what the seed leaves to git: open pull requests' heads and bases, mergeability,
    ``refs/pull/<n>/head``, and review comments' diff hunks (cut from the pull request's patch
    at the comment's line, as GitHub stores them)."""
    sync_pulls(world, seeding=True)
    for pull in world.pull_requests:
        patches = {f.path: f.patch or "" for f in pull_files(world, pull)}
        for thread in pull.review_threads:
            for note in thread.comments:
                patch = patches.get(note.path or thread.path)
                line = note.line or thread.line
                if not note.diff_hunk and patch and line:
                    note.diff_hunk = commentable_lines(patch, thread.diff_side).get(line, "")
