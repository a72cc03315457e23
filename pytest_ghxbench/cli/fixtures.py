"""``ghxbench fixtures seed|status|cleanup``: the fixture lifecycle of a backend.

The sandbox seeds itself for every item, so its lifecycle is about the manifest: ``seed``
writes the manifest of the seeded world (what ``--fixture-manifest`` would name), ``status``
lists the resources scenarios can bind and checks a manifest against the seeded world, and
``cleanup`` has nothing to remove. The ``github`` backend's lifecycle creates and removes real
objects (see :mod:`pytest_ghxbench.cli.github_fixtures`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_UNAVAILABLE = 2
DEFAULT_OUT = Path(".ghxbench") / "fixture-manifest.json"


def _leaves(node: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(node, Mapping):
        found: list[tuple[str, Any]] = []
        for key, value in node.items():
            found += _leaves(value, f"{prefix}.{key}" if prefix else str(key))
        return found
    return [(prefix, node)]


def run_fixtures(
    args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    if args.backend == "github":
        from pytest_ghxbench.cli.github_fixtures import run_github_fixtures

        return run_github_fixtures(args, out=out, err=err)
    if args.backend != "sandbox":
        err.write(
            f"ghxbench fixtures {args.action}: unknown backend {args.backend!r}; "
            "valid: sandbox, github\n"
        )
        return EXIT_UNAVAILABLE
    from pytest_ghxbench.sandbox.backend import SandboxBackend

    seeded = SandboxBackend().manifest()
    if args.action == "seed":
        target = Path(args.out or DEFAULT_OUT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(seeded, indent=2) + "\n", encoding="utf-8")
        count = len(seeded.get("resources", {}))
        out.write(f"wrote the sandbox fixture manifest ({count} resources) to {target}\n")
        return EXIT_OK
    if args.action == "cleanup":
        out.write(
            "the sandbox copies its world for every item and keeps nothing: nothing to clean up\n"
        )
        return EXIT_OK
    manifest = seeded
    source = "the sandbox seed"
    if args.fixture_manifest is not None:
        from pytest_ghxbench.scenario.manifest import ManifestError, load_manifest

        try:
            manifest = load_manifest(args.fixture_manifest)
        except ManifestError as exc:
            err.write(f"ghxbench fixtures status: {exc}\n")
            return EXIT_PROBLEM
        source = str(args.fixture_manifest)
    expected = dict(_leaves(seeded))
    problems = 0
    out.write(f"fixture manifest: {source}\n")
    for path, value in _leaves(manifest):
        mark = "ok"
        if path not in expected:
            mark, problems = "not in the sandbox seed", problems + 1
        elif expected[path] != value:
            mark, problems = f"differs from the seed ({expected[path]!r})", problems + 1
        out.write(f"  {path} = {value!r}  [{mark}]\n")
    out.write(f"{problems} problem(s)\n")
    return EXIT_PROBLEM if problems else EXIT_OK
