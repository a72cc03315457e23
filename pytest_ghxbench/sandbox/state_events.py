"""The event history of issues and pull requests: what happened to them, when and by whom.

Events are what GitHub's issue events API lists (``labeled``, ``closed``, ``merged``...) plus
``cross-referenced``, which only timelines show. Comments, reviews and a pull request's commits
are not events here: timelines read them from the issue or pull request itself
(:mod:`pytest_ghxbench.sandbox.history`).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import ConfigDict

from pytest_ghxbench.sandbox.state_base import StateModel

__all__ = ["EVENT_NAMES", "EventName", "IssueEvent"]

EventName = Literal[
    "labeled",
    "unlabeled",
    "assigned",
    "unassigned",
    "milestoned",
    "demilestoned",
    "renamed",
    "closed",
    "reopened",
    "merged",
    "referenced",
    "cross-referenced",
    "head_ref_deleted",
    "head_ref_restored",
    "base_ref_changed",
    "review_requested",
    "review_request_removed",
    "ready_for_review",
    "convert_to_draft",
]
EVENT_NAMES: tuple[str, ...] = get_args(EventName)


class IssueEvent(StateModel):
    """One event of issue or pull request ``number``. Only the fields its kind uses are set.

    Frozen: what happened does not change, so fresh copies of a world share the seed's events
    instead of validating them again (:mod:`pytest_ghxbench.sandbox.manifest`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    node_id: str = ""
    number: int
    """The issue or pull request it happened to."""
    event: EventName
    actor: str | None = None
    created_at: str
    commit_id: str | None = None
    """``closed`` by a merge, ``merged``, ``referenced``: the commit."""
    label: str | None = None
    label_color: str | None = None
    """``labeled``, ``unlabeled``: the label's name and colour then."""
    login: str | None = None
    """``assigned``, ``unassigned``: the assignee; ``review_requested``,
    ``review_request_removed``: the reviewer."""
    milestone: str | None = None
    """``milestoned``, ``demilestoned``: the milestone's title."""
    old: str | None = None
    new: str | None = None
    """``renamed``: the titles; ``base_ref_changed``: the branches; ``head_ref_deleted``,
    ``head_ref_restored``, ``merged``: ``new`` is the branch."""
    state_reason: str | None = None
    """``closed``, ``reopened``: GitHub's ``IssueStateReason`` (``COMPLETED``...)."""
    source: int | None = None
    """``cross-referenced``: the issue or pull request whose text mentions this one;
    ``closed`` by a merge: the pull request merged."""
