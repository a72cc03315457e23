"""Time of the sandbox's GraphQL API: building the executable schema, and gh's queries.

Each round runs in a fresh subprocess, so every number includes nothing cached by an earlier
one:

- schema build: importing the resolvers and building ``github_schema()`` (once per process: the
  pytest session, or each xdist worker);
- first run of each gh query: parsing and validating one of the queries the real gh 2.102.0
  sends (``tests/sandbox/api/data/gh_queries``), then executing it on a fresh world (every
  item's first ``gh pr view`` pays this once per process);
- repeated run: the same query again, its validated document cached, as every later item's.

Prints the medians over the rounds.

    python bench/graphql_speed.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "tests/sandbox/api/data/gh_queries"

ROUND = r"""
import json, sys, time
from pathlib import Path
queries = Path(sys.argv[1])
started = time.perf_counter()
from pytest_ghxbench.sandbox.api.graphql.binding import github_schema
from pytest_ghxbench.sandbox.api.graphql.executor import run_query
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world
imported = time.perf_counter()
github_schema()
built = time.perf_counter()
world = fresh_world(DEFAULT_SEED)
first, repeated = [], []
for path in sorted(queries.glob("*.graphql")):
    query = path.read_text()
    variables = json.loads(path.with_suffix(".json").read_text())["variables"]
    for times in (first, repeated):
        ctx = Context(fresh_world(DEFAULT_SEED))
        began = time.perf_counter()
        run_query(ctx, query, variables)
        times.append(time.perf_counter() - began)
pr_view = (queries / "pr_view__PullRequestByNumber.graphql").read_text()
variables = {"owner": "acme-labs", "repo": "tinykv", "pr_number": 7}
began = time.perf_counter()
for _ in range(50):
    run_query(Context(world), pr_view, variables)
pr_view_ms = (time.perf_counter() - began) / 50 * 1000
print(json.dumps({
    "import_ms": (imported - started) * 1000,
    "build_ms": (built - imported) * 1000,
    "first_ms": sum(first) / len(first) * 1000,
    "first_total_ms": sum(first) * 1000,
    "repeated_ms": sum(repeated) / len(repeated) * 1000,
    "pr_view_ms": pr_view_ms,
    "queries": len(first),
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    results = []
    for _ in range(args.rounds):
        done = subprocess.run(
            [sys.executable, "-c", ROUND, str(QUERIES)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        results.append(json.loads(done.stdout))
    print(f"{platform.python_implementation()} {platform.python_version()}, {args.rounds} rounds")
    print(f"{results[0]['queries']} captured gh queries")

    def median(key: str) -> float:
        return statistics.median(r[key] for r in results)

    print(f"import of the GraphQL modules:      {median('import_ms'):8.1f} ms")
    print(f"schema build (once per process):    {median('build_ms'):8.1f} ms")
    print(f"gh query, first run (validate+run): {median('first_ms'):8.2f} ms per query")
    count = results[0]["queries"]
    print(f"  all {count} queries' first runs:      {median('first_total_ms'):8.1f} ms")
    print(f"gh query, repeated (cached):        {median('repeated_ms'):8.2f} ms per query")
    print(f"gh pr view's query, repeated:       {median('pr_view_ms'):8.2f} ms")


if __name__ == "__main__":
    main()
