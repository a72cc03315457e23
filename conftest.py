"""An example adapter: the smallest useful starting point for your own.

``pytest --ghx-mode=agent_direct,ghx --reps=4 --ghx-adapter=example`` runs the scenarios in
``scenarios/`` against the embedded sandbox backend with a scripted "agent" that performs the
ideal plan directly on the item's backend session (no dialect, no model). Its token, latency
and cost numbers are illustrative arithmetic, not measurements of any model: the point is to
show the plumbing (items, rows, summary, gate) end to end. Copy this file as the starting point
of your own adapter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest

import pytest_ghxbench as gb

# Illustrative per-mode costs of one tool round trip: (context tokens, tool calls, ms).
_MODE_SHAPE = {"agent_direct": (2400, 3, 9000), "mcp": (5200, 2, 7000), "ghx": (1300, 1, 4500)}
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def render_step_input(value: Any, bound: Mapping[str, Any]) -> Any:
    """Fill ``{{key}}`` placeholders of an oracle step from the bound input; a value that is
    exactly one placeholder keeps the bound value's type."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value.strip())
        if whole and whole[1] in bound:
            return bound[whole[1]]
        return _PLACEHOLDER.sub(lambda m: str(bound.get(m[1], m[0])), value)
    if isinstance(value, Mapping):
        return {k: render_step_input(v, bound) for k, v in value.items()}
    if isinstance(value, list):
        return [render_step_input(v, bound) for v in value]
    return value


class ExampleAdapter:
    """Performs the scenario's task (or its workflow's ``oracle`` steps) on the backend."""

    name = "example"
    modes = tuple(_MODE_SHAPE)
    model = "example/scripted"

    def run(self, request: gb.RunRequest) -> gb.RunResult:
        if request.backend is None:
            return gb.RunResult(error="the example adapter needs a backend session")
        scenario = request.scenario
        context, calls, ms = _MODE_SHAPE[request.mode]
        if scenario.kind == "workflow":
            steps = scenario.oracle or []
            for step in steps:
                request.backend.run_task(step.task, render_step_input(step.input, request.input))
            answer = f"Done: performed {len(steps)} step(s)."
            calls += len(steps)
        else:
            envelope = dict(request.backend.run_task(scenario.task, request.input))
            meta = envelope.get("meta") or {}
            envelope["meta"] = (
                {"route_used": meta.get("route_used")} if request.mode == "ghx" else {}
            )
            answer = json.dumps(envelope)
        words = len(request.prompt.split()) + len(request.instructions.split())
        return gb.RunResult(
            final_text=answer,
            tokens=gb.Tokens(
                input=context + 2 * words, output=60 + len(answer) // 8, cache_read=context // 2
            ),
            tool_calls=[gb.ToolCall(name="bash", arguments={"step": i}) for i in range(calls)],
            latency_ms=float(ms + 25 * words),
            cost_usd=round((context + 2 * words) * 1.25e-6, 6),
        )


def pytest_ghxbench_adapters(config: pytest.Config) -> list[Any]:
    return [ExampleAdapter()]
