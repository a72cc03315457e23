"""Settings of the ``opencode`` adapter: its pyproject table, and what every server gets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_ghxbench.api import AdapterUnavailable, ModeSpec

__all__ = [
    "PASSTHROUGH_VARS",
    "QUIET_ENV",
    "OpencodeOptions",
    "mode_config",
    "options_from_config",
]

QUIET_ENV = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    "OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER": "1",
}
"""OpenCode settings the server gets unless the user's environment sets them: no update
checks, no sharing, no LSP downloads, no ``~/.claude`` prompts or skills, no file watcher."""
PASSTHROUGH_VARS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def mode_config(spec: ModeSpec) -> dict[str, Any]:
    """OpenCode config for an item of ``spec``'s mode: only the mode's tools are allowed (a
    denied tool is not offered to the model at all; a kind mcp mode's server is registered
    under the mode's name), and no snapshots of the work directory."""
    if spec.kind == "mcp":
        allowed = {f"{spec.name}_*": "allow"}
    else:
        allowed = {"bash": "allow", "external_directory": "allow"}
    return {"permission": {"*": "deny", **allowed}, "snapshot": False}


@dataclass(frozen=True)
class OpencodeOptions:
    binary: str = "opencode"
    model: str | None = None
    startup_timeout_s: float = 30.0
    agent: str | None = None
    passthrough: tuple[str, ...] = ()

    @classmethod
    def from_table(cls, table: Mapping[str, Any], model: str | None) -> OpencodeOptions:
        """Options from ``[tool.ghxbench.adapters.opencode]``; ``model`` (``--ghx-model``) wins."""
        known = {"binary", "model", "startup_timeout_s", "agent", "passthrough"}
        unknown = sorted(set(table) - known)
        if unknown:
            raise AdapterUnavailable(
                f"[tool.ghxbench.adapters.opencode]: unknown key(s) {', '.join(unknown)}; "
                f"expected {', '.join(sorted(known))}"
            )
        timeout = table.get("startup_timeout_s", 30.0)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise AdapterUnavailable(
                "[tool.ghxbench.adapters.opencode] startup_timeout_s: expected a positive "
                f"number of seconds, got {timeout!r}"
            )
        chosen = model or table.get("model")
        if chosen is not None and (not isinstance(chosen, str) or "/" not in chosen):
            raise AdapterUnavailable(
                f"opencode model {chosen!r}: expected PROVIDER/MODEL, e.g. openai/gpt-4.1-mini"
            )
        passthrough = table.get("passthrough", [])
        if not isinstance(passthrough, list) or not all(isinstance(n, str) for n in passthrough):
            raise AdapterUnavailable(
                "[tool.ghxbench.adapters.opencode] passthrough: expected a list of variable "
                f"names, got {passthrough!r}"
            )
        return cls(
            binary=str(table.get("binary", "opencode")),
            model=chosen,
            startup_timeout_s=float(timeout),
            agent=None if table.get("agent") is None else str(table["agent"]),
            passthrough=tuple(passthrough),
        )


def options_from_config(config: pytest.Config | None) -> OpencodeOptions:
    if config is None:
        return OpencodeOptions()
    from pytest_ghxbench.options import resolve_settings

    settings = resolve_settings(config)
    table = settings.tables.get("adapters", {}).get("opencode") or {}
    if not isinstance(table, Mapping):
        raise AdapterUnavailable("[tool.ghxbench.adapters.opencode] must be a table")
    return OpencodeOptions.from_table(table, settings.model)
