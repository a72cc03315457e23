"""What one item's Gemini CLI runs with: a private settings directory and its environment.

Facts used (Gemini CLI 0.61.0, checked against the real CLI):

- ``GEMINI_CLI_HOME`` replaces the home directory Gemini CLI reads and writes: its user
  settings are ``$GEMINI_CLI_HOME/.gemini/settings.json``, its chat recordings
  ``$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-*.jsonl``. The machine's own
  ``~/.gemini`` is never read.
- System settings (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``) would override every other scope, but
  Gemini CLI skips such a file unless it and every directory above it are owned by root and
  not writable by group or others (never true under ``/tmp``), so the item's settings are user
  settings. Workspace settings (``<working directory>/.gemini/``) would override them: the
  adapter refuses a working directory that has a ``.gemini`` directory (see
  :func:`workspace_override`).
- ``GOOGLE_GEMINI_BASE_URL`` points the Gemini API client at another server; alone it selects
  the ``gateway`` authentication, which headless mode refuses (``Invalid auth method
  selected.``), so ``security.auth.selectedType`` is ``gemini-api-key`` (the key is
  ``GEMINI_API_KEY``, sent as ``x-goog-api-key``).
- ``tools.core`` is an allowlist of built-in tools; with it, Gemini CLI's policy denies every
  other tool call (``Tool execution denied by policy.``), MCP tools included, and offers the
  model only what is allowed. ``run_shell_command(gh)`` allows the shell tool for commands
  whose program is ``gh`` (``ghx ...``, ``gh ... | cat``, ``gh ...; ls`` and ``$(...)`` are
  denied); ``mcp_*`` allows MCP tools and no built-in tool.
- An MCP server is registered under ``mcpServers.<name>``; its tools are offered as
  ``mcp_<name>_<tool>`` (a name that already starts with ``mcp_`` is not prefixed again:
  server ``mcp``, tool ``get_pull_request`` -> ``mcp_get_pull_request``).
- ``privacy.usageStatisticsEnabled`` false: no Clearcut logging and no
  ``x-gemini-api-privileged-user-id`` header; ``telemetry.enabled`` false;
  ``general.enableAutoUpdate`` and ``enableAutoUpdateNotification`` false: no update check;
  ``ide.enabled`` false. With these and an explicit model, the model's
  ``streamGenerateContent`` requests are the only connections the CLI makes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_ghxbench.api import ModeSpec

__all__ = [
    "DEFAULT_ENDPOINT",
    "HOME_DIR_NAME",
    "RUNTIME_PREFIXES",
    "header_values",
    "item_settings",
    "runtime_environment",
    "shell_rule",
    "workspace_override",
    "write_settings",
]

DEFAULT_ENDPOINT = "https://generativelanguage.googleapis.com"
HOME_DIR_NAME = "gemini-cli-home"
"""The item's private ``GEMINI_CLI_HOME``, in the item's own directory."""
RUNTIME_PREFIXES = ("GEMINI_", "GOOGLE_GEMINI_", "GOOGLE_GENAI_")
"""The runtime's own variables (``GEMINI_API_KEY``, ``GOOGLE_GEMINI_BASE_URL``,
``GEMINI_CLI_CUSTOM_HEADERS``, ...), passed through; their secret values are redacted."""
DROPPED = ("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
"""Settings files of the machine's user that would apply on top of (or under) the item's."""
FORCED = {"GEMINI_TELEMETRY_ENABLED": "false"}
"""Environment variables win over settings for telemetry: it stays off."""
_PROGRAM = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


def shell_rule(program: str) -> str:
    """The ``tools.core`` entry allowing the shell tool for ``program`` alone; ``ValueError``
    for a name Gemini CLI's rule syntax cannot hold."""
    if not _PROGRAM.match(program):
        raise ValueError(f"program name {program!r} cannot be a Gemini CLI shell rule")
    return f"run_shell_command({program})"


def item_settings(
    spec: ModeSpec,
    server: tuple[str, Sequence[str], Mapping[str, str]] | None = None,
    max_attempts: int | None = None,
) -> dict[str, Any]:
    """The item's ``settings.json``: no telemetry, usage statistics, update check or IDE, and
    the mode's interface and nothing else. Kind ``cli``: the shell tool for
    ``spec.cli_name`` alone. Kind ``mcp``: ``server`` (command, args, env) registered under
    the mode's name, trusted, its tools and no built-in tool. ``max_attempts``: Gemini CLI's
    ``general.maxAttempts`` (attempts per model request; its own default, 10, when ``None``)."""
    tools: dict[str, Any] = {"shell": {"enableInteractiveShell": False}}
    settings: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
            "checkpointing": {"enabled": False},
        },
        "ide": {"enabled": False},
        "tools": tools,
    }
    if max_attempts is not None:
        settings["general"]["maxAttempts"] = max_attempts
    if spec.kind == "cli":
        tools["core"] = [shell_rule(spec.cli_name)]
        return settings
    if server is None:
        raise ValueError(f"mode {spec.name!r} is kind mcp but has no server command")
    command, args, env = server
    tools["core"] = ["mcp_*"]
    settings["mcpServers"] = {
        spec.name: {"command": command, "args": list(args), "env": dict(env), "trust": True}
    }
    settings["mcp"] = {"allowed": [spec.name]}
    return settings


def write_settings(home: Path, settings: Mapping[str, Any]) -> Path:
    """Write ``settings`` as ``home/.gemini/settings.json`` (the user scope of a Gemini CLI
    whose ``GEMINI_CLI_HOME`` is ``home``); returns the file."""
    target = home / ".gemini" / "settings.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    target.chmod(0o600)
    return target


def runtime_environment(env: Mapping[str, str], home: Path) -> dict[str, str]:
    """``env`` (already scrubbed) with the item's ``GEMINI_CLI_HOME`` and telemetry off."""
    out = {key: value for key, value in env.items() if key not in DROPPED}
    out.update(FORCED)
    out["GEMINI_CLI_HOME"] = str(home)
    return out


def workspace_override(cwd: Path) -> Path | None:
    """The working directory's ``.gemini`` directory, when it has one: its settings, policies
    or extensions would apply on top of the item's settings (workspace settings win over user
    settings), so the item cannot run there with its interface enforced."""
    found = cwd / ".gemini"
    return found if found.exists() else None


def header_values(value: str) -> list[str]:
    """The values of ``GEMINI_CLI_CUSTOM_HEADERS`` (``Name: value, Name2: value2``): secrets
    to redact whatever the header is called."""
    values = []
    for entry in re.split(r",(?=\s*[^,:]+:)", value):
        name, sep, rest = entry.partition(":")
        if sep and name.strip():
            values.append(rest.strip())
    return values
