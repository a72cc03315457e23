"""Contributes the built-in ``copilot`` adapter (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # Loaded only by a session that selects it.
    from pytest_ghxbench.adapters.registry import LazyAdapter

    def load() -> Any:
        from pytest_ghxbench.adapters.copilot.adapter import CopilotAdapter

        return CopilotAdapter()

    return [LazyAdapter("copilot", ("agent_direct", "mcp", "ghx"), load)]
