"""Fixtures shared by the real-CLI tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.agent_clis.scripted import Dialect, Script, ScriptedModel, Usage

Serve = Callable[[Dialect, Script, Usage, float], ScriptedModel]


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
