"""The repository and its metadata: users, labels, milestones, issue types, releases (its code,
branches and tags are in the world's git repository)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Base64Bytes, Field, SerializerFunctionWrapHandler, model_serializer

from pytest_ghxbench.sandbox.state_base import StateModel

__all__ = [
    "IssueType",
    "Label",
    "Milestone",
    "Release",
    "ReleaseAsset",
    "Repository",
    "Subscription",
    "User",
]


class User(StateModel):
    login: str
    name: str = ""
    type: Literal["User", "Organization", "Bot"] = "User"


class Subscription(StateModel):
    ignored: bool = False
    """``True``: notifications are ignored; else the viewer is subscribed to all of them."""
    created_at: str


class Repository(StateModel):
    owner: str
    name: str
    node_id: str = ""
    description: str = ""
    homepage_url: str = ""
    default_branch: str = "main"
    visibility: Literal["PUBLIC", "PRIVATE", "INTERNAL"] = "PUBLIC"
    stargazer_count: int = 0
    fork_count: int = 0
    watcher_count: int = 0
    primary_language: str | None = None
    license: str | None = None
    topics: list[str] = Field(default_factory=list)
    has_issues_enabled: bool = True
    is_archived: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    pushed_at: str = "2025-01-01T00:00:00Z"
    viewer_subscription: Subscription | None = None
    """How the viewer watches the repository's notifications (``None``: not set)."""
    protected_branches: list[str] = Field(default_factory=list)
    """Branches under branch protection (reviews required before merging). The branches
    themselves, tags and commits live in the world's git repository (``World.git``)."""

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def url(self) -> str:
        return f"https://github.com/{self.full_name}"

    @property
    def is_private(self) -> bool:
        return self.visibility != "PUBLIC"


class Label(StateModel):
    name: str
    color: str = "ededed"
    description: str = ""
    node_id: str = ""
    is_default: bool = False


class Milestone(StateModel):
    number: int
    title: str
    node_id: str = ""
    description: str = ""
    state: Literal["OPEN", "CLOSED"] = "OPEN"
    due_on: str | None = None
    created_at: str | None = None
    """``None``: made with the repository (a seeded milestone)."""
    updated_at: str | None = None
    closed_at: str | None = None

    @model_serializer(mode="wrap")
    def _without_unset_times(self, handler: SerializerFunctionWrapHandler) -> Any:
        # fields added later dump only once set: stored worlds stay the same
        data = handler(self)
        if isinstance(data, dict):
            for key in ("created_at", "updated_at", "closed_at"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


class IssueType(StateModel):
    name: str
    node_id: str = ""
    description: str = ""
    color: str = "GRAY"
    is_enabled: bool = True


class ReleaseAsset(StateModel):
    id: int
    name: str
    size: int = 0
    download_count: int = 0
    content_type: str = "application/octet-stream"
    data: Base64Bytes | None = None
    """The bytes of an uploaded asset (base64 when saved). A seeded asset has none: a download
    serves :func:`~pytest_ghxbench.sandbox.placeholders.placeholder_bytes` of its size."""


class Release(StateModel):
    id: int
    tag_name: str
    name: str = ""
    node_id: str = ""
    body: str = ""
    draft: bool = False
    prerelease: bool = False
    target_commitish: str = "main"
    author: str = ""
    created_at: str = "2025-01-01T00:00:00Z"
    published_at: str | None = None
    assets: list[ReleaseAsset] = Field(default_factory=list)
