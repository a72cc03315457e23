"""The ``openai`` adapter (our own tool-calling loop) measured like the real CLIs: the plugin,
the sandbox's real gh and MCP server, and a scripted chat-completions model that thinks for a
fixed time per answer.

The plugin runs in this process, so the adapter's clock, the model server's and the test's are
one (:func:`time.monotonic`, which subprocesses share): timings are checked against instants
that must come before or after them, never against a duration a busy machine could exceed."""

from __future__ import annotations

import json
import shlex
import sys
import time
from typing import Any

import pytest

from tests.agent_clis.conftest import Serve
from tests.agent_clis.dialect_chat import ChatCompletions
from tests.agent_clis.harness import CANARY_KEY, run_pr_view, written_text
from tests.agent_clis.pr_view import pr_view_script
from tests.agent_clis.scripted import Script, ScriptedModel, Usage

THINK_S = 0.4
USAGE = Usage(input=900, output=40, cache_read=300, reasoning=12)
CONFIG = '[tool.ghxbench.adapters.openai]\nmodel = "local/scripted-chat-1"\n'
MCP_START_S = 1.0
"""How long the item's MCP server takes to start, at least (a wrapper waits that long before it
starts the real one)."""
SLOW_MCP = """
import os, shlex, sys, time
time.sleep(float(sys.argv[2]))
with open(sys.argv[1], "w") as up:
    up.write(repr(time.monotonic()))
command = shlex.split(os.environ["GHXBENCH_MCP_COMMAND"])
os.execvp(command[0], command)
"""


class CallEnds:
    """When each item's call phase (where the adapter runs) was over, by node id."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.at.setdefault(report.nodeid, time.monotonic())


def run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    serve_model: Serve,
    mode: str,
    script: Script,
    config: str = CONFIG,
    plugins: tuple[object, ...] = (),
) -> tuple[dict[str, Any], ScriptedModel]:
    model = serve_model(ChatCompletions(), script, USAGE, THINK_S)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
    _, rows = run_pr_view(pytester, adapter="openai", mode=mode, config=config, plugins=plugins)
    (row,) = [r for r in rows if r["mode"] == mode]
    return row, model


def test_latency_starts_when_the_model_is_first_asked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve
) -> None:
    direct, direct_model = run(
        pytester, monkeypatch, serve_model, "agent_direct", pr_view_script("agent_direct")
    )
    # The mcp item's MCP server starts slowly: at least MCP_START_S, then it is up at `up`. The
    # wrapper and `up` live in this test's directory, which no jail mounts, so this item runs
    # unjailed (a jail's own start is startup, not latency: tests/isolation/test_measurement.py).
    monkeypatch.delenv("GHXBENCH_REQUIRE_JAIL", raising=False)
    unjailed = '[tool.ghxbench]\nisolation = "none"\n\n'
    wrapper, up = pytester.path / "slow_mcp.py", pytester.path / "mcp-up"
    wrapper.write_text(SLOW_MCP)
    command = shlex.join([sys.executable, str(wrapper), str(up), str(MCP_START_S)])
    ends = CallEnds()
    mcp, mcp_model = run(
        pytester, monkeypatch, serve_model, "mcp", pr_view_script("mcp"),
        config=unjailed + CONFIG + f"mcp_command = {json.dumps(command)}\n", plugins=(ends,),
    )  # fmt: skip
    for row, model in ((direct, direct_model), (mcp, mcp_model)):
        assert row["success"] is True, row["error"]
        answers = model.answers
        assert answers == 2 and row["api_calls"] == answers
        assert row["tokens"] == {
            "input": 900 * answers, "output": 40 * answers, "reasoning": 12 * answers,
            "cache_read": 300 * answers, "cache_write": 0, "total": 1252 * answers,
        }  # fmt: skip
        # Latency holds every model request, from the first one's arrival to the moment the
        # last answer was sent (it starts before the one and ends after the other).
        first, last = model.exchanges[0], model.exchanges[-1]
        assert row["latency_ms_wall"] >= (last.replied - first.received) * 1000
        assert row["latency_ms_wall"] >= answers * THINK_S * 1000
        assert row["startup_ms"] is not None and row["startup_ms"] >= 0
    # Starting the MCP server is startup, never latency: the item was not ready before its
    # server was up, and its answer came before its call phase ended.
    assert mcp["startup_ms"] >= MCP_START_S * 1000
    call_end = ends.at["scenarios/pr-view-001.yaml::pr-view-001[mcp-r1]"]
    assert mcp["latency_ms_wall"] <= (call_end - float(up.read_text())) * 1000
    assert CANARY_KEY not in written_text(pytester.path)


def test_starting_the_jail_is_startup_not_latency(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    serve_model: Serve,
    slow_jail: float,
) -> None:
    for mode in ("agent_direct", "mcp"):  # its jailed shell, its jailed MCP server
        row, model = run(pytester, monkeypatch, serve_model, mode, pr_view_script(mode))
        assert row["success"] is True, row["error"]
        assert row["startup_ms"] >= slow_jail * 1000  # type: ignore[operator]
        assert model.answers == 2
        timing: dict[str, float] = row["timing_breakdown"]  # type: ignore[assignment]
        spent = timing["model_ms"] + timing["tool_ms"]  # the model's answers and the tools
        assert row["latency_ms_wall"] < spent + slow_jail * 1000, row  # type: ignore[operator]


def test_gh_in_an_mcp_item_is_a_failure(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, serve_model: Serve
) -> None:
    script = pr_view_script("mcp", tool_mode="agent_direct")
    row, model = run(pytester, monkeypatch, serve_model, "mcp", script)
    assert row["success"] is False
    first_result = model.exchanges[-1].turn.tool_results[0]
    assert "unknown tool" in first_result or "not found" in first_result.lower(), first_result
    assert json.loads(model.exchanges[-1].action.text)["ok"] is False  # type: ignore[union-attr]
