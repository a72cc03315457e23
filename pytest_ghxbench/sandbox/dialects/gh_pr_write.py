"""``gh pr`` writes: ``review``, ``comment`` and ``edit`` (state changes are in
:mod:`.gh_pr_state`).

Changes go through the sandbox's capabilities where one exists (reviews, assignees, reviewers,
draft state, branch update, merge), so every dialect changes the world the same way; the rest
(title, body, labels, milestone, conversation comments, close/reopen) edit the world directly.
Confirmations are the lines gh prints on a terminal's stderr.
"""

from __future__ import annotations

from pytest_ghxbench.sandbox.dialects.gh_args import (
    Command,
    Flag,
    GhError,
    Parsed,
    flag_usage_block,
)
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, ok
from pytest_ghxbench.sandbox.dialects.gh_inputs import (
    BODY_FILE,
    COMMENT_FLAGS,
    edit_last_comment,
    labels_to_add,
    logins,
    milestone_number,
    read_body,
)
from pytest_ghxbench.sandbox.dialects.gh_pr import SELECTOR, find_pull_request
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Comment, PullRequest, World

__all__ = ["PR_WRITE_COMMANDS", "add_conversation_comment", "pr_input", "pr_ref", "usage_error"]


def pr_input(ctx: GhContext, pull: PullRequest) -> dict[str, object]:
    return {**ctx.repo_input(), "prNumber": pull.number}


def pr_ref(ctx: GhContext, pull: PullRequest) -> str:
    return f"{ctx.full_name}#{pull.number}"


def usage_error(command: Command, message: str) -> GhError:
    return GhError(message, usage=flag_usage_block(command))


def _review(ctx: GhContext, parsed: Parsed) -> CliResult:
    chosen = [name for name in ("approve", "request-changes", "comment") if parsed.on(name)]
    if not chosen:
        raise usage_error(
            PR_REVIEW,
            "--approve, --request-changes, or --comment required when not running interactively",
        )
    if len(chosen) > 1:
        raise usage_error(
            PR_REVIEW, "need exactly one of --approve, --request-changes, or --comment"
        )
    body = read_body(ctx, parsed) or ""
    if chosen[0] != "approve" and not body.strip():
        raise usage_error(PR_REVIEW, f"body cannot be blank for {chosen[0]} review")
    pull = find_pull_request(ctx, parsed)
    task = {
        "approve": "pr.review.submit_approve",
        "request-changes": "pr.review.submit_request_changes",
        "comment": "pr.review.submit_comment",
    }[chosen[0]]
    ctx.call(task, {**pr_input(ctx, pull), **({"body": body} if body else {})})
    message = {
        "approve": f"✓ Approved pull request {pr_ref(ctx, pull)}",
        "request-changes": f"+ Requested changes to pull request {pr_ref(ctx, pull)}",
        "comment": f"- Reviewed pull request {pr_ref(ctx, pull)}",
    }[chosen[0]]
    return ok(stderr=message + "\n", context=ctx)


PR_REVIEW = Command(
    "pr review",
    f"review {SELECTOR}",
    "Add a review to a pull request",
    _review,
    flags=(
        Flag("approve", "Approve pull request", short="a", kind="bool"),
        Flag("body", "Specify the body of a review", short="b"),
        BODY_FILE,
        Flag("comment", "Comment on a pull request", short="c", kind="bool"),
        Flag("request-changes", "Request changes on a pull request", short="r", kind="bool"),
    ),
    long="Add a review to a pull request.\n\nWithout an argument, the pull request that belongs "
    "to the current branch is reviewed.",
    max_args=1,
)


def add_conversation_comment(world: World, pull: PullRequest, body: str) -> Comment:
    """A new comment by the viewer at the end of the pull request's conversation."""
    comment_id = world.next_id()
    now = world.tick()
    comment = Comment(
        id=comment_id,
        node_id=world.node("IC", comment_id),
        author=world.viewer,
        body=body,
        created_at=now,
    )
    pull.comments.append(comment)
    pull.updated_at = now
    return comment


def _comment(ctx: GhContext, parsed: Parsed) -> CliResult:
    body = read_body(ctx, parsed)
    if parsed.on("web") or parsed.on("editor"):
        raise GhError("the sandbox has no browser or editor; pass the text with --body")
    if body is None:
        raise usage_error(
            PR_COMMENT, "--body or --body-file required when not running interactively"
        )
    if not body.strip():
        raise GhError("Body cannot be blank")
    pull = find_pull_request(ctx, parsed)
    ctx.mutated = True
    if parsed.on("edit-last"):
        comment = edit_last_comment(ctx, pull.comments, body)
    else:
        comment = add_conversation_comment(ctx.world, pull, body)
    url = f"{ctx.world.repository.url}/pull/{pull.number}#issuecomment-{comment.id}"
    return ok(url + "\n", context=ctx)


