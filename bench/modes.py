"""What a declared mode costs beside the built-in one it copies, and each mode's tool surface.

1. **Per-item setup**, in one process: a fresh sandbox item of each mode, its environment (HOME,
   ``bin/``, launcher, token), its jail and a shell in it that has answered (the same steps as
   ``bench/jail.py``). Each built-in mode is measured beside a *twin* declared in the mode table
   with the very same client (``gh_twin``: kind cli, the pinned gh; ``mcp_twin``: kind mcp,
   the pinned github-mcp-server), so the only difference is the declaration. Medians over
   ``--items`` items, the modes interleaved.
2. **Oracle items end to end**: ``pytest --ghx-mode=agent_direct,gh_twin,mcp,mcp_twin`` on the
   read scenarios ``pr-view``, ``issue-view`` and ``repo-file-get`` with ``--reps``, in a fresh
   subprocess; the median item time per mode from the JUnit XML report.
3. **Tool surface**: the tokens each mode puts in front of the agent before any task (its tool
   definitions and instructions, counted as the oracle counts them), for the built-in modes, the
   twins, a narrowed GitHub server (``mcp_lean``), the reference server from npm (``mcp_ref``,
   when ``GHXBENCH_AGENT_CLIS`` holds it) and the example team CLI (``acme``).

    python bench/modes.py [--items 30] [--reps 5] [--only setup|items|surface]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

from jail import machine

from pytest_ghxbench.adapters.oracle.adapter import tool_surface_tokens
from pytest_ghxbench.isolation.probe import probe
from pytest_ghxbench.isolation.shell import JailShell
from pytest_ghxbench.modes import declared_modes
from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.backend import SandboxBackend
from pytest_ghxbench.sandbox.clients import GH, MCP_SERVER, pinned_program

ROOT = Path(__file__).resolve().parents[1]
ACME = ROOT / "docs" / "examples" / "team-cli" / "acme"
PAIRS = (("agent_direct", "gh_twin"), ("mcp", "mcp_twin"))


def _entries() -> dict[str, dict[str, object]]:
    gh, server = pinned_program(GH), pinned_program(MCP_SERVER)
    assert gh and server, "the pinned gh and github-mcp-server are not installed"
    entries: dict[str, dict[str, object]] = {
        "gh_twin": {"kind": "cli", "program": gh},
        "mcp_twin": {"kind": "mcp", "command": [server, "stdio"]},
        "mcp_lean": {
            "kind": "mcp",
            "command": [server, "stdio", "--read-only", "--toolsets", "repos,issues,pull_requests"],
        },
        "acme": {
            "kind": "cli",
            "program": str(ACME),
            "env": {"ACME_TOKEN": "{token}", "ACME_API": "{api_url}", "ACME_REPO": "{repo}"},
        },
    }
    clis = os.environ.get("GHXBENCH_AGENT_CLIS")
    reference = Path(clis or "/nonexistent") / "node_modules" / ".bin" / "mcp-server-github"
    if reference.exists():
        entries["mcp_ref"] = {"kind": "mcp", "command": [str(reference)]}
    return entries


def _toml(entries: dict[str, dict[str, object]], names: tuple[str, ...]) -> str:
    import json

    lines = []
    for name in names:
        lines.append(f"[tool.ghxbench.modes.{name}]")
        for key, value in entries[name].items():
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def setup(items: int) -> None:
    isolation = probe()
    if not isolation.jailed:
        sys.exit(f"no jail on this machine: {isolation.detail}")
    table = declared_modes(_entries(), "bench", resolve=["all"])
    backend = SandboxBackend(modes=table)
    backend.isolate(isolation, HostPolicy())
    base = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "")}
    modes = [mode for pair in PAIRS for mode in pair]
    samples: dict[str, list[float]] = {mode: [] for mode in modes}
    with tempfile.TemporaryDirectory(prefix="ghxbench-modes-") as scratch:
        for index in range(items + 1):  # the first round warms up
            order = modes if index % 2 else list(reversed(modes))
            for mode in order:
                started = time.perf_counter()
                item = backend.open_session(
                    f"b-{index}[{mode}]", Path(scratch) / f"{mode}{index}", mode
                )
                env = {**base, **item.env}
                cwd = item.working_directory()
                jail = item.jail()
                assert jail is not None
                JailShell(jail, env, cwd).close()
                elapsed = time.perf_counter() - started
                item.close()
                if index:
                    samples[mode].append(elapsed)
    backend.close()
    print(f"per-item setup (world, environment, jail, shell up), median of {items} items:")
    for built_in, twin in PAIRS:
        a, b = statistics.median(samples[built_in]), statistics.median(samples[twin])
        low, _, high = (q * 1000 for q in statistics.quantiles(samples[built_in], n=4))
        print(
            f"  {built_in:12s} {a * 1000:6.1f} ms (IQR {low:.1f}-{high:.1f})"
            f"   {twin:9s} {b * 1000:6.1f} ms   difference {(b - a) * 1000:+5.1f} ms"
        )


def _item_times(xml: Path) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for case in ElementTree.parse(xml).getroot().iter("testcase"):
        name = case.get("name", "")
        if "[" not in name:  # the gate's own entry
            continue
        mode = name[name.index("[") + 1 : name.rindex("-r")]
        found.setdefault(mode, []).append(float(case.get("time", "0")))
    return found


def items(reps: int) -> None:
    entries = _entries()
    with tempfile.TemporaryDirectory(prefix="ghxbench-modes-items-") as tmp:
        project = Path(tmp)
        (project / "pyproject.toml").write_text(_toml(entries, ("gh_twin", "mcp_twin")))
        xml = project / "junit.xml"
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable, "-m", "pytest", "--ghx-mode=agent_direct,gh_twin,mcp,mcp_twin",
                f"--reps={reps}", "-k", "pr-view or issue-view or repo-file-get", "-q",
                "-p", "no:cacheprovider", f"--junitxml={xml}",
                "--gate-baseline=mcp", "--gate-candidate=mcp_twin",
            ],
            cwd=project, capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1):
            sys.exit(done.stdout[-3000:] + done.stderr[-3000:])
        times = _item_times(xml)
    print(f"oracle items end to end ({reps} reps of 3 scenarios, wall {wall:.1f} s), median item:")
    for built_in, twin in PAIRS:
        a, b = statistics.median(times[built_in]), statistics.median(times[twin])
        print(
            f"  {built_in:12s} {a * 1000:6.0f} ms   {twin:9s} {b * 1000:6.0f} ms"
            f"   difference {(b - a) * 1000:+5.0f} ms"
        )


def surface() -> None:
    table = declared_modes(_entries(), "bench", resolve=["all"])
    print("tool surface (tool definitions + instructions, tokens), per mode:")
    for name in table:
        spec = table[name]
        client = (
            spec.cli_name if spec.kind == "cli" else " ".join(Path(spec.command[0]).name.split())
        )
        print(f"  {name:12s} {spec.kind:3s}  {tool_surface_tokens(spec):7,d}  ({client})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--only", choices=("setup", "items", "surface"))
    args = parser.parse_args()
    print(f"python bench/modes.py on {machine()}")
    if args.only in (None, "surface"):
        surface()
    if args.only in (None, "setup"):
        setup(args.items)
    if args.only in (None, "items"):
        items(args.reps)


if __name__ == "__main__":
    main()
