"""Contributes the built-in ``gemini`` adapter (registered by pytest_ghxbench.plugin)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # Loaded only by a session that selects it.
    from pytest_ghxbench.adapters.registry import LazyAdapter

    def load() -> Any:
        from pytest_ghxbench.adapters.gemini.adapter import GeminiAdapter

        return GeminiAdapter()

    return [LazyAdapter("gemini", ("agent_direct", "mcp", "ghx"), load)]
