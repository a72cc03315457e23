"""Stash keys shared by the plugin's modules (kept import-light: the plugin loads in every
pytest run, benchmark or not)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_ghxbench.hooks.recorder import RowRecorder
    from pytest_ghxbench.hooks.session import GhxSession
    from pytest_ghxbench.hooks.session_end import SessionEnd
    from pytest_ghxbench.runs.plan import Plan

SESSION_KEY: pytest.StashKey[GhxSession] = pytest.StashKey()
RECORDER_KEY: pytest.StashKey[RowRecorder] = pytest.StashKey()
SESSION_END_KEY: pytest.StashKey[SessionEnd] = pytest.StashKey()
ITEMS_KEY: pytest.StashKey[dict[str, pytest.Item]] = pytest.StashKey()
MARKERS_KEY: pytest.StashKey[set[str]] = pytest.StashKey()
PLAN_KEY: pytest.StashKey[Plan] = pytest.StashKey()


def register_marker(config: pytest.Config, name: str, description: str) -> None:
    registered = config.stash.setdefault(MARKERS_KEY, set())
    if name not in registered:
        config.addinivalue_line("markers", f"{name}: {description}")
        registered.add(name)
