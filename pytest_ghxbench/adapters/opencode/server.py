"""Running ``opencode serve``: a free port on 127.0.0.1, a random password, readiness, shutdown.

How an item's tools reach a server that outlives the item: the session's shared server (for
``agent_direct`` and ``ghx`` items) is started with ``PATH`` beginning with a per-session
directory of ``gh``/``ghx``/``github-mcp-server`` shims. Each shim sources the session's *item
pointer* file (``item.env``: ``export`` lines for the current item's tool environment, rewritten
by :meth:`ToolEnvironment.point_at` before every item; items run one at a time per process) and
then execs the program found on the item's ``PATH``, where the backend shadows the programs of
the other modes with scripts that refuse. Between items the pointer makes every shim refuse.
An ``mcp`` item gets a server of its own, started with the item's ``PATH`` (no shims) and its
MCP server configured, because the MCP server is the item's. When items are jailed, every item
gets a server of its own in its jail (:mod:`.jailed`), reached through the jail's Unix socket.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.opencode.client import OpencodeClient, OpencodeError

__all__ = ["OpencodeServer", "ServerStartError", "ToolEnvironment", "free_port"]

PASSWORD_ENV = "OPENCODE_SERVER_PASSWORD"
CONFIG_CONTENT_ENV = "OPENCODE_CONFIG_CONTENT"
TOOL_NAMES = ("gh", "ghx", "github-mcp-server")
ACTIVE_ENV = "GHXBENCH_OPENCODE_ITEM"


class ServerStartError(OpencodeError):
    """``opencode serve`` did not come up."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ToolEnvironment:
    """A per-session directory of tool shims that follow the current item (see module doc)."""

    def __init__(self, directory: Path, base_path: str) -> None:
        self.directory = directory
        self.shim_dir = directory / "bin"
        self.pointer = directory / "item.env"
        self.base_path = base_path
        self.shim_dir.mkdir(parents=True, exist_ok=True)
        self.point_at(None)
        for name in TOOL_NAMES:
            self._write_shim(name)

    def _write_shim(self, name: str) -> None:
        target = self.shim_dir / name
        target.write_text(
            "#!/bin/sh\n"
            f"# {name}: runs with the tool environment of the item pytest-ghxbench is on.\n"
            f". {shlex.quote(str(self.pointer))}\n"
            f'if [ -z "${{{ACTIVE_ENV}:-}}" ]; then\n'
            f"  echo '{name}: not available: no pytest-ghxbench item is running' >&2\n"
            "  exit 127\n"
            "fi\n"
            f'exec {name} "$@"\n',
            encoding="utf-8",
        )
        target.chmod(0o755)

    @property
    def server_path(self) -> str:
        """``PATH`` for the shared server: the shims first, then the harness's own ``PATH``."""
        return f"{self.shim_dir}{os.pathsep}{self.base_path}"

    def point_at(self, item_env: Mapping[str, str] | None) -> None:
        """Make the shims run with ``item_env`` (its ``PATH``, or the harness's, never the shim
        directory itself, so a shim cannot call itself); ``None``: make them refuse."""
        lines: list[str] = []
        if item_env is not None:
            values = dict(item_env)
            path = values.get("PATH") or self.base_path
            values["PATH"] = os.pathsep.join(
                p for p in path.split(os.pathsep) if p != str(self.shim_dir)
            )
            values[ACTIVE_ENV] = "1"
            lines = [f"export {key}={shlex.quote(value)}" for key, value in sorted(values.items())]
        else:
            lines = [f"unset {ACTIVE_ENV}"]
        temporary = self.pointer.with_suffix(".tmp")
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(temporary, self.pointer)


