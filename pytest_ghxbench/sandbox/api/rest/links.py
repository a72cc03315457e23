"""Ids and absolute URLs of world objects, on the hosts the client reached the sandbox by."""

from __future__ import annotations

import hashlib

from pytest_ghxbench.sandbox.api.types import ApiUrls
from pytest_ghxbench.sandbox.state import Release, World
from pytest_ghxbench.sandbox.state_base import node_id

__all__ = [
    "REPO_ID",
    "Links",
    "fake_sha",
    "issue_id",
    "pull_id",
    "release_path",
    "user_node_id",
    "user_numeric_id",
]

ISSUE_ID_BASE = 3_100_000_000
PULL_ID_BASE = 2_000_000_000
REPO_ID = 700_000_001
"""The seed has no database ids for issues, pull requests or the repository; these are the
ones the GraphQL API reports as ``databaseId`` too (base + number)."""


def issue_id(number: int) -> int:
    return ISSUE_ID_BASE + number


def pull_id(number: int) -> int:
    return PULL_ID_BASE + number


def user_numeric_id(login: str) -> int:
    return 100_000 + sum(map(ord, login))


def user_node_id(login: str) -> str:
    return node_id("U", login)


def fake_sha(*key: object) -> str:
    """A stable 40-hex id for commits and blobs the seed does not spell out."""
    return hashlib.sha1(":".join(map(str, key)).encode()).hexdigest()


def release_path(release: Release) -> str:
    """The release's page under its repository's: ``releases/tag/<tag>``, or for a draft the
    ``untagged-...`` page GitHub gives it."""
    if not release.draft:
        return f"releases/tag/{release.tag_name}"
    return "releases/tag/untagged-" + hashlib.sha1(str(release.id).encode()).hexdigest()[:20]


class Links:
    """URL builder for one world seen through ``urls``."""

    def __init__(self, world: World, urls: ApiUrls) -> None:
        self.world = world
        self.urls = urls
        full = world.repository.full_name
        self.repo_api = f"{urls.api}/repos/{full}"
        self.repo_web = f"{urls.web}/{full}"

    def api(self, path: str) -> str:
        return f"{self.repo_api}/{path}" if path else self.repo_api

    def web(self, path: str) -> str:
        return f"{self.repo_web}/{path}" if path else self.repo_web
