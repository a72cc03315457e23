"""Pull request reviews in two steps, as on GitHub: a review starts PENDING (only its author
sees it and its threads), gathers review threads on lines of the diff, and is then submitted
with an event (its threads become visible with it) or deleted (with its threads).

A user has at most one pending review per pull request. Threads are checked against the pull
request's diff from git: a thread's lines must be lines the diff shows on their side
(:func:`~pytest_ghxbench.sandbox.git.diff.commentable_lines`), a multi-line thread within one
hunk. The REST and GraphQL APIs word the refusals their own ways (:func:`thread_problems`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pytest_ghxbench.sandbox.code import pull_files
from pytest_ghxbench.sandbox.errors import GitHubError, Unprocessable
from pytest_ghxbench.sandbox.git.diff import commentable_lines
from pytest_ghxbench.sandbox.operations.prs import touch
from pytest_ghxbench.sandbox.state import PullRequest, Review, ReviewComment, ReviewThread, World

__all__ = [
    "ONE_PENDING",
    "ONE_PENDING_FIELD",
    "ThreadSpot",
    "add_thread",
    "check_submission",
    "delete_review",
    "pending_review",
    "start_review",
    "submit_review",
    "thread_problems",
    "visible_reviews",
    "visible_threads",
]

ONE_PENDING = "User can only have one pending review per pull request"
ONE_PENDING_FIELD = {
    "resource": "PullRequestReview",
    "code": "custom",
    "field": "user_id",
    "message": "user_id can only have one pending review per pull request",
}
"""The same refusal as a single review comment (a reply, or a comment on a line) gets it:
that comment would start a review of its own."""
Event = Literal["APPROVE", "COMMENT", "REQUEST_CHANGES"]
_STATES: dict[str, Literal["APPROVED", "COMMENTED", "CHANGES_REQUESTED"]] = {
    "APPROVE": "APPROVED",
    "COMMENT": "COMMENTED",
    "REQUEST_CHANGES": "CHANGES_REQUESTED",
}


# ---------------------------------------------------------------- who sees what


def _hidden(world: World, review: Review) -> bool:
    return review.state == "PENDING" and review.author != world.viewer


def visible_reviews(world: World, pull: PullRequest) -> list[Review]:
    """The reviews the viewer sees: submitted ones, and the viewer's own pending one."""
    return [r for r in pull.reviews if not _hidden(world, r)]


def visible_threads(world: World, pull: PullRequest) -> list[ReviewThread]:
    """The review threads the viewer sees: not those of someone else's pending review."""
    hidden = {r.id for r in pull.reviews if _hidden(world, r)}
    return [
        t for t in pull.review_threads if not (t.comments and t.comments[0].review_id in hidden)
    ]


def pending_review(world: World, pull: PullRequest) -> Review | None:
    """The viewer's pending review of ``pull``, if there is one."""
    return next(
        (r for r in pull.reviews if r.state == "PENDING" and r.author == world.viewer), None
    )


# ---------------------------------------------------------------- threads on the diff


@dataclass(frozen=True)
class ThreadSpot:
    """Where a review thread goes: a file, and for a line thread its (last) line and side, and
    for a multi-line one its first line."""

    path: str
    line: int | None = None
    side: str = "RIGHT"
    start_line: int | None = None
    start_side: str | None = None


def _side(side: str | None) -> Literal["LEFT", "RIGHT"]:
    return "LEFT" if side == "LEFT" else "RIGHT"


def _hunk_header(hunk: str) -> str:
    return hunk.split("\n", 1)[0]


def thread_problems(world: World, pull: PullRequest, spot: ThreadSpot) -> tuple[bool, list[str]]:
    """Whether the file is in the diff, and what is wrong with the lines (REST's wording:
    ``Pull request review thread line must be part of the diff`` ...); no problems for a
    thread that fits."""
    change = next((f for f in pull_files(world, pull) if f.path == spot.path), None)
    if change is None or change.patch is None:
        return False, []
    if spot.line is None:
        return True, []
    lines = commentable_lines(change.patch, spot.side)
    problems = []
    if spot.line not in lines:
        problems.append("Pull request review thread line must be part of the diff")
    if spot.start_line is not None:
        starts = commentable_lines(change.patch, spot.start_side or spot.side)
        if spot.start_line >= spot.line:
            problems.append("Pull request review thread start line must precede the end line.")
        elif spot.start_line not in starts or (
            spot.line in lines
            and _hunk_header(starts[spot.start_line]) != _hunk_header(lines[spot.line])
        ):
            problems.append(
                "Pull request review thread start line must be part of the same hunk as the line."
            )
    if spot.line not in lines:
        problems.append("Pull request review thread diff hunk can't be blank")
    return True, problems


