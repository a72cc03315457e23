"""Contributes the built-in ``oracle`` adapter (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # Loaded only by a session that selects it (the tokenizer and the sandbox are not light).
    from pytest_ghxbench.adapters.registry import LazyAdapter

    def load() -> Any:
        from pytest_ghxbench.adapters.oracle.adapter import OracleAdapter

        return OracleAdapter()

    return [LazyAdapter("oracle", ("ghx", "agent_direct", "mcp"), load)]
