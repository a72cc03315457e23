"""Contributes the built-in ``claude-code`` adapter (registered by pytest_ghxbench.plugin)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # Imported here so that plain `pytest` runs (no benchmark) never load the adapter.
    from pytest_ghxbench.adapters.claude_code.adapter import ClaudeCodeAdapter

    return [ClaudeCodeAdapter()]
