"""The ``opencode`` adapter: one ``opencode serve`` per session, one OpenCode session per item.

Configuration (``[tool.ghxbench.adapters.opencode]``): ``binary`` (default ``opencode``),
``model`` (``PROVIDER/MODEL``; ``--ghx-model`` wins), ``startup_timeout_s`` (default 30),
``agent`` (an OpenCode agent name, optional), ``passthrough`` (names of further variables the
server gets, e.g. a provider's credentials that do not end in ``_API_KEY``).

The server gets a scrubbed environment: the basics, ``XDG_*`` directories, every ``OPENCODE_*``
variable (the runtime's own settings, e.g. ``OPENCODE_CONFIG``) and every ``*_API_KEY``
variable, with quiet defaults (:data:`QUIET_ENV`) where the user set none. The agent gets only
its mode's tools, through OpenCode's ``permission`` setting: ``bash`` in ``agent_direct`` and
``ghx``, the item's MCP tools in ``mcp``; everything else is denied (removed from the tools the
model is offered).

Timing (``docs/metrics.md``): the item is ready when its prompt is sent to a ready server, and
answered when the prompt's request returns with the final assistant message. ``mcp`` items get
a server of their own: its start (providers loaded, MCP server connected) is the item's
startup. The shared server of the other modes is started once; its start is the startup of the
first item that runs on it (later items' startup is creating their OpenCode session).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.jailed import item_jail
from pytest_ghxbench.adapters.opencode.client import OpencodeError, OpencodeTimeout
from pytest_ghxbench.adapters.opencode.events import RetryWatcher
from pytest_ghxbench.adapters.opencode.jailed import jailed_server, model_endpoints
from pytest_ghxbench.adapters.opencode.messages import MessageFormatError, summarize
from pytest_ghxbench.adapters.opencode.options import (
    PASSTHROUGH_VARS,
    QUIET_ENV,
    OpencodeOptions,
    mode_config,
    options_from_config,
)
from pytest_ghxbench.adapters.opencode.server import (
    OpencodeServer,
    ToolEnvironment,
    remove_directory,
    session_directory,
)
from pytest_ghxbench.adapters.process import (
    mcp_server_command,
    redact,
    scrubbed_env,
    secret_values,
)
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import (
    BUILTIN_MODE_SPECS,
    AdapterUnavailable,
    ModeSpec,
    RunRequest,
    RunResult,
)

__all__ = ["OpencodeAdapter", "OpencodeOptions"]

_CLEANUP_TIMEOUT_S = 5.0
_COLLECT_TIMEOUT_S = 15.0


class OpencodeAdapter:
    """Drives OpenCode over its HTTP server API (see :mod:`.server` for the tool environment)."""

    name = "opencode"
    modes = ("agent_direct", "mcp", "ghx")
    kinds = ("cli", "mcp")

    def __init__(
        self, config: pytest.Config | None = None, *, options: OpencodeOptions | None = None
    ) -> None:
        self._config = config
        self._options = options
        self._directory: Path | None = None
        self._tools: ToolEnvironment | None = None
        self._server: OpencodeServer | None = None
        self._server_attributed = False
        self._provider_secrets: set[str] = set()
        self.version: str | None = None

    # -- session lifecycle -------------------------------------------------------------------

    @property
    def options(self) -> OpencodeOptions:
        if self._options is None:
            self._options = options_from_config(self._config)
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
        self._provider_secrets = _provider_keys(providers)
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

    def server_env(self, path: str) -> dict[str, str]:
        """The environment of an ``opencode serve`` whose ``PATH`` is ``path`` (module doc)."""
        keys = [name for name in os.environ if name.endswith("_API_KEY")]
        env = scrubbed_env(
            {"PATH": path},
            passthrough=(*PASSTHROUGH_VARS, *keys, *self.options.passthrough),
            prefixes=("OPENCODE_",),
        )
        for name, value in QUIET_ENV.items():
            env.setdefault(name, value)
        return env

    def _start(
        self, spec: ModeSpec, path: str, mcp: Mapping[str, Any] | None = None
    ) -> OpencodeServer:
        tools = self._tool_environment()
        config = mode_config(spec)
        if mcp is not None:
            config["mcp"] = {spec.name: dict(mcp)}
        return OpencodeServer(
            self.options.binary,
            workdir=tools.directory / "work",
            env=self.server_env(path),
            config=config,
            startup_timeout_s=self.options.startup_timeout_s,
            mcp_servers=(spec.name,) if mcp is not None else (),
        )

    def _shared_server(self) -> OpencodeServer:
        """The session's server for agent_direct and ghx items, restarted if it died or
        stopped answering."""
        if self._server is not None and not self._server.healthy():
            self._server.stop()
            self._server = None
        if self._server is None:
            self._server = self._start(
                BUILTIN_MODE_SPECS["agent_direct"], self._tool_environment().server_path
            )
            self._server_attributed = False
        return self._server

    def _own_server(self, spec: ModeSpec, env: Mapping[str, str]) -> OpencodeServer:
        """A server of the item's own, with the item's ``PATH`` (no shims) and, for a kind mcp
        mode, the item's MCP server."""
        path = env.get("PATH") or os.environ.get("PATH", os.defpath)
        if spec.kind != "mcp":
            return self._start(spec, path)
        command, args, server_env = mcp_server_command(env)
        mcp: dict[str, Any] = {"type": "local", "command": [command, *args], "enabled": True}
        if server_env:
            mcp["environment"] = dict(server_env)
        return self._start(spec, path, mcp)

    def close(self) -> None:
        """Stop the server and remove the session directory."""
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._directory is not None:
            remove_directory(self._directory)
            self._directory = None
            self._tools = None

    def model_endpoints(self) -> list[str]:
        """Where the configured providers' models are (a jailed item reaches only them)."""
        return model_endpoints(os.environ, self.options.model)

    @property
    def server_pid(self) -> int | None:
        return None if self._server is None else self._server.pid

    # -- one item ----------------------------------------------------------------------------

    def run(self, request: RunRequest) -> RunResult:
        """Run one item in a fresh OpenCode session; runner problems come back as ``error``."""
        clock = RuntimeClock()
        tools = self._tool_environment()
        dedicated: OpencodeServer | None = None
        jail = item_jail(request)
        try:
            if jail is not None:
                tools.point_at(None)
                dedicated = server = jailed_server(request, jail, self.options, self.server_env)
            elif request.mode_spec.kind == "mcp" or not request.mode_spec.builtin:
                # the shared server's shims (gh, ghx) refuse during an item of its own server
                tools.point_at(None)
                dedicated = server = self._own_server(request.mode_spec, request.env)
            else:
                tools.point_at(request.env)
                server = self._shared_server()
                if not self._server_attributed:
                    # its start is this item's startup, also when the preflight started it
                    self._server_attributed = True
                    if server.started_at < clock.started:
                        clock.started -= server.startup_s
        except (OpencodeError, AdapterUnavailable) as exc:
            tools.point_at(None)
            return RunResult(error=f"opencode server unavailable: {exc}")
        try:
            return clock.apply(self._run_session(server, request, clock))
        finally:
            if dedicated is not None:
                dedicated.stop()
            tools.point_at(None)

    def _run_session(
        self, server: OpencodeServer, request: RunRequest, clock: RuntimeClock
    ) -> RunResult:
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
        watcher = RetryWatcher("127.0.0.1", server.port, client.authorization, session_id)
        watcher.start()
        clock.mark_ready()
        try:
            client.call(
                "POST", f"/session/{session_id}/message", body, timeout=request.remaining_s()
            )
            clock.mark_answered()
        except OpencodeTimeout as exc:
            error = f"{exc} (item timeout {request.timeout_s:g}s)"
            self._best_effort(server, "POST", f"/session/{session_id}/abort")
        except OpencodeError as exc:
            error = f"opencode failed mid-item: {exc}"
        finally:
            watcher.stop()
        result = RunResult(session_id=session_id, model=model, transcript=transcript, error=error)
        if error is None or server.alive():
            self._collect(server, session_id, result, transcript)
        # retried model requests leave no message behind: they are counted from the events
        result.internal_retry_count = watcher.retries
        if watcher.retries:
            result.api_calls = (result.api_calls or 0) + watcher.retries
            transcript["retries"] = list(watcher.messages)
        self._best_effort(server, "DELETE", f"/session/{session_id}")
        return result

    def _secrets(self, server: OpencodeServer) -> list[str]:
        found = {server.password, *self._provider_secrets, *secret_values(os.environ)}
        return sorted((s for s in found if s), key=len, reverse=True)

    def _collect(
        self,
        server: OpencodeServer,
        session_id: str,
        result: RunResult,
        transcript: dict[str, Any],
    ) -> None:
        try:
            raw = server.client.call(
                "GET", f"/session/{session_id}/message", timeout=_COLLECT_TIMEOUT_S
            )
            # Tool output can echo a key from the environment: nothing recorded keeps it.
            messages = json.loads(redact(json.dumps(raw), self._secrets(server)))
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
        result.sdk_latency_ms = summary.sdk_latency_ms
        result.model = summary.model or result.model
        if result.error is None and summary.error is not None:
            result.error = summary.error

    @staticmethod
    def _best_effort(server: OpencodeServer, method: str, path: str) -> None:
        if not server.alive():
            return
        # Cleanup of a session the server may already have dropped.
        with contextlib.suppress(OpencodeError):
            server.client.call(method, path, timeout=_CLEANUP_TIMEOUT_S)


def _provider_keys(providers: list[Any]) -> set[str]:
    """The API keys the configured providers hold (a key written into a config file is not in
    the environment, yet must not be recorded either)."""
    keys: set[str] = set()
    for provider in providers:
        options = provider.get("options") if isinstance(provider, Mapping) else None
        key = options.get("apiKey") if isinstance(options, Mapping) else None
        if isinstance(key, str) and len(key) >= 8:
            keys.add(key)
    return keys
