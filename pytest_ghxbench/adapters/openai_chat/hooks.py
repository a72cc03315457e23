"""Contributes the built-in ``openai`` adapter (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # The openai SDK takes a quarter of a second to import: only a session that selects this
    # adapter pays for it.
    from pytest_ghxbench.adapters.registry import LazyAdapter

    def load() -> Any:
        from pytest_ghxbench.adapters.openai_chat.adapter import OpenAIAdapter

        return OpenAIAdapter(config)

    return [LazyAdapter("openai", ("agent_direct", "mcp", "ghx"), load)]
