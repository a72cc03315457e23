"""Contributes the built-in ``sandbox`` backend (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_ghxbench.api import Backend


def pytest_ghxbench_backends(config: pytest.Config) -> Sequence[Backend]:
    # The world model and capability registry take a quarter of a second to load: only a
    # session that selects the sandbox pays for it.
    from pytest_ghxbench.backends.lazy import LazyBackend

    def load() -> Backend:
        from pytest_ghxbench.options import resolve_settings
        from pytest_ghxbench.sandbox.backend import SandboxBackend
        from pytest_ghxbench.sandbox.clients import Clients

        settings = resolve_settings(config)
        return SandboxBackend(
            clients=Clients(gh=settings.gh, mcp_server=settings.mcp_server, ghx=settings.ghx),
            modes=settings.mode_table,
        )

    return [LazyBackend("sandbox", load)]
