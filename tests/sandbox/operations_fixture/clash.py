"""Two handlers that claim one operation."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.operations.registry import operation


@operation("closeIssue")
def _close(world: Any, input: dict[str, Any]) -> None: ...


@operation("closeIssue")
def _close_again(world: Any, input: dict[str, Any]) -> None: ...
