"""Gists: the viewer's snippets (the seed has none; an agent may create them)."""

from __future__ import annotations

from pydantic import Field

from pytest_ghxbench.sandbox.state_base import StateModel

__all__ = ["Gist", "GistFile"]


class GistFile(StateModel):
    filename: str
    content: str


class Gist(StateModel):
    id: str
    """GitHub's 32 hex digits."""
    owner: str
    description: str | None = None
    public: bool = False
    files: list[GistFile] = Field(default_factory=list)
    created_at: str
    updated_at: str
