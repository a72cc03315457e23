"""What a jailed item reaches on this machine besides GitHub: its adapter's model endpoint and
the hosts given with ``--ghx-allow-host``, at their usual URLs, and nothing else.

Three services listen on loopback: one is the adapter's model endpoint, one is allowed on the
command line, one is neither. The agent, in its jail, asks each directly (loopback is outside
the proxy) and through the proxy.
"""

from __future__ import annotations

import json
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.agent_clis.harness import recorded_rows
from tests.isolation.support import require_jail, run_shipped

pytestmark = pytest.mark.timeout(300)

ADAPTER = textwrap.dedent(
    """
    import json, os, subprocess

    import pytest_ghxbench as gb
    from pytest_ghxbench.adapters.bash_tool import scrubbed_env
    from pytest_ghxbench.adapters.jailed import jailed_argv

    PORTS = json.loads(os.environ["SERVICE_PORTS"])


    def curl(request, *args):
        argv = jailed_argv(request, ["curl", "-s", "-m", "10", *args], cwd=request.workdir)
        done = subprocess.run(argv, env=scrubbed_env(request.env), cwd=request.workdir,
                              capture_output=True, text=True, timeout=60)
        return done.stdout.strip() or f"curl exit {done.returncode}"


    class Reach:
        name = "reach"
        modes = ("agent_direct",)

        def model_endpoints(self):
            return [f"http://127.0.0.1:{PORTS['model']}/v1"]

        def run(self, request):
            proxy = request.env["HTTPS_PROXY"]
            seen = {}
            for name, port in PORTS.items():
                url = f"http://127.0.0.1:{port}/{name}"
                seen[name] = {"direct": curl(request, url),
                              "proxied": curl(request, "--noproxy", "", "-x", proxy, url)}
            return gb.RunResult(final_text=json.dumps(seen), error=json.dumps(seen))


    def pytest_ghxbench_adapters(config):
        return [Reach()]
    """
)


class _Named(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"service {self.path.strip('/')}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def services() -> Iterator[dict[str, int]]:
    servers = {name: ThreadingHTTPServer(("127.0.0.1", 0), _Named) for name in SERVICES}
    for server in servers.values():
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {name: server.server_address[1] for name, server in servers.items()}
    for server in servers.values():
        server.shutdown()
        server.server_close()


SERVICES = ("model", "allowed", "other")


def test_a_jailed_item_reaches_its_model_and_the_allowed_hosts_only(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, services: dict[str, int]
) -> None:
    require_jail()
    monkeypatch.setenv("SERVICE_PORTS", json.dumps(services))
    pytester.makeconftest(ADAPTER)
    allowed = f"--ghx-allow-host=127.0.0.1:{services['allowed']}"
    result = run_shipped(
        pytester, monkeypatch, "--ghx-adapter=reach", "--ghx-isolation=jail", allowed,
        modes="agent_direct",
    )  # fmt: skip
    (row,) = recorded_rows(pytester.path)
    seen = json.loads(row["error"]["message"].partition("reported: ")[2])
    for name in ("model", "allowed"):
        assert seen[name] == {"direct": f"service {name}", "proxied": f"service {name}"}, seen
    # not reachable directly (nothing listens in the jail), and refused by the proxy in one line
    assert seen["other"]["direct"] == "curl exit 7", seen
    refusal = seen["other"]["proxied"]
    assert refusal.startswith("ghxbench sandbox proxy: refused GET http://127.0.0.1:"), refusal
    allowed_hosts = sorted(f"127.0.0.1:{services[name]}" for name in ("allowed", "model"))
    assert f"(allowed: {', '.join(allowed_hosts)})" in refusal
    assert "\n" not in refusal and result.ret != 0
