"""Fixtures shared by the real-CLI tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_ghxbench.isolation.probe import BWRAP_ENV
from tests.agent_clis.scripted import Dialect, Script, ScriptedModel, Usage
from tests.isolation.support import require_jail, slow_bwrap

Serve = Callable[[Dialect, Script, Usage, float], ScriptedModel]
JAIL_DELAY_S = 2.0


@pytest.fixture
def serve_model() -> Iterator[Serve]:
    """``serve(dialect, script, usage, think_s)``: a scripted model server, closed after the
    test."""
    models: list[ScriptedModel] = []

    def serve(dialect: Dialect, script: Script, usage: Usage, think_s: float) -> ScriptedModel:
        model = ScriptedModel(dialect, script, usage, think_s=think_s)
        models.append(model)
        return model

    yield serve
    for model in models:
        model.close()


@pytest.fixture
def slow_jail(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> float:
    """Every item's jail takes this many seconds longer to start (a bubblewrap that waits
    first): the start of the jail must show in ``startup_ms``, not in ``latency_ms_wall``."""
    monkeypatch.setenv(BWRAP_ENV, str(slow_bwrap(tmp_path, require_jail(), JAIL_DELAY_S)))
    return JAIL_DELAY_S
