"""Fixtures for the sandbox tests: the external scenarios and a fresh world per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.loader import load_catalog
from pytest_ghxbench.scenario.models import Scenario
from tests.paths import EXTERNAL_SCENARIOS


@pytest.fixture
def world() -> World:
    return fresh_world()


@pytest.fixture(scope="session")
def manifest() -> dict[str, object]:
    return seeded().manifest


def external_scenarios() -> list[Scenario]:
    """The TypeScript harness's 70 scenarios (empty when shared/ is not beside the checkout)."""
    if not EXTERNAL_SCENARIOS.is_dir():
        return []
    catalog = load_catalog(Path(EXTERNAL_SCENARIOS))
    assert not catalog.errors, catalog.errors
    return [loaded.scenario for loaded in catalog.scenarios.values()]


needs_external = pytest.mark.skipif(
    not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not beside the checkout"
)
