"""Wall time of ``ghxbench report`` on a large generated row file.

Generates ROWS rows (100 scenarios x 3 modes, realistic spreads, a few runner errors) as JSONL,
then times ``ghxbench report FILE --gate --summary-json ...`` end to end in a subprocess
(interpreter start, reading and validating rows, per-mode statistics, the gate with both
10,000-resample bootstrap intervals, writing the summary).

    python bench/report_speed.py [--rows 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = {"agent_direct": (1.0, 1.0), "mcp": (1.1, 0.9), "ghx": (0.7, 0.6)}


def generate(path: Path, rows: int, scenarios: int = 100, seed: int = 7) -> None:
    rng = random.Random(seed)
    per_cell = rows // (scenarios * len(MODES))
    with path.open("w", encoding="utf-8") as out:
        for s in range(scenarios):
            base_tokens = rng.uniform(8_000, 40_000)
            base_latency = rng.uniform(10_000, 90_000)
            for mode, (token_factor, latency_factor) in MODES.items():
                for i in range(per_cell):
                    runner_error = rng.random() < 0.01
                    tokens = int(rng.gauss(base_tokens * token_factor, base_tokens * 0.15))
                    cache = int(tokens * rng.uniform(0.2, 0.6))
                    row = {
                        "timestamp": "2026-11-21T00:00:00.000Z",
                        "run_id": "bench",
                        "mode": mode,
                        "scenario_id": f"scenario-{s:03d}",
                        "scenario_set": None,
                        "iteration": i + 1,
                        "session_id": None,
                        "success": not runner_error and rng.random() > 0.03,
                        "output_valid": not runner_error,
                        "latency_ms_wall": max(
                            1.0, rng.gauss(base_latency * latency_factor, base_latency * 0.2)
                        ),
                        "sdk_latency_ms": None,
                        "tokens": {
                            "input": max(0, tokens - cache),
                            "output": 600,
                            "reasoning": 200,
                            "cache_read": cache,
                            "cache_write": 0,
                            "total": max(0, tokens) + 800,
                        },
                        "cost": round(tokens * 2e-6, 6),
                        "tool_calls": max(1, int(rng.gauss(6 * latency_factor, 1.5))),
                        "api_calls": 4,
                        "internal_retry_count": 0,
                        "external_retry_count": 1 if rng.random() < 0.02 else 0,
                        "model": {"provider_id": "bench", "model_id": "synthetic", "mode": mode},
                        "git": {"repo": None, "commit": None},
                        "error": {"type": "runner_error", "message": "agent timed out"}
                        if runner_error
                        else None,
                    }
                    out.write(json.dumps(row, separators=(",", ":")) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ghxbench-report-bench-") as tmp:
        rows_path = Path(tmp) / "rows.jsonl"
        generate(rows_path, args.rows)
        size_mb = rows_path.stat().st_size / 1e6
        command = [
            sys.executable,
            "-m",
            "pytest_ghxbench",
            "report",
            str(rows_path),
            "--gate",
            "--summary-json",
            str(Path(tmp) / "summary.json"),
        ]
        times = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - started)
            if done.returncode not in (0, 1):
                raise SystemExit(done.stdout + done.stderr)
        summary = json.loads((Path(tmp) / "summary.json").read_text())
    gate = summary["gate"]
    print(f"machine: {platform.machine()} python {platform.python_version()}")
    print(f"rows: {args.rows} ({size_mb:.1f} MB JSONL), scenarios: 100, modes: 3")
    print(
        f"ghxbench report --gate: median {statistics.median(times):.2f} s "
        f"runs {[round(t, 2) for t in times]} (target <= 2 s)"
    )
    print(
        f"gate evaluated={gate['evaluated']} passed={gate['passed']} "
        f"tokens CI={gate['efficiency'].get('tokens_active_reduction_ci95')}"
    )


if __name__ == "__main__":
    main()
