"""MCP tools about the viewer, the repository and its issues: the (tool, method) routes.

The handlers live by concept in sibling modules: ``mcp_exec_repo`` (the viewer, the repository,
labels, issue types), ``mcp_exec_issue_read`` (issue reads and the issue objects they show) and
``mcp_exec_issue_write`` (issue writes).
"""

from __future__ import annotations

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import Routes
from pytest_ghxbench.sandbox.dialects.mcp_exec_issue_read import (
    dependency_list,
    issue_comments,
    issue_get,
    issue_labels,
    issue_object,
    issue_parent,
    issue_sub_issues,
    list_issues,
    search_issues,
)
from pytest_ghxbench.sandbox.dialects.mcp_exec_issue_write import (
    add_issue_comment,
    dependency_write,
    issue_create,
    issue_update,
    sub_issue_add,
    sub_issue_remove,
    sub_issue_reprioritize,
)
from pytest_ghxbench.sandbox.dialects.mcp_exec_repo import (
    get_me,
    get_repository,
    list_issue_types,
    list_label,
    repo_input,
)

__all__ = ["ISSUE_ROUTES", "issue_object", "repo_input"]

ISSUE_ROUTES: Routes = {
    ("get_me", None): ("get the authenticated user", get_me),
    ("get_repository", None): ("get repository", get_repository),
    ("list_label", None): ("list labels", list_label),
    ("list_issue_types", None): ("list issue types", list_issue_types),
    ("issue_read", "get"): ("get issue", issue_get),
    ("issue_read", "get_comments"): ("get issue comments", issue_comments),
    ("issue_read", "get_sub_issues"): ("list sub-issues", issue_sub_issues),
    ("issue_read", "get_parent"): ("get parent issue", issue_parent),
    ("issue_read", "get_labels"): ("get issue labels", issue_labels),
    ("sub_issue_write", "add"): ("add sub-issue", sub_issue_add),
    ("sub_issue_write", "remove"): ("remove sub-issue", sub_issue_remove),
    ("sub_issue_write", "reprioritize"): ("reprioritize sub-issue", sub_issue_reprioritize),
    ("issue_write", "create"): ("create issue", issue_create),
    ("issue_write", "update"): ("update issue", issue_update),
    ("list_issues", None): ("list issues", list_issues),
    ("search_issues", None): ("search issues", search_issues),
    ("add_issue_comment", None): ("create comment", add_issue_comment),
    ("issue_dependency_read", "get_blocked_by"): (
        "list blocking issues",
        dependency_list("blockedBy"),
    ),
    ("issue_dependency_read", "get_blocking"): (
        "list blocked issues",
        dependency_list("blocking"),
    ),
    ("issue_dependency_write", "add"): (
        "add issue dependency",
        dependency_write("issue.blocked_by.add"),
    ),
    ("issue_dependency_write", "remove"): (
        "remove issue dependency",
        dependency_write("issue.blocked_by.remove"),
    ),
}
