"""Repository capabilities: ``repo.view``, ``repo.labels.list``, ``repo.issue_types.list``,
``repo.milestones.list``."""

from __future__ import annotations

from pytest_ghxbench.sandbox.capabilities.registry import (
    AFTER,
    FIRST,
    repo_schema,
)

REPO_INPUT = repo_schema()
REPO_PAGE_INPUT = repo_schema(first=FIRST, after=AFTER)
