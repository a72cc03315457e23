"""Whether the runtimes' latency holds the same model time in every mode: starting a runtime,
its server or its MCP server must be startup, never latency.

For each adapter (our ``openai`` loop, the real ``codex`` and ``opencode`` CLIs), runs
``pytest --ghx-adapter=ADAPTER --ghx-mode=MODE --reps=N`` on ``pr-view-001`` in a fresh
subprocess, once per mode (agent_direct, mcp), against the tests' scripted model server
(tests/agent_clis: every answer after a fixed think time, so each item's model time is known).
Prints, per adapter and mode, the medians of ``startup_ms``, ``latency_ms_wall`` and of the
latency less the tools' own time, and the difference of that last median between the modes:
the MCP server's start counted as latency would show there as a difference of about its start
time. The real CLIs come from ``GHXBENCH_AGENT_CLIS`` (see tests/agent_clis/harness.py).

    python bench/agent_cli_latency.py [--reps 5] [--adapters openai,codex,opencode]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.agent_clis.dialect_chat import SCRIPTED_MODEL as CHAT_MODEL  # noqa: E402
from tests.agent_clis.dialect_chat import ChatCompletions  # noqa: E402
from tests.agent_clis.dialect_responses import SCRIPTED_MODEL as RESPONSES_MODEL  # noqa: E402
from tests.agent_clis.dialect_responses import Responses  # noqa: E402
from tests.agent_clis.harness import CANARY_KEY  # noqa: E402
from tests.agent_clis.pr_view import PR_VIEW_SCENARIO, pr_view_script  # noqa: E402
from tests.agent_clis.scripted import ScriptedModel, Usage  # noqa: E402

THINK_S = 0.4
MODES = ("agent_direct", "mcp")
Setup = Callable[[Path, ScriptedModel], tuple[str, dict[str, str]]]
"""(project dir, model) -> (pyproject text, environment) for one adapter."""


def cli(name: str) -> str:
    prefix = os.environ.get("GHXBENCH_AGENT_CLIS", "")
    path = Path(prefix) / "node_modules" / ".bin" / name
    if not path.is_file():
        raise SystemExit(f"{name} is not installed under GHXBENCH_AGENT_CLIS={prefix!r}")
    return str(path)


def openai_setup(root: Path, model: ScriptedModel) -> tuple[str, dict[str, str]]:
    config = f'[tool.ghxbench.adapters.openai]\nmodel = "local/{CHAT_MODEL}"\n'
    return config, {"OPENAI_BASE_URL": f"{model.url}/v1", "OPENAI_API_KEY": CANARY_KEY}


def codex_setup(root: Path, model: ScriptedModel) -> tuple[str, dict[str, str]]:
    home = root / "codex-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        f'model_provider = "scripted"\nmodel = "{RESPONSES_MODEL}"\n\n'
        '[model_providers.scripted]\nname = "Scripted"\n'
        f'base_url = "{model.url}/v1"\nwire_api = "responses"\n'
        'env_key = "SCRIPTED_RESPONSES_KEY"\nstream_max_retries = 0\n'
    )
    config = (
        f"[tool.ghxbench.adapters.codex]\nbinary = {json.dumps(cli('codex'))}\n"
        f'model = "scripted/{RESPONSES_MODEL}"\n'
    )
    return config, {"CODEX_HOME": str(home), "SCRIPTED_RESPONSES_KEY": CANARY_KEY}


def opencode_setup(root: Path, model: ScriptedModel) -> tuple[str, dict[str, str]]:
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Scripted",
        "options": {"baseURL": model.url + "/v1", "apiKey": "{env:SCRIPTED_API_KEY}"},
        "models": {CHAT_MODEL: {"name": CHAT_MODEL}},
    }
    path = root / "opencode-provider.json"
    path.write_text(json.dumps({"provider": {"scripted": provider}}))
    config = (
        f"[tool.ghxbench.adapters.opencode]\nbinary = {json.dumps(cli('opencode'))}\n"
        f'model = "scripted/{CHAT_MODEL}"\n'
    )
    env = {
        "OPENCODE_CONFIG": str(path),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "SCRIPTED_API_KEY": CANARY_KEY,
    }
    return config, env


ADAPTERS: dict[str, tuple[Callable[[], Any], Setup]] = {
    "openai": (ChatCompletions, openai_setup),
    "codex": (Responses, codex_setup),
    "opencode": (ChatCompletions, opencode_setup),
}


def run_mode(adapter: str, mode: str, reps: int) -> list[dict[str, Any]]:
    dialect, setup = ADAPTERS[adapter]
    with (
        tempfile.TemporaryDirectory(prefix="ghxbench-cli-latency-") as tmp,
        ScriptedModel(dialect(), pr_view_script(mode), Usage(), think_s=THINK_S) as model,
    ):
        root = Path(tmp)
        (root / "scenarios").mkdir()
        (root / "scenarios" / PR_VIEW_SCENARIO.name).write_text(PR_VIEW_SCENARIO.read_text())
        config, env = setup(root, model)
        (root / "pyproject.toml").write_text(config)
        done = subprocess.run(
            [
                sys.executable, "-m", "pytest", f"--ghx-adapter={adapter}", f"--ghx-mode={mode}",
                f"--reps={reps}", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                "scenarios",
            ],
            cwd=root,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=False,
        )  # fmt: skip
        rows = [
            json.loads(line)
            for path in sorted(root.glob(".ghxbench/runs/run_*/rows.jsonl"))
            for line in path.read_text().splitlines()
            if line.strip()
        ]
        if len(rows) != reps or not all(row["success"] for row in rows):
            raise SystemExit(f"{adapter} {mode}: {len(rows)} rows\n{done.stdout[-3000:]}")
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--adapters", default=",".join(ADAPTERS))
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()} {os.cpu_count()} cores, python "
        f"{platform.python_version()}, load {os.getloadavg()[0]:.2f}; think time {THINK_S} s "
        f"per answer, {args.reps} reps per mode"
    )
    for adapter in args.adapters.split(","):
        model_ms = {}
        for mode in MODES:
            rows = run_mode(adapter, mode, args.reps)
            startup = statistics.median(row["startup_ms"] for row in rows)
            latency = statistics.median(row["latency_ms_wall"] for row in rows)
            each = [
                row["latency_ms_wall"] - (row.get("timing_breakdown") or {}).get("tool_ms", 0)
                for row in rows
            ]
            model_ms[mode] = statistics.median(each)
            answers = statistics.median(row["api_calls"] for row in rows)
            print(
                f"{adapter:9s} {mode:13s} startup {startup:8.0f} ms  latency {latency:7.0f} ms  "
                f"latency - tools {model_ms[mode]:7.0f} ms  (model requests {answers:g}: at "
                f"least {answers * THINK_S * 1000:.0f} ms); each: {[round(x) for x in each]}"
            )
        difference = model_ms["mcp"] - model_ms["agent_direct"]
        print(f"{adapter:9s} latency - tools, mcp - agent_direct: {difference:+.0f} ms")


if __name__ == "__main__":
    main()
