"""``ghxbench fixtures seed|status|cleanup --backend github``: fixtures in a real repository.

Settings come from ``[tool.ghxbench.backends.github]`` of ``./pyproject.toml`` (see
:mod:`pytest_ghxbench.github.backend`), overridden by ``--repo`` / ``--api-url``; the token from
``GH_TOKEN`` / ``GITHUB_TOKEN`` (or the configured ``token_env``). Exit status: 0 done, 1 a
problem (GitHub refused, a resource is missing, no manifest), 2 cannot start (no token, no
repository, bad configuration).
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from pytest_ghxbench.cli.fixtures import EXIT_OK, EXIT_PROBLEM, EXIT_UNAVAILABLE
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.github.backend import BackendConfigError, GitHubSettings
from pytest_ghxbench.option_sources import read_tool_table


def _settings(args: argparse.Namespace, root: Path) -> GitHubSettings:
    table: Any = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            table = read_tool_table(pyproject).get("backends", {}).get("github") or {}
        except ValueError as exc:
            raise BackendConfigError(str(exc)) from exc
    settings = GitHubSettings.from_config(table, os.environ, root)
    overrides = {"repo": args.repo, "api_url": args.api_url and args.api_url.rstrip("/")}
    return replace(settings, **{k: v for k, v in overrides.items() if v})


def run_github_fixtures(args: argparse.Namespace, *, out: TextIO, err: TextIO) -> int:
    from pytest_ghxbench.github import fixtures
    from pytest_ghxbench.scenario.manifest import ManifestError, load_manifest

    action = f"ghxbench fixtures {args.action} --backend github"
    try:
        settings = _settings(args, Path.cwd())
    except BackendConfigError as exc:
        err.write(f"{action}: {exc}\n")
        return EXIT_UNAVAILABLE
    token = settings.token(os.environ)
    if token is None:
        err.write(f"{action}: no GitHub token: set {' or '.join(settings.token_env)}\n")
        return EXIT_UNAVAILABLE
    client = GitHubClient(token, settings.api_url)

    def say(message: str) -> None:
        out.write(f"  {message}\n")

    try:
        if args.action == "seed":
            if not settings.repo:
                err.write(f"{action}: name the fixture repository with --repo OWNER/NAME\n")
                return EXIT_UNAVAILABLE
            out.write(f"seeding fixtures in {settings.repo} ({settings.api_url}):\n")
            manifest = fixtures.seed(client, settings.repo, progress=say)
            target = Path(args.out) if args.out else settings.manifest_path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
            out.write(f"wrote the fixture manifest to {target}\n")
            return EXIT_OK
        path = Path(args.fixture_manifest) if args.fixture_manifest else settings.manifest_path
        try:
            manifest = dict(load_manifest(path))
        except ManifestError as exc:
            err.write(f"{action}: {exc} (run `ghxbench fixtures seed --backend github` first)\n")
            return EXIT_PROBLEM
        if args.action == "cleanup":
            changed = fixtures.cleanup(client, manifest, progress=say)
            out.write(f"cleaned up {changed} object(s) named by {path}\n")
            return EXIT_OK
        checks = fixtures.status(client, manifest)
        out.write(f"fixture manifest: {path}\n")
        for check in checks:
            out.write(f"  {check.resource}: {check.detail}\n")
        problems = sum(not check.ok for check in checks)
        out.write(f"{problems} problem(s)\n")
        return EXIT_PROBLEM if problems else EXIT_OK
    except (GitHubError, ValueError) as exc:
        err.write(f"{action}: {exc}\n")
        return EXIT_PROBLEM
