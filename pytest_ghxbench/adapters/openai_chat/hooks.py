"""Contributes the built-in ``openai`` adapter (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # Imported here so that runs with other adapters never load the openai SDK.
    from pytest_ghxbench.adapters.openai_chat.adapter import OpenAIAdapter

    return [OpenAIAdapter(config)]