PR_COMMENT = Command(
    "pr comment",
    f"comment {SELECTOR}",
    "Add a comment to a pull request",
    _comment,
    flags=COMMENT_FLAGS,
    long="Add a comment to a GitHub pull request.\n\nWithout the body text supplied through "
    "flags, the command will interactively\nprompt for the comment text.",
    max_args=1,
)

_EDIT_FLAGS = (
    "title",
    "body",
    "body-file",
    "base",
    "add-assignee",
    "remove-assignee",
    "add-label",
    "remove-label",
    "add-reviewer",
    "remove-reviewer",
    "milestone",
    "remove-milestone",
    "add-project",
    "remove-project",
)


def _edit(ctx: GhContext, parsed: Parsed) -> CliResult:
    if not any(parsed.has(name) for name in _EDIT_FLAGS):
        raise usage_error(PR_EDIT, "field to edit flag required when not running interactively")
    if parsed.has("add-project") or parsed.has("remove-project"):
        raise GhError("--add-project and --remove-project are not supported in the sandbox")
    pull = find_pull_request(ctx, parsed)
    world = ctx.world
    add_labels = labels_to_add(world, parsed.items("add-label"))
    milestone = (
        milestone_number(world, parsed.text("milestone")) if parsed.text("milestone") else None
    )
    if parsed.text("base") and parsed.text("base") not in {
        b.name for b in world.repository.branches
    }:
        raise GhError(
            f"GraphQL: Could not resolve to a Ref '{parsed.text('base')}'. (updatePullRequest)"
        )
    add_assignees, remove_assignees = (
        logins(ctx, parsed.items("add-assignee")),
        logins(ctx, parsed.items("remove-assignee")),
    )
    if add_assignees or remove_assignees:
        ctx.call(
            "pr.assignees.update",
            {**pr_input(ctx, pull), "add": add_assignees, "remove": remove_assignees},
        )
    if parsed.items("add-reviewer"):
        ctx.call(
            "pr.reviewers.request",
            {**pr_input(ctx, pull), "reviewers": logins(ctx, parsed.items("add-reviewer"))},
        )
    ctx.mutated = True
    body = read_body(ctx, parsed)
    if parsed.has("title"):
        pull.title = parsed.text("title")
    if body is not None:
        pull.body = body
    if parsed.text("base"):
        pull.base_ref = parsed.text("base")
    removed = {n.casefold() for n in parsed.items("remove-label")}
    pull.labels = [
        n for n in dict.fromkeys([*pull.labels, *add_labels]) if n.casefold() not in removed
    ]
    dropped = set(logins(ctx, parsed.items("remove-reviewer")))
    pull.requested_reviewers = [r for r in pull.requested_reviewers if r not in dropped]
    if milestone is not None:
        pull.milestone = milestone
    if parsed.on("remove-milestone"):
        pull.milestone = None
    pull.updated_at = world.tick()
    return ok(f"{world.repository.url}/pull/{pull.number}\n", context=ctx)


def _list_flag(name: str, help_text: str) -> Flag:
    return Flag(
        name,
        help_text,
        kind="strings",
        metavar="login" if "assignee" in name or "reviewer" in name else "name",
    )


PR_EDIT = Command(
    "pr edit",
    f"edit {SELECTOR}",
    "Edit a pull request",
    _edit,
    flags=(
        _list_flag(
            "add-assignee", 'Add assigned users by their login. Use "@me" to assign yourself.'
        ),
        _list_flag("add-label", "Add labels by name"),
        _list_flag("add-project", "Add the pull request to projects by title"),
        _list_flag("add-reviewer", "Add reviewers by their login."),
        Flag("base", "Change the base branch for this pull request", short="B", metavar="branch"),
        Flag("body", "Set the new body.", short="b"),
        BODY_FILE,
        Flag(
            "milestone",
            "Edit the milestone the pull request belongs to by name",
            short="m",
            metavar="name",
        ),
        _list_flag(
            "remove-assignee",
            'Remove assigned users by their login. Use "@me" to unassign yourself.',
        ),
        _list_flag("remove-label", "Remove labels by name"),
        Flag(
            "remove-milestone",
            "Remove the milestone association from the pull request",
            kind="bool",
        ),
        _list_flag("remove-project", "Remove the pull request from projects by title"),
        _list_flag("remove-reviewer", "Remove reviewers by their login."),
        Flag("title", "Set the new title.", short="t"),
    ),
    long="Edit a pull request.\n\nWithout an argument, the pull request that belongs to the "
    "current branch\nis selected.",
    max_args=1,
)


PR_WRITE_COMMANDS = (PR_COMMENT, PR_EDIT, PR_REVIEW)
