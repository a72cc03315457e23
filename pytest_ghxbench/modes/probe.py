"""What a mode's client is: a CLI's version (its ``--version``), an MCP server's name, version
and tools (its answer to ``initialize`` and ``tools/list``), asked once per session.

A server is started the way an item starts it but with a token that reaches nothing and a
proxy that answers nothing: listing its tools needs no network.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.api import ModeSpec
from pytest_ghxbench.modes.table import render_env

__all__ = ["ClientInfo", "ProbeError", "cli_version", "probe_server", "version_word"]

PROBE_TIMEOUT_S = 60.0
_NOWHERE = "http://127.0.0.1:9"


class ProbeError(RuntimeError):
    """The client did not answer as its kind must (the message says how)."""


@dataclass(frozen=True)
class ClientInfo:
    """A mode's client as run.json records it."""

    kind: str
    client: str
    version: str
    tools: tuple[Mapping[str, Any], ...] | None = field(default=None, compare=False)
    """A probed MCP server's tools (``name``, ``description``, ``inputSchema``); ``None``:
    not asked (a CLI, the built-in mode's pinned server)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "client": self.client, "version": self.version}
        if self.tools is not None:
            out["tools"] = len(self.tools)
        return out


def version_word(text: str) -> str:
    """The first version-like word of ``text`` (``v1.2.3`` read as ``1.2.3``), or
    ``"unknown"``."""
    for line in text.splitlines():
        for word in line.replace(",", " ").split():
            if word[:1].isdigit() or (word[:1] == "v" and word[1:2].isdigit()):
                return word.lstrip("v")
    return "unknown"


def cli_version(command: Sequence[str]) -> str:
    """What ``command --version`` says its version is (``"unknown"`` when it says none)."""
    try:
        done = subprocess.run(
            [*command, "--version"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return version_word(done.stdout + done.stderr)


def probe_server(spec: ModeSpec, command: Sequence[str]) -> ClientInfo:
    """Start ``command`` (the stdio server of ``spec``) with a token that reaches nothing, and
    read its ``serverInfo`` and tools; :class:`ProbeError` when it does not answer."""
    import anyio

    with tempfile.TemporaryDirectory(prefix="ghxbench-probe-") as home:
        values = {
            "token": "ghs_probe_only",
            "api_url": _NOWHERE,
            "graphql_url": f"{_NOWHERE}/graphql",
            "host": "github.localhost",
            "repo": "probe/probe",
            "workdir": home,
        }
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": home,
            **render_env(spec.env, values),
            **{name: _NOWHERE for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy")},
        }
        log = Path(home) / "stderr.log"
        try:
            return anyio.run(_list, spec, list(command), env, log)
        except Exception as exc:  # any failure to answer is the same usage error
            detail = log.read_text(errors="replace").strip()[-600:] if log.exists() else ""
            reason = f"{type(exc).__name__}: {exc}".strip()
            raise ProbeError(f"{reason}{'; its stderr: ' + detail if detail else ''}") from None


async def _list(spec: ModeSpec, command: list[str], env: dict[str, str], log: Path) -> ClientInfo:
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    with log.open("w", encoding="utf-8") as errlog, anyio.fail_after(PROBE_TIMEOUT_S):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            started = await session.initialize()
            listed = await session.list_tools()
    info = started.server_info
    tools = tuple(
        {"name": t.name, "description": t.description or "", "inputSchema": t.input_schema}
        for t in listed.tools
    )
    return ClientInfo("mcp", info.name or Path(command[0]).name, info.version or "unknown", tools)
