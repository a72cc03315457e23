"""``issue_write`` ``update`` on a pull request's number.

On GitHub every pull request is also an issue: the issues API takes a pull request's number to
change its title, body, assignees, labels and milestone. Assignees go through the
``pr.assignees.update`` capability; labels, milestone, title and body have no pull request
capability, so they are edited here after the same checks the issue capabilities make. What an
issue has and a pull request has not (an issue type, a parent issue) is refused, and so is a state
change: the sandbox changes a pull request's state only through the pull request tools.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import ToolCall, database_id
from pytest_ghxbench.sandbox.state import PullRequest

__all__ = ["pull_request_update"]

_REFUSED = {
    "type": "a pull request has no issue type",
    "parent_issue_number": "a pull request cannot be a sub-issue",
    "state": "change a pull request's state with update_pull_request or merge_pull_request",
    "state_reason": "change a pull request's state with update_pull_request or merge_pull_request",
}


def _assignees(call: ToolCall, pull: PullRequest, wanted: list[str]) -> None:
    add = [login for login in wanted if login not in pull.assignees]
    remove = [login for login in pull.assignees if login not in wanted]
    if add or remove:
        call.run(
            "pr.assignees.update",
            {**call.repo, "prNumber": pull.number, "add": add, "remove": remove},
        )


def _labels(call: ToolCall, pull: PullRequest, wanted: list[str]) -> None:
    names: list[str] = []
    for name in wanted:
        label = call.world.label(str(name))
        if label is None:
            raise call.fail(f"label '{name}' not found in {call.world.repository.full_name}")
        if label.name not in names:
            names.append(label.name)
    if names != pull.labels:
        pull.labels = names
        call.touched()


def _milestone(call: ToolCall, pull: PullRequest, number: Any) -> None:
    if number is not None and call.world.milestone(int(number)) is None:
        raise call.fail(f"milestone {number} not found in {call.world.repository.full_name}")
    wanted = None if number is None else int(number)
    if wanted != pull.milestone:
        pull.milestone = wanted
        call.touched()


def pull_request_update(call: ToolCall, args: dict[str, Any], pull: PullRequest) -> Any:
    """Apply ``issue_write`` ``update`` arguments to pull request ``pull``."""
    for key, reason in _REFUSED.items():
        if args.get(key) is not None:
            raise call.fail(f"#{pull.number} is a pull request: {reason}")
    if args.get("assignees") is not None:
        _assignees(call, pull, [str(login) for login in args["assignees"]])
    if args.get("labels") is not None:
        _labels(call, pull, list(args["labels"]))
    if "milestone" in args:
        _milestone(call, pull, args["milestone"])
    for key in ("title", "body"):
        value = args.get(key)
        if value is not None and value != getattr(pull, key):
            if key == "title" and not str(value).strip():
                raise call.fail("title cannot be empty")
            setattr(pull, key, str(value))
            call.touched()
    if call.mutated:
        pull.updated_at = call.world.tick()
    return {
        "id": str(database_id(pull.node_id)),
        "url": f"{call.world.repository.url}/pull/{pull.number}",
    }
