"""One measurement definition, jailed or not: starting an item's jail is the runtime's start
(``startup_ms``), never the agent's latency (``latency_ms_wall``).

Every jail here takes a second longer to start (a bubblewrap that waits before it starts one).
The oracle starts one jail per item, before its first command (a shell for gh in agent_direct,
the MCP server in mcp); its latency is its model's time (computed from the tokens) plus the time
its commands took, which is well under a second. The real CLIs and the openai loop are checked
the same way in ``tests/agent_clis``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent_clis.harness import recorded_rows
from tests.isolation.support import require_jail, run_shipped, slow_bwrap

pytestmark = pytest.mark.timeout(300)

DELAY_S = 1.0


def test_the_oracles_jail_start_is_startup_not_latency(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GHXBENCH_BWRAP", str(slow_bwrap(tmp_path, require_jail(), DELAY_S)))
    result = run_shipped(pytester, monkeypatch, "--ghx-isolation=jail", modes="agent_direct,mcp")
    rows = recorded_rows(pytester.path)
    assert sorted(row["mode"] for row in rows) == ["agent_direct", "mcp"], result.stdout.str()
    for row in rows:
        assert row["success"] is True, row["error"]
        assert row["startup_ms"] >= DELAY_S * 1000, row
        timing = row["timing_breakdown"]
        assert timing["tool_ms"] < DELAY_S * 1000, row
        assert row["latency_ms_wall"] == pytest.approx(timing["model_ms"] + timing["tool_ms"])
