"""Per-call cost of each mode's real client on the sandbox's API.

In one process and one run, alternating call by call, each in the environment an item gets:

- real gh, read: ``gh pr view 7 --json title,state,reviewDecision`` (GraphQL);
- real gh, write: ``gh issue comment 3 --body ...`` (GraphQL);
- real gh, REST: ``gh api repos/{owner}/{repo}/pulls/7 --jq .title``;
- ghx as a process: ``ghx run pr.view`` (what an agent's shell pays), and the same command
  in process (what the oracle pays with the built-in ghx);
- MCP: starting the real github-mcp-server through the item's launcher, listing its tools and
  calling ``get_pull_request`` once (an mcp item's fixed cost), and one more call on the
  running server.

Prints medians in milliseconds and the API server's own time per request.

    python bench/real_clients.py [--calls 15]
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
import time
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.process import mcp_server_command, scrubbed_env
from pytest_ghxbench.ghx.cli import run_ghx
from pytest_ghxbench.sandbox.backend import SandboxBackend


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def _timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _mcp_once(env: dict[str, str]) -> tuple[float, float]:
    """(start + list + first call, one more call) in seconds."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command, args, extra = mcp_server_command(env)
    params = StdioServerParameters(
        command=command, args=args, env={"PATH": env["PATH"], "HOME": env["HOME"], **extra}
    )
    arguments: dict[str, Any] = {"owner": "acme-labs", "repo": "tinykv", "pullNumber": 7}
    times: list[float] = []

    async def run() -> None:
        start = time.perf_counter()
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):  # noqa: SIM117
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    await client.list_tools()
                    await client.call_tool("get_pull_request", arguments)
                    times.append(time.perf_counter() - start)
                    again = time.perf_counter()
                    await client.call_tool("get_pull_request", arguments)
                    times.append(time.perf_counter() - again)

    anyio.run(run)
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=15)
    options = parser.parse_args()
    backend = SandboxBackend()
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        direct = backend.open_session("bench[agent_direct]", root / "direct", mode="agent_direct")
        direct_env = scrubbed_env(dict(direct.env))
        ghx = backend.open_session("bench[ghx]", root / "ghx", mode="ghx")
        ghx_env = scrubbed_env(dict(ghx.env))
        mcp = backend.open_session("bench[mcp]", root / "mcp", mode="mcp")
        mcp_env = scrubbed_env(dict(mcp.env))
        view = ["pr", "view", "7", "--json", "title,state,reviewDecision"]
        pr_input = json.dumps({"owner": "acme-labs", "name": "tinykv", "prNumber": 7})
        ghx_argv = ["run", "pr.view", "--input", pr_input]
        cases: dict[str, tuple[list[str], dict[str, str], Path]] = {
            "real gh: pr view --json (GraphQL)": (["gh", *view], direct_env, root / "direct"),
            "real gh: issue comment (GraphQL write)": (
                ["gh", "issue", "comment", "3", "--body", "bench"],
                direct_env,
                root / "direct",
            ),
            "real gh: api pulls/7 (REST)": (
                ["gh", "api", "repos/{owner}/{repo}/pulls/7", "--jq", ".title"],
                direct_env,
                root / "direct",
            ),
            "ghx process: run pr.view": (["ghx", *ghx_argv], ghx_env, root / "ghx"),
        }
        for command, env, cwd in cases.values():  # warm-up: page caches, bytecode
            _timed(command, env, cwd)
        for _ in range(options.calls):
            for name, (command, env, cwd) in cases.items():
                samples.setdefault(name, []).append(_timed(command, env, cwd))
        for _ in range(options.calls):
            start = time.perf_counter()
            run_ghx(ghx_argv, ghx.client, repo="acme-labs/tinykv")
            samples.setdefault("ghx in process: run pr.view", []).append(
                time.perf_counter() - start
            )
        for _ in range(max(3, options.calls // 3)):
            first, again = _mcp_once(mcp_env)
            samples.setdefault("MCP: start + tools/list + first call", []).append(first)
            samples.setdefault("MCP: one more call", []).append(again)
        served = len(direct.api_requests) + len(mcp.api_requests) + len(ghx.api_requests)
        for session in (direct, ghx, mcp):
            session.close()
    backend.close()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    print(f"{options.calls} calls each, alternating; {served} API requests served")
    for name, values in samples.items():
        print(f"  {name:42s} median {_ms(values):7.1f} ms  (n={len(values)})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
