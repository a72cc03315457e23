"""Issues and pull requests, with their comments, files, reviews and review threads."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from pytest_ghxbench.sandbox.state_base import StateModel

__all__ = [
    "Comment",
    "Issue",
    "IssueState",
    "LockReason",
    "MergeStateStatus",
    "Mergeable",
    "PullRequest",
    "PullState",
    "Reaction",
    "ReactionContent",
    "Review",
    "ReviewComment",
    "ReviewState",
    "ReviewThread",
    "StateReason",
]

IssueState = Literal["OPEN", "CLOSED"]
StateReason = Literal["COMPLETED", "NOT_PLANNED", "REOPENED", "DUPLICATE"]
PullState = Literal["OPEN", "CLOSED", "MERGED"]
ReviewState = Literal["APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING"]
Mergeable = Literal["MERGEABLE", "CONFLICTING", "UNKNOWN"]
MergeStateStatus = Literal[
    "BEHIND", "BLOCKED", "CLEAN", "DIRTY", "DRAFT", "HAS_HOOKS", "UNKNOWN", "UNSTABLE"
]
LockReason = Literal["off-topic", "too heated", "resolved", "spam"]
"""As GitHub's REST API names it (GraphQL: ``OFF_TOPIC``, ``TOO_HEATED``...)."""
ReactionContent = Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]
"""A reaction as GitHub's REST API names it (GraphQL: ``THUMBS_UP``, ``THUMBS_DOWN``...)."""


def _without_empty(data: Any, *keys: str) -> Any:
    # a field added later dumps only once it holds something: stored worlds (and the digests
    # taken of them) stay the same
    if isinstance(data, dict):
        for key in keys:
            if not data.get(key):
                data.pop(key, None)
    return data


class Reaction(StateModel):
    id: int
    node_id: str = ""
    user: str
    content: ReactionContent
    created_at: str


class Comment(StateModel):
    """A comment on an issue or on a pull request's conversation."""

    id: int
    node_id: str = ""
    author: str
    body: str
    created_at: str
    updated_at: str | None = None


class Issue(StateModel):
    number: int
    title: str
    node_id: str = ""
    body: str = ""
    author: str = ""
    state: IssueState = "OPEN"
    state_reason: StateReason | None = None
    labels: list[str] = Field(default_factory=list)
    assignees: list[str] = Field(default_factory=list)
    milestone: int | None = None
    issue_type: str | None = None
    comments: list[Comment] = Field(default_factory=list)
    parent: int | None = None
    """The number of the parent issue; sub-issues are derived from it (see World.sub_issues)."""
    blocked_by: list[int] = Field(default_factory=list)
    locked: bool = False
    active_lock_reason: LockReason | None = None
    """Why the conversation is locked, when it is and a reason was given."""
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    closed_at: str | None = None
    reactions: list[Reaction] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _without_unset_additions(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_empty(handler(self), "reactions", "active_lock_reason")


class Review(StateModel):
    id: int
    node_id: str = ""
    author: str
    state: ReviewState
    """``PENDING``: started, not submitted; only its author sees it (and its threads)."""
    body: str = ""
    submitted_at: str | None = None
    """``None`` while the review is pending."""
    created_at: str | None = None
    """When the review was started; ``None``: when it was submitted."""
    commit_id: str = ""


class ReviewComment(StateModel):
    id: int
    node_id: str = ""
    author: str
    body: str
    created_at: str
    path: str = ""
    line: int | None = None
    diff_hunk: str = ""
    in_reply_to: int | None = None
    review_id: int | None = None


class ReviewThread(StateModel):
    node_id: str
    path: str
    line: int | None = None
    start_line: int | None = None
    """The first line of a multi-line thread (``line`` is its last)."""
    diff_side: Literal["LEFT", "RIGHT"] = "RIGHT"
    start_side: Literal["LEFT", "RIGHT"] | None = None
    """The side of ``start_line``; ``None``: that of ``line`` (``diff_side``)."""
    is_resolved: bool = False
    is_outdated: bool = False
    resolved_by: str | None = None
    comments: list[ReviewComment] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _without_unset_start_side(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_empty(handler(self), "start_side")


class PullRequest(StateModel):
    number: int
    title: str
    node_id: str = ""
    body: str = ""
    author: str = ""
    state: PullState = "OPEN"
    is_draft: bool = False
    head_ref: str
    head_sha: str = ""
    """The head commit. An open pull request follows its head branch (set whenever refs move,
    see :func:`pytest_ghxbench.sandbox.code.sync_pulls`); a closed one keeps its last head."""
    base_ref: str = "main"
    base_sha: str = ""
    """The base branch's commit when the head last changed (the merge's first parent once
    merged); files and commits are those of ``head_sha`` since its merge base with this."""
    mergeable: Mergeable = "MERGEABLE"
    merge_state_status: MergeStateStatus = "CLEAN"
    labels: list[str] = Field(default_factory=list)
    assignees: list[str] = Field(default_factory=list)
    requested_reviewers: list[str] = Field(default_factory=list)
    milestone: int | None = None
    closing_issues: list[int] = Field(default_factory=list)
    """Issues this pull request closes when merged (``Fixes #n``): an issue's linked PRs."""
    comments: list[Comment] = Field(default_factory=list)
    reviews: list[Review] = Field(default_factory=list)
    review_threads: list[ReviewThread] = Field(default_factory=list)
    created_at: str = "2025-01-01T00:00:00Z"
    updated_at: str = "2025-01-01T00:00:00Z"
    closed_at: str | None = None
    merged_at: str | None = None
    merged_by: str | None = None
    merge_commit_sha: str | None = None
    reactions: list[Reaction] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _without_no_reactions(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_empty(handler(self), "reactions")
