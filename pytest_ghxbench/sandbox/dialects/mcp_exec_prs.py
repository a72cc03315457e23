"""MCP tools about pull requests, in the GitHub MCP server's (REST, snake_case) shapes."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import Routes, ToolCall, fetch_all, paged, user
from pytest_ghxbench.sandbox.dialects.mcp_exec_issues import repo_input
from pytest_ghxbench.sandbox.state import PullRequest, Review, World

__all__ = ["PR_ROUTES", "pull_object"]

_EVENT_CAPABILITY = {
    "APPROVE": "pr.review.submit_approve",
    "COMMENT": "pr.review.submit_comment",
    "REQUEST_CHANGES": "pr.review.submit_request_changes",
}


def pull_object(world: World, pull: PullRequest) -> dict[str, Any]:
    """A pull request as the server's minimal pull request object."""
    url = f"{world.repository.url}/pull/{pull.number}"
    return {
        "number": pull.number,
        "node_id": pull.node_id,
        "title": pull.title,
        "body": pull.body,
        "state": "closed" if pull.state != "OPEN" else "open",
        "draft": pull.is_draft,
        "merged": pull.state == "MERGED",
        "mergeable": {"MERGEABLE": True, "CONFLICTING": False}.get(pull.mergeable),
        "mergeable_state": pull.merge_state_status.lower(),
        "html_url": url,
        "user": user(pull.author),
        "labels": list(pull.labels),
        "assignees": list(pull.assignees),
        "requested_reviewers": list(pull.requested_reviewers),
        "merged_by": pull.merged_by,
        "head": {"ref": pull.head_ref, "sha": pull.head_sha},
        "base": {"ref": pull.base_ref, "sha": pull.base_sha},
        "additions": sum(f.additions for f in pull.files),
        "deletions": sum(f.deletions for f in pull.files),
        "changed_files": len(pull.files),
        "commits": pull.commits,
        "comments": len(pull.comments),
        "created_at": pull.created_at,
        "updated_at": pull.updated_at,
        "closed_at": pull.closed_at,
        "merged_at": pull.merged_at,
    }


def _pr_input(args: dict[str, Any]) -> dict[str, Any]:
    return {**repo_input(args), "prNumber": int(args["pullNumber"])}


def _pull(call: ToolCall, args: dict[str, Any]) -> PullRequest:
    call.run("pr.view", _pr_input(args))
    pull = call.world.pull_request(int(args["pullNumber"]))
    assert pull is not None  # pr.view succeeded
    return pull


def list_pull_requests(call: ToolCall, args: dict[str, Any]) -> Any:
    entries = fetch_all(call, "pr.list", {**repo_input(args), "state": "all"})
    pulls = [p for p in (call.world.pull_request(int(e["number"])) for e in entries) if p]
    state = args.get("state") or "open"
    if state != "all":
        pulls = [p for p in pulls if (p.state == "OPEN") == (state == "open")]
    if args.get("head"):
        pulls = [p for p in pulls if str(args["head"]).split(":")[-1] == p.head_ref]
    if args.get("base"):
        pulls = [p for p in pulls if p.base_ref == args["base"]]
    key = "updated_at" if args.get("sort") in ("updated", "long-running") else "created_at"
    pulls.sort(key=lambda p: getattr(p, key), reverse=args.get("direction", "desc") == "desc")
    shown = [pull_object(call.world, p) for p in paged(pulls, args)]
    fields = args.get("fields")
    if fields:
        shown = [{k: entry[k] for k in ("number", *fields) if k in entry} for entry in shown]
    return shown


