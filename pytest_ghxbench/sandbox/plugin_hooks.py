"""Contributes the built-in ``sandbox`` backend (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_ghxbench.api import Backend


def pytest_ghxbench_backends(config: pytest.Config) -> Sequence[Backend]:
    # Imported here so that plain `pytest` runs (no benchmark) never load the sandbox.
    from pytest_ghxbench.sandbox.backend import SandboxBackend

    return [SandboxBackend()]
