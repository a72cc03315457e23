"""Running ``opencode serve``: a free port on 127.0.0.1, a random password, readiness, shutdown.

How an item's tools reach a server that outlives the item: the server is started with ``PATH``
beginning with a per-session directory of ``gh``/``ghx`` shims. Each shim sources the session's
*item pointer* file (``item.env``: ``export`` lines for the current item's tool environment,
rewritten by :meth:`ToolEnvironment.point_at` before every item; items run one at a time per
process) and then execs the real command found on the item's ``PATH``. The sandbox's MCP server
reads its state file once at start, so ``mcp`` items get a server of their own instead.
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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.opencode.client import OpencodeClient, OpencodeError

__all__ = ["OpencodeServer", "ServerStartError", "ToolEnvironment", "free_port"]

PASSWORD_ENV = "OPENCODE_SERVER_PASSWORD"
CONFIG_CONTENT_ENV = "OPENCODE_CONFIG_CONTENT"
TOOL_NAMES = ("gh", "ghx")
MCP_LAUNCHER = "ghxbench-mcp"


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
        self.point_at({})
        for name in TOOL_NAMES:
            self._write_launcher(name, f'exec {name} "$@"')
        # The item's backend names its MCP server (GHXBENCH_MCP_COMMAND, shell-quoted).
        self._write_launcher(
            MCP_LAUNCHER,
            'if [ -n "${GHXBENCH_MCP_COMMAND:-}" ]; then eval "exec $GHXBENCH_MCP_COMMAND"; fi\n'
            "echo 'ghxbench: the item has no MCP server (GHXBENCH_MCP_COMMAND is not set)' >&2\n"
            "exit 1",
        )

    def _write_launcher(self, name: str, command: str) -> None:
        target = self.shim_dir / name
        target.write_text(
            "#!/bin/sh\n"
            f"# {name}: runs with the tool environment of the item pytest-ghxbench is on.\n"
            f". {shlex.quote(str(self.pointer))}\n"
            f"{command}\n",
            encoding="utf-8",
        )
        target.chmod(0o755)

    @property
    def server_path(self) -> str:
        """``PATH`` for the server: the shims first, then the harness's own ``PATH``."""
        return f"{self.shim_dir}{os.pathsep}{self.base_path}"

    def point_at(self, item_env: Mapping[str, str]) -> None:
        """Make the shims run with ``item_env`` (its ``PATH``, or the harness's, never the shim
        directory itself, so a shim cannot call itself)."""
        values = dict(item_env)
        path = values.get("PATH") or self.base_path
        values["PATH"] = os.pathsep.join(
            p for p in path.split(os.pathsep) if p != str(self.shim_dir)
        )
        lines = [f"export {key}={shlex.quote(value)}" for key, value in sorted(values.items())]
        temporary = self.pointer.with_suffix(".tmp")
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(temporary, self.pointer)

    def mcp_config(self) -> dict[str, Any]:
        """OpenCode config that gives the agent the MCP server of the current item (the
        backend's, or the sandbox's on the item's state)."""
        return {
            "mcp": {
                "ghxbench": {
                    "type": "local",
                    "command": [str(self.shim_dir / MCP_LAUNCHER)],
                    "enabled": True,
                }
            }
        }


class OpencodeServer:
    """One ``opencode serve`` process. Output goes to ``log_path`` (not a pipe, so a chatty
    server cannot block on a full pipe)."""

    def __init__(
        self,
        binary: str,
        *,
        workdir: Path,
        path: str,
        config: Mapping[str, Any] | None = None,
        startup_timeout_s: float = 30.0,
    ) -> None:
        self.binary = binary
        self.workdir = workdir
        self.password = secrets.token_urlsafe(24)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.client = OpencodeClient(self.base_url, self.password)
        self.log_path = workdir / f"opencode-serve-{self.port}.log"
        env = {**os.environ, "PATH": path, PASSWORD_ENV: self.password}
        if config:
            env[CONFIG_CONTENT_ENV] = json.dumps(config)
        workdir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [binary, "serve", "--port", str(self.port), "--hostname", "127.0.0.1"],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            self._wait_ready(startup_timeout_s)
        except BaseException:
            self.stop()
            raise

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


def session_directory() -> Path:
    """A private directory for one session's shims, pointer file and server logs."""
    return Path(tempfile.mkdtemp(prefix="ghxbench-opencode-"))


def remove_directory(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)