class OpencodeServer:
    """One ``opencode serve`` process, started with exactly ``env`` (plus its password and the
    adapter's ``config``, merged over any ``OPENCODE_CONFIG_CONTENT`` in ``env``). Output goes
    to ``log_path`` (not a pipe, so a chatty server cannot block on a full pipe).

    Ready means: ``GET /global/health`` answers, the providers are loaded and, with
    ``mcp_servers``, those MCP servers are connected; ``startup_s`` is spawn → ready.

    ``wrap(argv, port)``: the command line that runs ``argv`` elsewhere (an item's jail), whose
    port is reached through the Unix socket ``serve_socket`` (bridged here by socat, on the same
    port of this machine's loopback); ``log_dir``: where the log goes (default ``workdir``)."""

    def __init__(
        self,
        binary: str,
        *,
        workdir: Path,
        env: Mapping[str, str],
        config: Mapping[str, Any] | None = None,
        startup_timeout_s: float = 30.0,
        mcp_servers: tuple[str, ...] = (),
        wrap: Callable[[list[str], int], list[str]] | None = None,
        serve_socket: Path | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self.binary = binary
        self.workdir = workdir
        self.password = secrets.token_urlsafe(24)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.client = OpencodeClient(self.base_url, self.password)
        self.log_path = (log_dir or workdir) / f"opencode-serve-{self.port}.log"
        full = {**env, PASSWORD_ENV: self.password}
        if config:
            merged = merged_config(env.get(CONFIG_CONTENT_ENV), config)
            full[CONFIG_CONTENT_ENV] = json.dumps(merged)
        workdir.mkdir(parents=True, exist_ok=True)
        self.started_at = time.monotonic()
        self.startup_s = 0.0
        argv = [binary, "serve", "--port", str(self.port), "--hostname", "127.0.0.1"]
        self._relay: subprocess.Popen[bytes] | None = None
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                wrap(argv, self.port) if wrap is not None else argv,
                cwd=workdir,
                env=full,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            if serve_socket is not None:
                self._relay = subprocess.Popen(
                    ["socat", f"TCP-LISTEN:{self.port},bind=127.0.0.1,reuseaddr,fork",
                     f"UNIX-CONNECT:{serve_socket}"],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, start_new_session=True,
                )  # fmt: skip
            deadline = self.started_at + startup_timeout_s
            self._wait_ready(startup_timeout_s)
            self._warm_up(deadline, mcp_servers)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - self.started_at

    def _warm_up(self, deadline: float, mcp_servers: tuple[str, ...]) -> None:
        """Load the providers (the first prompt would) and connect the MCP servers, so that
        their start is startup, not the first item's latency."""
        remaining = max(1.0, deadline - time.monotonic())
        self.client.call("GET", "/config/providers", timeout=remaining)
        if not mcp_servers:
            return
        status = self.client.call("GET", "/mcp", timeout=max(1.0, deadline - time.monotonic()))
        for name in mcp_servers:
            entry = status.get(name) if isinstance(status, Mapping) else None
            state = entry.get("status") if isinstance(entry, Mapping) else None
            if state != "connected":
                detail = entry.get("error") if isinstance(entry, Mapping) else None
                raise ServerStartError(
                    f"the MCP server {name!r} did not connect (status {state!r}"
                    + (f": {detail}" if detail else "")
                    + f"): {self.log_tail()}"
                )

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def healthy(self, timeout: float = 2.0) -> bool:
        """The process runs and ``GET /global/health`` answers ``healthy``."""
        if not self.alive():
            return False
        try:
            answer = self.client.call("GET", "/global/health", timeout=timeout)
        except OpencodeError:
            return False
        return isinstance(answer, dict) and answer.get("healthy") is True

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.alive():
                raise ServerStartError(
                    f"'{self.binary} serve' exited with code {self.process.returncode} before "
                    f"answering: {self.log_tail()}"
                )
            if self.healthy(timeout=1.0):
                return
            time.sleep(0.05)
        raise ServerStartError(
            f"timeout: '{self.binary} serve' did not answer GET /global/health on "
            f"{self.base_url} within {timeout_s:g}s: {self.log_tail()}"
        )

    def log_tail(self, limit: int = 400) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no output)"
        text = text.replace(self.password, "***")
        return text[-limit:].strip() or "(no output)"

    def stop(self, grace_s: float = 3.0) -> None:
        """Terminate the server and anything it started (its process group)."""
        if self._relay is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._relay.pid, signal.SIGKILL)
            self._relay.wait()
            self._relay = None
        if self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=grace_s)


def merged_config(existing: str | None, ours: Mapping[str, Any]) -> dict[str, Any]:
    """The user's ``OPENCODE_CONFIG_CONTENT`` (if any) with the adapter's top-level keys over it
    (a malformed one is replaced: OpenCode would refuse to start with it)."""
    base: Any = {}
    if existing:
        with contextlib.suppress(json.JSONDecodeError):
            base = json.loads(existing)
    return {**(base if isinstance(base, dict) else {}), **ours}


def session_directory() -> Path:
    """A private directory for one session's shims, pointer file and server logs."""
    return Path(tempfile.mkdtemp(prefix="ghxbench-opencode-"))


def remove_directory(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)
