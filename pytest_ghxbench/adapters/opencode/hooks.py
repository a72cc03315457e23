"""Contributes the built-in ``opencode`` adapter (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Any]:
    # Imported here so that runs with another adapter never load this one.
    from pytest_ghxbench.adapters.opencode.adapter import OpencodeAdapter

    return [OpencodeAdapter(config)]
