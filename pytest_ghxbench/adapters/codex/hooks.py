"""Contributes the built-in ``codex`` adapter (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # Imported here so that plain `pytest` runs (no benchmark) never load the adapter.
    from pytest_ghxbench.adapters.codex.adapter import CodexAdapter

    return [CodexAdapter()]
