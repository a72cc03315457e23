"""Operating characteristic of the gate profiles: pass probability against the true reduction.

Simulated runs of 20 scenarios x 4 repetitions per mode at the published noise (per-run CV of
each metric spread over 0.10-0.61 across scenarios, median about 0.35; every row stable; see
``published_noise_model``) go through the gate (``evaluate_gate_table``) for each profile; the
candidate's true reduction of active tokens, latency, tool calls and cost is the row's effect.
Prints a Markdown table, the command and the machine.

    python bench/operating_characteristic.py [--trials 200] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

from pytest_ghxbench.metrics.noise import METRICS, published_noise_model
from pytest_ghxbench.metrics.power import pass_probability
from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES

EFFECTS = (0, 5, 10, 15, 20, 30, 50)
PROFILES = ("verify_pr", "verify_pr_stat", "verify_release", "verify_release_stat")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200, help="simulated runs per cell")
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="bootstrap resamples per gate (the gate's)"
    )
    parser.add_argument("--scenarios", type=int, default=20)
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    model = published_noise_model(args.scenarios, args.reps, seed=args.seed)
    started = time.perf_counter()
    print(f"| true reduction | {' | '.join(PROFILES)} |")
    print(f"| --- |{' --- |' * len(PROFILES)}")
    for effect in EFFECTS:
        cells = []
        for name in PROFILES:
            share = pass_probability(
                model,
                BUILTIN_PROFILES[name],
                effects=dict.fromkeys(METRICS, float(effect)),
                trials=args.trials,
                seed=args.seed,
                resamples=args.resamples,
            )
            cells.append(f"{share:.0%}")
        print(f"| {effect}% | {' | '.join(cells)} |", flush=True)
    elapsed = time.perf_counter() - started
    worst = math.sqrt(0.25 / args.trials)
    print()
    print(
        f"{args.scenarios} scenarios x {args.reps} reps per mode, {args.trials} simulated runs "
        f"per cell (Monte-Carlo standard error at most {worst:.1%}, about "
        f"{math.sqrt(0.05 * 0.95 / args.trials):.1%} near 5%), {args.resamples} bootstrap "
        f"resamples per gate, seed {args.seed}; {elapsed:.0f} s"
    )
    print(f"command: python {' '.join(sys.argv)}")
    print(
        f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cpus, Python {platform.python_version()}"
    )


if __name__ == "__main__":
    main()
