"""Contributes the built-in ``github`` backend (registered by :mod:`pytest_ghxbench.plugin`)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_ghxbench.api import Backend


def pytest_ghxbench_backends(config: pytest.Config) -> Sequence[Backend]:
    from pytest_ghxbench.backends.lazy import LazyBackend

    def load() -> Backend:
        from pytest_ghxbench.github.backend import (
            BackendConfigError,
            GitHubBackend,
            settings_from_config,
        )
        from pytest_ghxbench.options import resolve_settings

        try:
            return GitHubBackend(
                settings_from_config(config), modes=resolve_settings(config).mode_table
            )
        except BackendConfigError as exc:
            raise pytest.UsageError(f"ghxbench: {exc}") from exc

    return [LazyBackend("github", load)]
