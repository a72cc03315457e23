"""A declared mode's client on real GitHub: its ``env`` templates filled with the configured
token, API root, host and repository, a kind cli mode's program on the item's ``PATH`` and a
kind mcp mode's server behind a launcher that holds the token (docs/modes.md)."""

from __future__ import annotations

import os
import shlex
import urllib.parse
from pathlib import Path

from pytest_ghxbench.api import ModeSpec
from pytest_ghxbench.backends.launcher import MCP_COMMAND_ENV, write_launcher
from pytest_ghxbench.modes import render_env

__all__ = ["declared_environment"]


def declared_environment(
    spec: ModeSpec, *, token: str, api_url: str, repo: str | None, workdir: Path
) -> dict[str, str]:
    """The variables an item of the declared mode ``spec`` gets on real GitHub."""
    netloc = urllib.parse.urlsplit(api_url).netloc
    host = "github.com" if netloc in ("api.github.com", "") else netloc
    values = {
        "token": token,
        "api_url": api_url,
        "graphql_url": f"{api_url}/graphql",
        "host": host,
        "repo": repo or "",
        "workdir": str(workdir),
    }
    variables = render_env(spec.env, values)
    if spec.kind == "mcp" and variables.get("GITHUB_HOST") == f"http://{host}":
        # the conventional http://{host} is the sandbox's plain-HTTP layout; real GitHub is
        # HTTPS, and on github.com GitHub's MCP server needs no host at all
        if host == "github.com":
            del variables["GITHUB_HOST"]
        else:
            variables["GITHUB_HOST"] = f"https://{host}"
    bin_dir = workdir / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    if spec.kind == "mcp":
        launcher = write_launcher(
            bin_dir / f"ghxbench-mcp-{spec.name}", variables, spec.command[:1], pass_arguments=True
        )
        return {MCP_COMMAND_ENV: shlex.join([str(launcher), *spec.command[1:]])}
    link = bin_dir / spec.cli_name
    link.unlink(missing_ok=True)
    link.symlink_to(spec.program or "")
    path = os.environ.get("PATH", os.defpath)
    return {**variables, "PATH": f"{bin_dir}{os.pathsep}{path}"}
