"""The API client never carries the token to another host when GitHub redirects (job logs and
archives are served from blob storage under a URL that is its own credential)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_ghxbench.ghx.client import GitHubClient

SEEN: dict[str, str | None] = {}


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        SEEN[f"{self.headers['Host'].split(':')[0]}{self.path}"] = self.headers["Authorization"]
        if self.path.startswith("/api/v3/logs"):
            port = self.server.server_address[1]
            target = "127.0.0.1" if "same" in self.path else "localhost"
            self.send_response(302)
            self.send_header("Location", f"http://{target}:{port}/blob")
            self.end_headers()
            return
        body = b"log text"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()
    SEEN.clear()


def test_a_redirect_to_another_host_drops_the_token(port: int) -> None:
    client = GitHubClient("ghs_secret", api_url=f"http://127.0.0.1:{port}/api/v3")
    assert client.rest("GET", "/logs/other") == "log text"
    assert SEEN["127.0.0.1/api/v3/logs/other"] == "Bearer ghs_secret"
    assert SEEN["localhost/blob"] is None


def test_a_redirect_on_the_same_host_keeps_it(port: int) -> None:
    client = GitHubClient("ghs_secret", api_url=f"http://127.0.0.1:{port}/api/v3")
    assert client.rest("GET", "/logs/same") == "log text"
    assert SEEN["127.0.0.1/blob"] == "Bearer ghs_secret"
