"""Projects v2 boards: their fields, single-select options and items."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pytest_ghxbench.sandbox.state_base import StateModel

__all__ = ["Project", "ProjectField", "ProjectItem", "ProjectOption"]


class ProjectOption(StateModel):
    id: str
    name: str
    color: str = "GRAY"
    description: str = ""


class ProjectField(StateModel):
    id: str
    name: str
    data_type: Literal[
        "TEXT", "NUMBER", "DATE", "SINGLE_SELECT", "ITERATION", "TITLE", "ASSIGNEES", "LABELS"
    ] = "TEXT"
    options: list[ProjectOption] = Field(default_factory=list)


class ProjectItem(StateModel):
    id: str
    content_type: Literal["Issue", "PullRequest", "DraftIssue"] = "Issue"
    content_number: int | None = None
    """Issue or pull request number in the world's repository (None for draft issues)."""
    title: str = ""
    """Only for draft issues; issues and pull requests show their own title."""
    field_values: dict[str, str | float | None] = Field(default_factory=dict)
    """Field id → value: option id (single select), text, number or ISO date."""
    is_archived: bool = False


class Project(StateModel):
    number: int
    owner: str
    owner_type: Literal["Organization", "User"] = "Organization"
    title: str
    node_id: str = ""
    short_description: str = ""
    readme: str = ""
    public: bool = False
    closed: bool = False
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    fields: list[ProjectField] = Field(default_factory=list)
    items: list[ProjectItem] = Field(default_factory=list)

    @property
    def url(self) -> str:
        kind = "orgs" if self.owner_type == "Organization" else "users"
        return f"https://github.com/{kind}/{self.owner}/projects/{self.number}"
