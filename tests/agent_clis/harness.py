"""Running the plugin with a real agent CLI, and reading what it recorded.

The CLIs come from npm (``.ci/run`` installs pinned versions under ``GHXBENCH_AGENT_CLIS``,
outside the repository). Without them these tests skip, saying so, except where
``GHXBENCH_REQUIRE_AGENT_CLIS=1`` (CI), where a missing CLI fails the test.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

# Imported once for the process: pytester drops the modules a run imported first, and a second
# run would then load the sandbox's TLS stack again, with classes the first copy rejects.
import pytest_ghxbench.sandbox.api.tls  # noqa: F401
from tests.agent_clis.pr_view import PR_VIEW_SCENARIO

__all__ = ["CANARY_KEY", "agent_cli", "recorded_rows", "run_pr_view", "written_text"]

CANARY_KEY = "sk-canary-3b1f9d2e7a6c4058"
"""The API key every scripted run uses; it must appear in no file the run writes."""

CLI_PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "opencode": "opencode-ai",
    "copilot": "@github/copilot",
    "gemini": "@google/gemini-cli",
    "mcp-server-github": "@modelcontextprotocol/server-github",
}


def agent_cli(name: str) -> str:
    """The path of the real CLI ``name`` (``claude``, ``codex``, ``opencode``), or skip."""
    prefix = os.environ.get("GHXBENCH_AGENT_CLIS")
    candidates = [Path(prefix) / "node_modules" / ".bin" / name] if prefix else []
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    reason = (
        f"the real {name} CLI is not installed: npm install --prefix DIR "
        f"{CLI_PACKAGES[name]} and set GHXBENCH_AGENT_CLIS=DIR (.ci/run does)"
    )
    if os.environ.get("GHXBENCH_REQUIRE_AGENT_CLIS") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def recorded_rows(root: Path) -> list[dict[str, Any]]:
    """Every row the run under ``root`` wrote."""
    return [
        json.loads(line)
        for path in sorted((root / ".ghxbench" / "runs").glob("run_*/rows.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def written_text(root: Path) -> str:
    """Everything the run wrote under ``root/.ghxbench`` (rows, transcripts, summaries)."""
    return "".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in (root / ".ghxbench").rglob("*")
        if path.is_file()
    )


def run_pr_view(
    pytester: pytest.Pytester,
    *,
    adapter: str,
    mode: str,
    config: str = "",
    reps: int = 1,
    plugins: Sequence[object] = (),
) -> tuple[pytest.RunResult, list[dict[str, Any]]]:
    """``pytest --ghx-adapter=ADAPTER --ghx-mode=MODE`` on ``pr-view-001`` alone, in
    ``pytester``'s directory (``config`` is added to its ``pyproject.toml``), in this process
    with ``plugins``."""
    scenarios = pytester.path / "scenarios"
    scenarios.mkdir(exist_ok=True)
    # the shipped scenario, with ten minutes instead of one: these tests are about what the
    # runtimes report, and a busy machine must not turn a slow start into a timeout
    text = PR_VIEW_SCENARIO.read_text()
    assert "\ntimeout_ms: 60000\n" in text
    (scenarios / PR_VIEW_SCENARIO.name).write_text(
        text.replace("\ntimeout_ms: 60000\n", "\ntimeout_ms: 600000\n")
    )
    pytester.makepyprojecttoml(config)
    result = pytester.runpytest(
        f"--ghx-adapter={adapter}", f"--ghx-mode={mode}", f"--reps={reps}",
        "-p", "no:cacheprovider", "-p", "no:randomly", "scenarios", plugins=list(plugins),
    )  # fmt: skip
    if os.environ.get("GHXBENCH_REQUIRE_JAIL") == "1":  # CI: the real CLIs pass jailed
        assert "ghxbench: isolation: jail (" in result.stdout.str(), result.stdout.str()[:3000]
    return result, recorded_rows(pytester.path)