def pr_get(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    call.run("pr.mergeability.view", _pr_input(args))
    return pull_object(call.world, pull)


def pr_diff(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    parts = []
    for changed in pull.files:
        old = changed.previous_path or changed.path
        parts.append(
            f"diff --git a/{old} b/{changed.path}\n--- a/{old}\n+++ b/{changed.path}\n"
            f"{changed.patch.rstrip()}\n"
        )
    return "".join(parts)


def _check_runs(world: World, pull: PullRequest) -> list[dict[str, Any]]:
    return [
        {
            "id": run.id,
            "name": run.name,
            "status": run.status,
            "conclusion": run.conclusion,
            "head_sha": run.head_sha,
            "html_url": f"{world.repository.url}/runs/{run.id}",
            "started_at": run.started_at,
            "completed_at": run.completed_at,
            "app": {"slug": run.app},
        }
        for run in world.check_runs
        if run.head_sha == pull.head_sha
    ]


def pr_status(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    runs = _check_runs(call.world, pull)
    bad = {"failure", "timed_out", "cancelled", "action_required"}
    if any(r["conclusion"] in bad for r in runs):
        state = "failure"
    elif any(r["status"] != "completed" for r in runs):
        state = "pending"
    else:
        state = "success"
    statuses = [
        {"context": r["name"], "state": r["conclusion"] or "pending", "target_url": r["html_url"]}
        for r in runs
    ]
    return {"state": state, "sha": pull.head_sha, "total_count": len(runs), "statuses": statuses}


def pr_files(call: ToolCall, args: dict[str, Any]) -> Any:
    fetch_all(call, "pr.diff.list_files", _pr_input(args))
    pull = _pull(call, args)
    return paged(
        [
            {"filename": f.path, "status": f.status, "additions": f.additions,
             "deletions": f.deletions, "changes": f.additions + f.deletions, "patch": f.patch,
             "previous_filename": f.previous_path}
            for f in pull.files
        ],
        args,
    )  # fmt: skip


def pr_commits(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    # The world keeps a pull request's commit count and head only: the head commit stands in.
    return [
        {
            "sha": pull.head_sha,
            "html_url": f"{call.world.repository.url}/commit/{pull.head_sha}",
            "commit": {"message": pull.title, "author": {"name": pull.author}},
            "author": user(pull.author),
        }
    ]


def pr_review_comments(call: ToolCall, args: dict[str, Any]) -> Any:
    threads = fetch_all(call, "pr.comments.list", _pr_input(args))
    pull = _pull(call, args)
    by_node = {t.node_id: t for t in pull.review_threads}
    shown = []
    for thread in threads:
        notes = by_node[thread["id"]].comments
        shown.append(
            {
                "id": thread["id"],
                "is_resolved": thread["isResolved"],
                "is_outdated": thread["isOutdated"],
                "path": thread["path"],
                "line": thread["line"],
                "comments": [
                    {"id": n.id, "node_id": n.node_id, "body": n.body, "user": user(n.author),
                     "created_at": n.created_at, "in_reply_to_id": n.in_reply_to,
                     "html_url": f"{call.world.repository.url}/pull/{pull.number}"
                     f"#discussion_r{n.id}"}
                    for n in notes
                ],
            }
        )  # fmt: skip
    return {"review_threads": paged(shown, args), "total_count": len(shown)}


def _review(world: World, pull: PullRequest, review: Review) -> dict[str, Any]:
    return {
        "id": review.id,
        "node_id": review.node_id,
        "user": user(review.author),
        "body": review.body,
        "state": review.state,
        "commit_id": review.commit_id,
        "submitted_at": review.submitted_at,
        "html_url": f"{world.repository.url}/pull/{pull.number}#pullrequestreview-{review.id}",
    }


def pr_reviews(call: ToolCall, args: dict[str, Any]) -> Any:
    fetch_all(call, "pr.reviews.list", _pr_input(args))
    pull = _pull(call, args)
    shown = [r for r in pull.reviews if r.state != "PENDING" or r.author == call.world.viewer]
    return paged([_review(call.world, pull, r) for r in shown], args)


def pr_comments(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    base = f"{call.world.repository.url}/pull/{pull.number}"
    return paged(
        [
            {"id": c.id, "body": c.body, "user": user(c.author), "created_at": c.created_at,
             "html_url": f"{base}#issuecomment-{c.id}"}
            for c in pull.comments
        ],
        args,
    )  # fmt: skip


def pr_check_runs(call: ToolCall, args: dict[str, Any]) -> Any:
    call.run("pr.status.checks", _pr_input(args))
    pull = _pull(call, args)
    runs = _check_runs(call.world, pull)
    return {"total_count": len(runs), "check_runs": paged(runs, args)}


def update_pull_request(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    if args.get("draft") is not None and bool(args["draft"]) != pull.is_draft:
        call.run("pr.ready_for_review.set", {**_pr_input(args), "ready": not args["draft"]})
    if args.get("reviewers"):
        call.run("pr.reviewers.request", {**_pr_input(args), "reviewers": args["reviewers"]})
    # Title, body, base and open/closed have no capability: edit the world as GitHub would.
    for key in ("title", "body"):
        if args.get(key) is not None and getattr(pull, key) != args[key]:
            setattr(pull, key, str(args[key]))
            call.touched()
    if args.get("base") and args["base"] != pull.base_ref:
        if args["base"] not in {b.name for b in call.world.repository.branches}:
            raise call.fail(f"base branch '{args['base']}' does not exist")
        pull.base_ref = str(args["base"])
        call.touched()
    state = args.get("state")
    if state and pull.state != "MERGED" and (pull.state == "OPEN") != (state == "open"):
        pull.state = "OPEN" if state == "open" else "CLOSED"
        pull.closed_at = None if state == "open" else call.world.clock
        call.touched()
    if call.mutated:
        pull.updated_at = call.world.tick()
    return pull_object(call.world, pull)


def merge_pull_request(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    if args.get("expectedHeadSha") and args["expectedHeadSha"] != pull.head_sha:
        raise call.fail("Head branch was modified. Review and try the merge again.")
    data = call.run(
        "pr.merge.execute", {**_pr_input(args), "method": args.get("merge_method") or "merge"}
    )
    return {
        "merged": pull.state == "MERGED",
        "sha": pull.merge_commit_sha or data.get("mergeCommitSha"),
        "message": "Pull Request successfully merged",
    }


def update_branch(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    if args.get("expectedHeadSha") and args["expectedHeadSha"] != pull.head_sha:
        raise call.fail("expected head sha did not match the current head")
    call.run("pr.branch.update", _pr_input(args))
    return {
        "message": "Updating pull request branch.",
        "url": f"{call.world.repository.url}/pull/{pull.number}",
    }


def _pending(call: ToolCall, pull: PullRequest) -> Review | None:
    viewer = call.world.viewer
    return next((r for r in pull.reviews if r.state == "PENDING" and r.author == viewer), None)


def review_create(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    event = args.get("event")
    if event:
        body = {"body": args["body"]} if args.get("body") is not None else {}
        call.run(_EVENT_CAPABILITY[event], {**_pr_input(args), **body})
        return "pull request review submitted successfully"
    if _pending(call, pull) is not None:
        raise call.fail("you already have a pending review on this pull request")
    review_id = call.world.next_id()
    pull.reviews.append(
        Review(
            id=review_id,
            node_id=call.world.node("PRR", review_id),
            author=call.world.viewer,
            state="PENDING",
            body=str(args.get("body") or ""),
            submitted_at=call.world.tick(),
            commit_id=str(args.get("commitID") or pull.head_sha),
        )
    )
    call.touched()
    return "pending pull request review created successfully"


def review_submit_pending(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    pending = _pending(call, pull)
    if pending is None:
        raise call.fail("no pending review found for the viewer")
    if not args.get("event"):
        raise call.fail("missing required parameter: event")
    body = args.get("body") or pending.body
    pull.reviews.remove(pending)
    call.touched()
    call.run(
        _EVENT_CAPABILITY[args["event"]], {**_pr_input(args), **({"body": body} if body else {})}
    )
    return "pending pull request review submitted successfully"


def review_delete_pending(call: ToolCall, args: dict[str, Any]) -> Any:
    pull = _pull(call, args)
    pending = _pending(call, pull)
    if pending is None:
        raise call.fail("no pending review found for the viewer")
    pull.reviews.remove(pending)
    call.touched()
    return "pending pull request review successfully deleted"


def _thread_write(capability_id: str, done: str) -> Any:
    def write(call: ToolCall, args: dict[str, Any]) -> Any:
        if not args.get("threadId"):
            raise call.fail("missing required parameter: threadId")
        call.run(capability_id, {"threadId": args["threadId"]})
        return done

    return write


def reply_to_comment(call: ToolCall, args: dict[str, Any]) -> Any:
    comment_id = int(args["commentId"])
    found = next(
        (
            (pull, thread)
            for pull in call.world.pull_requests
            for thread in pull.review_threads
            if any(note.id == comment_id for note in thread.comments)
        ),
        None,
    )
    if found is None:
        raise call.fail(f"review comment {comment_id} not found")
    if not args.get("body"):
        raise call.fail("missing required parameter: body")
    pull, thread = found
    call.run("pr.comment.reply", {"threadId": thread.node_id, "body": args["body"]})
    note = thread.comments[-1]
    return {
        "id": note.id,
        "node_id": note.node_id,
        "body": note.body,
        "user": user(note.author),
        "in_reply_to_id": comment_id,
        "created_at": note.created_at,
        "html_url": f"{call.world.repository.url}/pull/{pull.number}#discussion_r{note.id}",
    }


PR_ROUTES: Routes = {
    ("list_pull_requests", None): ("list pull requests", list_pull_requests),
    ("pull_request_read", "get"): ("get pull request", pr_get),
    ("pull_request_read", "get_diff"): ("get pull request diff", pr_diff),
    ("pull_request_read", "get_status"): ("get combined status", pr_status),
    ("pull_request_read", "get_files"): ("get pull request files", pr_files),
    ("pull_request_read", "get_commits"): ("list pull request commits", pr_commits),
    ("pull_request_read", "get_review_comments"): ("get review comments", pr_review_comments),
    ("pull_request_read", "get_reviews"): ("get pull request reviews", pr_reviews),
    ("pull_request_read", "get_comments"): ("get pull request comments", pr_comments),
    ("pull_request_read", "get_check_runs"): ("get check runs", pr_check_runs),
    ("update_pull_request", None): ("update pull request", update_pull_request),
    ("merge_pull_request", None): ("merge pull request", merge_pull_request),
    ("update_pull_request_branch", None): ("update pull request branch", update_branch),
    ("pull_request_review_write", "create"): ("create review", review_create),
    ("pull_request_review_write", "submit_pending"): ("submit review", review_submit_pending),
    ("pull_request_review_write", "delete_pending"): ("delete review", review_delete_pending),
    ("pull_request_review_write", "resolve_thread"): (
        "resolve review thread",
        _thread_write("pr.comment.resolve", "review thread resolved successfully"),
    ),
    ("pull_request_review_write", "unresolve_thread"): (
        "unresolve review thread",
        _thread_write("pr.comment.unresolve", "review thread unresolved successfully"),
    ),
    ("add_reply_to_pull_request_comment", None): ("reply to review comment", reply_to_comment),
}
