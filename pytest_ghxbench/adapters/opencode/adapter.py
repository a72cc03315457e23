"""The ``opencode`` adapter: one ``opencode serve`` per session, one OpenCode session per item.

Configuration (``[tool.ghxbench.adapters.opencode]``): ``binary`` (default ``opencode``),
``model`` (``PROVIDER/MODEL``; ``--ghx-model`` wins), ``startup_timeout_s`` (default 30),
``agent`` (an OpenCode agent name, optional).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.opencode.client import OpencodeError, OpencodeTimeout
from pytest_ghxbench.adapters.opencode.messages import MessageFormatError, summarize
from pytest_ghxbench.adapters.opencode.server import (
    OpencodeServer,
    ToolEnvironment,
    remove_directory,
    session_directory,
)
from pytest_ghxbench.api import AdapterUnavailable, RunRequest, RunResult

__all__ = ["OpencodeAdapter", "OpencodeOptions"]

_CLEANUP_TIMEOUT_S = 5.0
_COLLECT_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class OpencodeOptions:
    binary: str = "opencode"
    model: str | None = None
    startup_timeout_s: float = 30.0
    agent: str | None = None

    @classmethod
    def from_table(cls, table: Mapping[str, Any], model: str | None) -> OpencodeOptions:
        """Options from ``[tool.ghxbench.adapters.opencode]``; ``model`` (``--ghx-model``) wins."""
        known = {"binary", "model", "startup_timeout_s", "agent"}
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
        return cls(
            binary=str(table.get("binary", "opencode")),
            model=chosen,
            startup_timeout_s=float(timeout),
            agent=None if table.get("agent") is None else str(table["agent"]),
        )


def _options_from_config(config: pytest.Config | None) -> OpencodeOptions:
    if config is None:
        return OpencodeOptions()
    from pytest_ghxbench.options import resolve_settings

    settings = resolve_settings(config)
    table = settings.tables.get("adapters", {}).get("opencode") or {}
    if not isinstance(table, Mapping):
        raise AdapterUnavailable("[tool.ghxbench.adapters.opencode] must be a table")
    return OpencodeOptions.from_table(table, settings.model)


class OpencodeAdapter:
    """Drives OpenCode over its HTTP server API (see :mod:`.server` for the tool environment)."""

    name = "opencode"
    modes = ("agent_direct", "mcp", "ghx")

    def __init__(
        self, config: pytest.Config | None = None, *, options: OpencodeOptions | None = None
    ) -> None:
        self._config = config
        self._options = options
        self._directory: Path | None = None
        self._tools: ToolEnvironment | None = None
        self._server: OpencodeServer | None = None
        self.version: str | None = None

    # -- session lifecycle -------------------------------------------------------------------

    @property
    def options(self) -> OpencodeOptions:
        if self._options is None:
            self._options = _options_from_config(self._config)
        return self._options

    def preflight(self, config: pytest.Config | None = None) -> None:
        """Check once per session: the binary runs (version recorded), the server answers, and
        a provider (the model's, if one is set) has credentials. Raises AdapterUnavailable."""
        if config is not None and self._options is None:
            self._config = config
        options = self.options
        self.version = self._binary_version(options.binary)
        try:
            server = self._shared_server()
            answer = server.client.call("GET", "/config/providers", timeout=10.0)
        except OpencodeError as exc:
            raise AdapterUnavailable(f"'{options.binary} serve' did not answer: {exc}") from exc
        providers = answer.get("providers") if isinstance(answer, Mapping) else None
        if not isinstance(providers, list):
            raise AdapterUnavailable("GET /config/providers: expected {providers: [...]}")
        ids = {p.get("id") for p in providers if isinstance(p, Mapping)}
        if not ids:
            raise AdapterUnavailable(
                "opencode has no provider with credentials (run 'opencode auth login' or set "
                "the provider's API key variable)"
            )
        if options.model is not None:
            provider = options.model.split("/", 1)[0]
            if provider not in ids:
                raise AdapterUnavailable(
                    f"model {options.model!r}: provider {provider!r} has no credentials; "
                    f"configured providers: {', '.join(sorted(str(i) for i in ids))}"
                )

    @staticmethod
    def _binary_version(binary: str) -> str:
        found = shutil.which(binary)
        if found is None:
            raise AdapterUnavailable(
                f"the opencode binary {binary!r} was not found on PATH (install OpenCode or set "
                "binary in [tool.ghxbench.adapters.opencode])"
            )
        try:
            done = subprocess.run(
                [found, "--version"], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AdapterUnavailable(f"'{found} --version' failed: {exc}") from exc
        if done.returncode != 0:
            raise AdapterUnavailable(
                f"'{found} --version' exited with {done.returncode}: {done.stderr.strip()[:200]}"
            )
        return done.stdout.strip()

    def _tool_environment(self) -> ToolEnvironment:
        if self._tools is None:
            self._directory = session_directory()
            self._tools = ToolEnvironment(self._directory, os.environ.get("PATH", os.defpath))
        return self._tools

    def _start(self, config: Mapping[str, Any] | None = None) -> OpencodeServer:
        tools = self._tool_environment()
        return OpencodeServer(
            self.options.binary,
            workdir=tools.directory / "work",
            path=tools.server_path,
            config=config,
            startup_timeout_s=self.options.startup_timeout_s,
        )

    def _shared_server(self) -> OpencodeServer:
        """The session's server, restarted if it died or stopped answering."""
        if self._server is not None and not self._server.healthy():
            self._server.stop()
            self._server = None
        if self._server is None:
            self._server = self._start()
        return self._server

    def close(self) -> None:
        """Stop the server and remove the session directory."""
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._directory is not None:
            remove_directory(self._directory)
            self._directory = None
            self._tools = None

    @property
    def server_pid(self) -> int | None:
        return None if self._server is None else self._server.pid

    # -- one item ----------------------------------------------------------------------------

    def run(self, request: RunRequest) -> RunResult:
        """Run one item in a fresh OpenCode session; runner problems come back as ``error``."""
        tools = self._tool_environment()
        tools.point_at(request.env)  # materializes the sandbox's shims and state file
        dedicated: OpencodeServer | None = None
        try:
            if request.mode == "mcp":
                # The sandbox MCP server binds to one state file at start: one server per item.
                dedicated = self._start(tools.mcp_config())
                server = dedicated
            else:
                server = self._shared_server()
        except OpencodeError as exc:
            return RunResult(error=f"opencode server unavailable: {exc}")
        try:
            return self._run_session(server, request)
        finally:
            if dedicated is not None:
                dedicated.stop()
            tools.point_at({})

    def _run_session(self, server: OpencodeServer, request: RunRequest) -> RunResult:
        client = server.client
        transcript: dict[str, Any] = {"opencode_version": self.version, "server_pid": server.pid}
        try:
            created = client.call(
                "POST", "/session", {"title": request.item_id or "ghxbench"}, timeout=10.0
            )
        except OpencodeError as exc:
            return RunResult(error=f"could not create an opencode session: {exc}")
        session_id = created.get("id") if isinstance(created, Mapping) else None
        if not isinstance(session_id, str) or not session_id:
            return RunResult(error=f"POST /session answered without an id: {created!r:.200}")
        transcript["session_id"] = session_id
        body: dict[str, Any] = {"parts": [{"type": "text", "text": request.prompt}]}
        if request.instructions:
            body["system"] = request.instructions
        model = request.model or self.options.model
        if model:
            provider, _, model_id = model.partition("/")
            body["model"] = {"providerID": provider, "modelID": model_id}
        if self.options.agent:
            body["agent"] = self.options.agent
        error: str | None = None
        try:
            client.call(
                "POST", f"/session/{session_id}/message", body, timeout=request.remaining_s()
            )
        except OpencodeTimeout as exc:
            error = f"{exc} (item timeout {request.timeout_s:g}s)"
            self._best_effort(server, "POST", f"/session/{session_id}/abort")
        except OpencodeError as exc:
            error = f"opencode failed mid-item: {exc}"
        result = RunResult(session_id=session_id, model=model, transcript=transcript, error=error)
        if error is None or server.alive():
            self._collect(server, session_id, result, transcript)
        self._best_effort(server, "DELETE", f"/session/{session_id}")
        return result

    def _collect(
        self,
        server: OpencodeServer,
        session_id: str,
        result: RunResult,
        transcript: dict[str, Any],
    ) -> None:
        try:
            messages = server.client.call(
                "GET", f"/session/{session_id}/message", timeout=_COLLECT_TIMEOUT_S
            )
            summary = summarize(messages)
        except (OpencodeError, MessageFormatError) as exc:
            if result.error is None:
                result.error = f"could not read the session's messages: {exc}"
            return
        transcript["messages"] = messages
        result.tokens = summary.tokens
        result.cost_usd = summary.cost_usd
        result.tool_calls = summary.tool_calls
        result.final_text = summary.final_text
        result.api_calls = summary.api_calls
        result.timing_breakdown = summary.timing
        result.model = summary.model or result.model
        if result.error is None and summary.error is not None:
            result.error = f"opencode reported: {summary.error}"

    @staticmethod
    def _best_effort(server: OpencodeServer, method: str, path: str) -> None:
        if not server.alive():
            return
        # Cleanup of a session the server may already have dropped.
        with contextlib.suppress(OpencodeError):
            server.client.call(method, path, timeout=_CLEANUP_TIMEOUT_S)
