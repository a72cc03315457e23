"""An adapter whose agent is a curious shell script (``escape_probe.sh``), started the way the
CLI runtimes are: a process with the item's environment, in the item's jail when there is one.

The script reports what it could reach. What it cannot see for itself the adapter checks from
outside once the agent has ended: whether its ``setsid`` daemon is still alive, whether another
item's world or checkout changed, whether a service on this machine was reached. Each item's
findings go as one JSON line to the file ``ESCAPE_REPORT`` names.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.agent_process import run_agent_process
from pytest_ghxbench.adapters.bash_tool import scrubbed_env
from pytest_ghxbench.adapters.jailed import jailed_argv
from pytest_ghxbench.adapters.process import working_directory
from pytest_ghxbench.api import RunRequest, RunResult, ToolCall
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import Clients

SCRIPT = Path(__file__).with_name("escape_probe.sh")
REPORT_ENV = "ESCAPE_REPORT"


class _Canary(BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = b"canary-service"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class CanaryService:
    """A service on every address of this machine that no item may reach."""

    def __init__(self) -> None:
        handler = type("Handler", (_Canary,), {"hits": []})
        self.hits: list[str] = handler.hits
        self._server = ThreadingHTTPServer(("0.0.0.0", 0), handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()


def host_address() -> str:
    """An address of this machine that is not loopback (the route out's)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.254", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def _survivors(marker: str) -> list[int]:
    """Processes still running ``sleep MARKER`` (polled a while: a killed jail takes a moment)."""
    deadline = time.monotonic() + 3.0
    while True:
        done = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
        found = [int(pid) for pid in done.stdout.split()]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def _foreign(mode: str, clients: Clients) -> list[str]:
    """The other modes' clients by absolute path (ghx: the interpreter that runs it)."""
    own = {"agent_direct": "gh", "mcp": "github-mcp-server", "ghx": "ghx"}[mode]
    programs = {
        "gh": clients.gh_program(),
        "github-mcp-server": clients.mcp_command()[0],
        "ghx": sys.executable,
    }
    return [path for name, path in programs.items() if name != own]


class EscapeAdapter:
    name = "escape"
    modes = ("agent_direct", "mcp", "ghx")

    def __init__(self) -> None:
        self.service = CanaryService()
        self.results = Path(".ghxbench")

    def preflight(self, config: Any) -> None:
        from pytest_ghxbench.options import resolve_settings

        self.results = resolve_settings(config).results_dir

    def run(self, request: RunRequest) -> RunResult:
        item = request.backend
        assert isinstance(item, SandboxSession)
        victim_dir = Path(tempfile.mkdtemp(prefix="ghxbench-victim-"))
        victim = item.backend.open_session(f"victim-of-{request.item_id}", victim_dir, request.mode)
        dict(victim.env)  # its HOME, launcher and checkout exist on disk, as a live item's do
        marker = f"{secrets.randbelow(9000) + 1000}.{secrets.randbelow(900) + 100}"
        hits_before = len(self.service.hits)
        cwd = working_directory(request)
        argv = [
            "/bin/sh", str(SCRIPT), os.environ.get("HOME", "/"), str(self.service.port),
            host_address(), str(victim_dir), victim.token(), str(self.results),
            str(os.getpid()), marker, *_foreign(request.mode, item.backend.clients),
        ]  # fmt: skip
        lines: list[str] = []
        outcome = run_agent_process(
            jailed_argv(request, argv, cwd=cwd, runtime=[SCRIPT]),
            env=scrubbed_env(request.env),
            cwd=cwd,
            deadline=request.deadline,
            on_line=lambda line, _: lines.append(line),
        )
        findings = {
            words[1]: words[2]
            for words in (line.split() for line in lines)
            if len(words) == 3 and words[0] == "PROBE"
        }
        survivors = _survivors(marker)
        for pid in survivors:
            os.kill(pid, 9)
        issue = victim.world.issue(3)
        findings["daemon-survived"] = "escaped" if survivors else "contained"
        pwned = issue is not None and any(c.body == "pwned" for c in issue.comments)
        findings["victim-world"] = "escaped" if pwned else "contained"
        written = (victim.checkout / "PWNED").exists()
        findings["victim-checkout-file"] = "escaped" if written else "contained"
        reached = self.service.hits[hits_before:]
        findings["canary-service"] = "escaped" if reached else "contained"
        victim.close()
        shutil.rmtree(victim_dir, ignore_errors=True)
        record = {
            "item": request.item_id,
            "mode": request.mode,
            "findings": findings,
            "reached": reached,
            "violations": item.mode_violations,
            "finished": "done" in lines,
            "stderr": outcome.stderr_tail[-2000:],
        }
        with open(os.environ[REPORT_ENV], "a", encoding="utf-8") as report:
            report.write(json.dumps(record) + "\n")
        text = "\n".join(lines)
        call = ToolCall("bash", {"command": f"sh {SCRIPT.name}"}, ok=True, output=text)
        return RunResult(final_text=text, tool_calls=[call], transcript={"lines": lines})


def pytest_ghxbench_adapters(config: Any) -> list[Any]:
    return [EscapeAdapter()]
