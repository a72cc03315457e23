"""What a GitHub Copilot CLI item runs with: the CLI's unpacked package, shared by every item,
and the item's environment (the runtime's own ``COPILOT_*`` settings, but those that would
give it a GitHub login or approve every tool, and the settings every item gets)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from pytest_ghxbench.adapters.process import BASE_ENV_KEYS, scrubbed_env, secret_values

__all__ = [
    "ITEM_SETTINGS",
    "MODEL_VARS",
    "PROVIDER_URL",
    "WITHHELD",
    "item_environment",
    "package_cache",
    "prepare_runtime",
    "runtime_secrets",
]

RUNTIME_PREFIXES = ("COPILOT_",)
"""The runtime's own settings (``COPILOT_PROVIDER_*``, ``COPILOT_MODEL``, ...) reach it."""
WITHHELD = (
    "COPILOT_GITHUB_TOKEN",  # a GitHub login: BYOK needs none, and it is no mode's client
    "COPILOT_GH_HOST",
    "COPILOT_ALLOW_ALL",  # would approve every tool and trust the checkout's configuration
    "COPILOT_ASSISTED_APPROVAL",
    "COPILOT_HOME",  # each item has its own
)
"""``COPILOT_*`` variables of the harness the runtime never gets."""
ITEM_SETTINGS = {
    "COPILOT_OFFLINE": "true",
    "COPILOT_AUTO_UPDATE": "false",
    "COPILOT_DISABLE_LOGIN_SHELL_ENV": "1",
}
"""Set for every item, whatever the harness has."""
OUTPUT_THRESHOLD = ("COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES", "102400")
"""Copilot saves a tool's output above this size (default 20 KB) to a file and gives the model
a pointer to it; no mode's agent can read that file (no file tool, only its own client's
commands), so the default is raised to about 25,000 tokens (Claude Code's limit for an MCP
tool's output) unless the harness's environment sets it."""
PROVIDER_URL = "COPILOT_PROVIDER_BASE_URL"
MODEL_VARS = ("COPILOT_MODEL", "COPILOT_PROVIDER_MODEL_ID")
VERSION_TIMEOUT_S = 300.0  # the first start unpacks ~235 MB


def package_cache(environ: Mapping[str, str]) -> Path:
    """Where the CLI's package is unpacked once for every item (``COPILOT_PKG_CACHE_HOME``;
    by default ``$XDG_CACHE_HOME/ghxbench/copilot``). Copilot's single executable unpacks its
    JavaScript package (~235 MB) into a cache on first start; shared, items start faster and a
    jail sees it read-only."""
    explicit = environ.get("COPILOT_PKG_CACHE_HOME")
    if explicit:
        return Path(explicit)
    home = environ.get("HOME") or os.path.expanduser("~")
    base = environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return Path(base) / "ghxbench" / "copilot"


def prepare_runtime(binary: str, cache: Path) -> str | None:
    """Unpack the CLI's package into ``cache`` (``copilot --version`` does) and return the
    version it prints, or ``None`` when it fails."""
    cache.mkdir(parents=True, exist_ok=True)
    env = {key: os.environ[key] for key in BASE_ENV_KEYS if key in os.environ}
    env.update({"COPILOT_PKG_CACHE_HOME": str(cache), "COPILOT_AUTO_UPDATE": "false"})
    try:
        done = subprocess.run(
            [binary, "--version"],
            env=env,
            capture_output=True,
            timeout=VERSION_TIMEOUT_S,
            check=False,
            start_new_session=True,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.decode("utf-8", errors="replace").strip().splitlines()
    if done.returncode != 0 or not lines:
        return None
    # "GitHub Copilot CLI 1.0.102." (the first start also says how long unpacking took)
    return next((line for line in lines if line.startswith("GitHub Copilot")), lines[0])


def item_environment(extra: Mapping[str, str], home: Path, cache: Path) -> dict[str, str]:
    """An item's environment: the backend's variables (``extra``) over the scrubbed harness
    environment with its ``COPILOT_*`` variables (but those of :data:`WITHHELD`), then
    :data:`ITEM_SETTINGS`, the item's ``COPILOT_HOME`` and the shared package cache."""
    env = scrubbed_env(dict(extra), prefixes=RUNTIME_PREFIXES)
    for name in WITHHELD:
        if name not in extra:
            env.pop(name, None)
    env.update(ITEM_SETTINGS)
    env.setdefault(*OUTPUT_THRESHOLD)
    env["COPILOT_HOME"] = str(home)
    env["COPILOT_PKG_CACHE_HOME"] = str(cache)
    return env


def runtime_secrets(env: Mapping[str, str]) -> list[str]:
    """Credential-like values, and the values of ``COPILOT_PROVIDER_HEADERS`` (``Name: value``
    lines, e.g. a gateway key)."""
    found = list(secret_values(env))
    headers = env.get("COPILOT_PROVIDER_HEADERS", "").replace("\\n", "\n")
    found += [line.partition(":")[2].strip() for line in headers.splitlines()]
    return sorted({s for s in found if len(s) >= 6}, key=len, reverse=True)
