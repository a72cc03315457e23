"""Wall time and peak memory of ``ghxbench merge``, and what ``--ghx-resume`` costs beyond the
items it reruns.

merge: writes SHARDS shard run directories of one plan (ROWS_PER_SHARD rows each, 100
scenarios x 2 modes in the plan, a transcript record per item, run.json with the whole plan,
a sealed summary.json), then times ``python -m pytest_ghxbench merge SHARD... --out DIR``
end to end in a subprocess (start, reading and checking every run.json, copying rows and
transcripts, the summary and gate with both bootstrap intervals, summary.json/md) with
``--no-report``, and, with ``--with-report``, once more rendering report.html too; it reads
the child's peak RSS.

resume: in a project of ITEMS zero-work items (the overhead bench's), a finished run loses the
rows of its last two scenarios and its summary (a run stopped there); then, alternately,
``pytest --ghx-resume=RUN`` (which runs those items and recomputes the run) and a fresh
``pytest`` of the same items' files. The difference of the medians is the resume's overhead.

    python bench/merge_speed.py [--shards 20] [--rows-per-shard 5000] [--rounds 3]
                                [--items 2000] [--only merge|resume] [--with-report]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from overhead import SCENARIOS, make_projects
from report_speed import MODES

from pytest_ghxbench.runs.integrity import RowsSeal
from pytest_ghxbench.runs.plan import make_plan
from pytest_ghxbench.shard_spec import ShardSpec

PLAN_SCENARIOS = 100
PLAN_MODES = ("agent_direct", "ghx")


def _row(item: str, scenario: int, mode: str, rep: int, run_id: str) -> str:
    token_factor, latency_factor = MODES[mode]
    tokens = int((8_000 + 300 * scenario) * token_factor) + rep % 97
    return json.dumps(
        {
            "schema_version": 1,
            "timestamp": "2026-11-26T00:00:00.000Z",
            "run_id": run_id,
            "mode": mode,
            "scenario_id": f"scenario-{scenario:03d}",
            "scenario_set": None,
            "iteration": rep,
            "session_id": None,
            "success": True,
            "output_valid": True,
            "latency_ms_wall": (20_000 + 50 * scenario) * latency_factor + rep % 89,
            "startup_ms": 0.0,
            "sdk_latency_ms": None,
            "tokens": {"input": tokens, "output": 600, "reasoning": 0, "cache_read": 0,
                       "cache_write": 0, "total": tokens + 600},
            "cost": round(tokens * 2e-6, 6),
            "tool_calls": 3 if mode == "ghx" else 6,
            "api_calls": 4,
            "internal_retry_count": 0,
            "external_retry_count": 0,
            "model": {"provider_id": "bench", "model_id": "synthetic", "mode": mode},
            "git": {"repo": None, "commit": None},
            "error": None,
            "item_id": item,
            "adapter": "bench",
            "backend": "sandbox",
            "transcript": {"file": "transcripts/main.jsonl", "attempt": 1},
        },
        separators=(",", ":"),
    )  # fmt: skip


def make_shards(root: Path, shards: int, rows_per_shard: int) -> list[Path]:
    reps = shards * rows_per_shard // (PLAN_SCENARIOS * len(PLAN_MODES))
    where: dict[str, tuple[int, str, int]] = {}
    for scenario in range(PLAN_SCENARIOS):
        for mode in PLAN_MODES:
            for rep in range(1, reps + 1):
                item = f"scenarios/s{scenario:03d}.yaml::scenario-{scenario:03d}[{mode}-r{rep}]"
                where[item] = (scenario, mode, rep)
    plan_items = list(where)
    runs = []
    for index in range(1, shards + 1):
        plan = make_plan(plan_items, ShardSpec(index, shards), lambda item: 1.0, "timeouts")
        run_id = f"run_20261126T000000Z_{index:06x}"
        run = root / run_id
        (run / "transcripts").mkdir(parents=True)
        spec = {"run_id": run_id, "started_at": "2026-11-26T00:00:00Z", "adapter": "bench",
                "backend": "sandbox", "modes": list(PLAN_MODES), "reps": reps,
                "gate_profile": "verify_pr", "baseline": "agent_direct", "candidate": "ghx",
                **plan.spec_fields()}  # fmt: skip
        (run / "run.json").write_text(json.dumps(spec))
        with (
            (run / "rows.jsonl").open("w") as rows,
            (run / "transcripts/main.jsonl").open("w") as transcripts,
        ):
            for item in plan.share:
                rows.write(_row(item, *where[item], run_id) + "\n")
                record = {"item_id": item, "attempt": 1, "prompt": "p" * 200, "final_text": "{}"}
                transcripts.write(json.dumps(record) + "\n")
        seal = RowsSeal.of_file(run / "rows.jsonl").block()
        summary = {"generated_at": "2026-11-26T00:00:00Z", "run": {"integrity": seal},
                   "gate": {"profile": "verify_pr", "baseline": "agent_direct",
                            "candidate": "ghx", "evaluated": False}}  # fmt: skip
        (run / "summary.json").write_text(json.dumps(summary))
        runs.append(run)
    return runs


def timed(command: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit status of ``command``."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, child.returncode


def bench_merge(args: argparse.Namespace, root: Path) -> None:
    shards = make_shards(root / "shards", args.shards, args.rows_per_shard)
    rows = sum(1 for run in shards for _ in (run / "rows.jsonl").open())
    print(f"merge: {len(shards)} shards, {rows:,} rows")
    merge = [sys.executable, "-m", "pytest_ghxbench", "merge", *map(str, shards)]
    for label, extra, rounds in (
        ("merge --no-report", ["--no-report"], args.rounds),
        ("merge with report.html", [], 1 if args.with_report else 0),
    ):
        walls, peaks = [], []
        for round_ in range(rounds):
            out = root / f"merged-{round_}"
            wall, peak, status = timed([*merge, "--out", str(out), *extra], root)
            assert status == 0, f"merge exited {status}"
            walls.append(wall)
            peaks.append(peak)
            page = out / "report.html"
            size = f" (report.html {page.stat().st_size / 1e6:.1f} MB)" if page.exists() else ""
            print(f"  {label}, round {round_ + 1}: {wall:.2f} s, peak RSS {peak:.0f} MB{size}")
            shutil.rmtree(out)
        if walls:
            print(f"  {label}: median {statistics.median(walls):.2f} s, peak {max(peaks):.0f} MB")


def bench_resume(args: argparse.Namespace, root: Path) -> None:
    project, _, _ = make_projects(root / "resume", args.items)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ghx-mode=ghx"]
    subprocess.run(base, cwd=project, env=env, check=False, capture_output=True)
    (finished,) = sorted((project / ".ghxbench" / "runs").glob("run_*"))
    lines = (finished / "rows.jsonl").read_text().splitlines(keepends=True)
    last = {f"bench-item-{i:03d}" for i in (SCENARIOS - 2, SCENARIOS - 1)}
    kept = [line for line in lines if json.loads(line)["scenario_id"] not in last]
    missing = len(lines) - len(kept)
    files = [f"scenarios/{name}.json" for name in sorted(last)]
    print(f"resume: {len(lines):,} items, {missing} without a row")
    resumes, fresh = [], []
    for _ in range(args.rounds):
        stopped = project / ".ghxbench" / "runs" / "stopped"
        shutil.rmtree(stopped, ignore_errors=True)
        shutil.copytree(finished, stopped)
        (stopped / "rows.jsonl").write_text("".join(kept))
        (stopped / "summary.json").unlink()
        start = time.perf_counter()
        done = subprocess.run([*base, f"--ghx-resume={stopped}"], cwd=project, env=env,
                              capture_output=True, text=True, check=False)  # fmt: skip
        resumes.append(time.perf_counter() - start)
        assert done.returncode in (0, 1), done.stdout[-2000:]
        assert sum(1 for _ in (stopped / "rows.jsonl").open()) == len(lines)
        start = time.perf_counter()
        subprocess.run([*base, *files], cwd=project, env=env, capture_output=True, check=False)
        fresh.append(time.perf_counter() - start)
    resume, alone = statistics.median(resumes), statistics.median(fresh)
    print(f"  resume {resume:.2f} s, the same {missing} items alone {alone:.2f} s: "
          f"overhead {resume - alone:.2f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shards", type=int, default=20)
    parser.add_argument("--rows-per-shard", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--only", choices=("merge", "resume"))
    parser.add_argument(
        "--with-report", action="store_true", help="also time one merge that renders report.html"
    )
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="ghxbench-merge-bench-") as tmp:
        if args.only in (None, "merge"):
            bench_merge(args, Path(tmp))
        if args.only in (None, "resume"):
            bench_resume(args, Path(tmp))


if __name__ == "__main__":
    main()
