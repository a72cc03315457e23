"""OpenCode in an item's jail: a server of the item's own, and the model hosts it may reach.

Jailed, no server outlives its item: each item starts ``opencode serve`` in its jail, with the
item's environment (its tools need no shims), its mode's permissions and, in mcp, its MCP
server. The harness reaches the server through the jail's Unix socket, bridged to a port on
this machine's loopback. Its start is the item's startup.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.jailed import jailed_argv, runtime_root
from pytest_ghxbench.adapters.opencode.options import OpencodeOptions, mode_config
from pytest_ghxbench.adapters.opencode.server import OpencodeServer
from pytest_ghxbench.adapters.process import mcp_server_command, working_directory
from pytest_ghxbench.api import RunRequest
from pytest_ghxbench.isolation.jail import ItemJail

__all__ = ["KNOWN_PROVIDERS", "jailed_server", "model_endpoints"]

KNOWN_PROVIDERS = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com",
    "openrouter": "https://openrouter.ai",
    "google": "https://generativelanguage.googleapis.com",
}
"""Where the built-in providers' models are, for a provider configured without a baseURL."""


def _configs(environ: Mapping[str, str]) -> list[Any]:
    texts = [environ.get("OPENCODE_CONFIG_CONTENT") or ""]
    path = environ.get("OPENCODE_CONFIG")
    if path and Path(path).is_file():
        texts.append(Path(path).read_text(encoding="utf-8", errors="replace"))
    found = []
    for text in filter(str.strip, texts):
        try:
            found.append(json.loads(text))
        except json.JSONDecodeError:
            continue
    return found


def model_endpoints(environ: Mapping[str, str], model: str | None) -> list[str]:
    """The configured providers' ``baseURL`` values, and the built-in provider of ``model``."""
    urls: list[str] = []
    for config in _configs(environ):
        providers = config.get("provider") if isinstance(config, Mapping) else None
        for table in (providers or {}).values() if isinstance(providers, Mapping) else ():
            options = table.get("options") if isinstance(table, Mapping) else None
            base = options.get("baseURL") if isinstance(options, Mapping) else None
            if isinstance(base, str) and base:
                urls.append(base)
    provider = (model or "").partition("/")[0]
    if provider in KNOWN_PROVIDERS:
        urls.append(KNOWN_PROVIDERS[provider])
    return urls or list(KNOWN_PROVIDERS.values())


def jailed_server(
    request: RunRequest,
    jail: ItemJail,
    options: OpencodeOptions,
    server_env: Callable[[str], dict[str, str]],
) -> OpencodeServer:
    """The item's own server, started in its jail (``server_env(PATH)``: the environment the
    adapter gives every server, to which the item's is added)."""
    spec = request.mode_spec
    config = mode_config(spec)
    if spec.kind == "mcp":
        command, args, extra = mcp_server_command(request.env)
        mcp: dict[str, Any] = {"type": "local", "command": [command, *args], "enabled": True}
        if extra:
            mcp["environment"] = dict(extra)
        config["mcp"] = {spec.name: mcp}
    env = {**server_env(request.env.get("PATH") or os.defpath), **request.env}
    binary = shutil.which(options.binary, path=os.environ.get("PATH")) or options.binary
    runtime = [runtime_root(binary)]
    runtime += [Path(path) for path in [os.environ.get("OPENCODE_CONFIG")] if path]
    cwd = working_directory(request)

    def wrap(argv: list[str], port: int) -> list[str]:
        return jailed_argv(request, argv, cwd=cwd, runtime=runtime, serve_port=port)

    return OpencodeServer(
        binary,
        workdir=cwd,
        env=env,
        config=config,
        startup_timeout_s=options.startup_timeout_s,
        mcp_servers=(spec.name,) if spec.kind == "mcp" else (),
        wrap=wrap,
        serve_socket=jail.serve_socket,
        log_dir=jail.run_dir,
    )