def add_thread(
    world: World, pull: PullRequest, review: Review, spot: ThreadSpot, body: str, now: str
) -> ReviewThread:
    """A thread of ``review`` at ``spot`` (already checked), its first comment ``body``."""
    hunk = ""
    if spot.line is not None:
        change = next(f for f in pull_files(world, pull) if f.path == spot.path)
        hunk = commentable_lines(change.patch or "", spot.side).get(spot.line, "")
    note_id = world.next_id()
    note = ReviewComment(
        id=note_id,
        node_id=world.node("PRRC", note_id),
        author=world.viewer,
        body=body,
        created_at=now,
        path=spot.path,
        line=spot.line,
        diff_hunk=hunk,
        review_id=review.id,
    )
    thread = ReviewThread(
        node_id=world.node("PRRT", pull.number, note_id),
        path=spot.path,
        line=spot.line,
        start_line=spot.start_line,
        diff_side=_side(spot.side),
        start_side=_side(spot.start_side) if spot.start_line is not None else None,
        comments=[note],
    )
    pull.review_threads.append(thread)
    return thread


# ---------------------------------------------------------------- the review's life


def start_review(
    world: World, pull: PullRequest, *, body: str = "", commit_id: str | None = None
) -> Review:
    """A new pending review of ``pull`` by the viewer; ``VALIDATION`` when one is pending."""
    if pending_review(world, pull) is not None:
        raise Unprocessable(ONE_PENDING)
    review_id = world.next_id()
    review = Review(
        id=review_id,
        node_id=world.node("PRR", review_id),
        author=world.viewer,
        state="PENDING",
        body=body,
        created_at=world.tick(),
        commit_id=commit_id or pull.head_sha,
    )
    pull.reviews.append(review)
    return review


_OWN_PULL = {"APPROVE": "approve", "REQUEST_CHANGES": "request changes on"}
NEEDS_COMMENT = "You need to leave a comment indicating the requested changes."


def check_submission(
    world: World, pull: PullRequest, event: str, body: str | None, *, threads: bool
) -> None:
    """Refuse what GitHub refuses to submit as ``event``: an unknown event, approving or
    requesting changes on one's own pull request, and a REQUEST_CHANGES or COMMENT review
    that says nothing (neither a body nor a comment on a line)."""
    if event not in _STATES:
        raise _refusal(f"Unknown review event: {event}")
    if pull.author == world.viewer and event in _OWN_PULL:
        raise _refusal(f"Can not {_OWN_PULL[event]} your own pull request")
    if event != "APPROVE" and not (body or "").strip() and not threads:
        verb = event.lower()
        raise _refusal(NEEDS_COMMENT, f"Could not {verb} for pull request review. {NEEDS_COMMENT}")


def _refusal(text: str, graphql: str | None = None) -> GitHubError:
    """A review refused as GitHub's REST API words it: ``Unprocessable Entity`` and the text."""
    plain: list[Any] = [text]  # GitHub lists review refusals as bare strings
    return GitHubError(422, "Unprocessable Entity", plain, graphql=graphql or text)


def submit_review(
    world: World, pull: PullRequest, review: Review, event: str, body: str | None = None
) -> Review:
    """Submit the pending ``review`` with ``event``: it and its threads become visible."""
    if review.state != "PENDING":
        raise Unprocessable("Review has already been submitted.")
    threads = any(t.comments and t.comments[0].review_id == review.id for t in pull.review_threads)
    text = review.body if body is None else body
    check_submission(world, pull, event, text, threads=threads)
    review.state = _STATES[event]
    review.body = text
    review.submitted_at = world.tick()
    pull.requested_reviewers = [r for r in pull.requested_reviewers if r != world.viewer]
    touch(world, pull)
    return review


def delete_review(pull: PullRequest, review: Review) -> None:
    """Delete the pending ``review`` and its threads."""
    if review.state != "PENDING":
        raise Unprocessable("Can not delete a non-pending pull request review")
    pull.reviews.remove(review)
    pull.review_threads = [
        t for t in pull.review_threads if not (t.comments and t.comments[0].review_id == review.id)
    ]
