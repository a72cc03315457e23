"""The sandbox's API server as clients reach it: through the proxy (github.com layout), as an
Enterprise Server, and through TLS interception; one world per token."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.api.server import ApiServer, PortInUse
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    with ApiServer(tmp_path_factory.mktemp("api")) as running:
        yield running


def proxied(
    server: ApiServer, method: str, url: str, token: str | None, body: Any = None
) -> tuple[int, dict[str, str], bytes]:
    """A request sent as gh sends it with HTTP_PROXY: absolute form to the proxy."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    headers = {"Authorization": f"token {token}"} if token else {}
    data = json.dumps(body).encode() if body is not None else None
    connection.request(method, url, body=data, headers=headers)
    answer = connection.getresponse()
    payload = answer.read()
    connection.close()
    return answer.status, {k.lower(): v for k, v in answer.getheaders()}, payload


def test_the_github_com_layout_through_the_proxy(server: ApiServer) -> None:
    token, _ = server.registry.register(fresh_world(DEFAULT_SEED))
    status, headers, body = proxied(
        server, "GET", "http://api.github.localhost/repos/acme-labs/tinykv", token
    )
    assert status == 200
    assert json.loads(body)["full_name"] == "acme-labs/tinykv"
    assert headers["x-oauth-scopes"]  # gh reads the scopes before some commands
    query = {"query": "{ viewer { login } }"}
    status, _, body = proxied(server, "POST", "http://api.github.localhost/graphql", token, query)
    assert (status, json.loads(body)["data"]["viewer"]["login"]) == (200, "bench-bot")


def test_the_enterprise_layout_on_the_web_host_and_on_loopback(server: ApiServer) -> None:
    token, _ = server.registry.register(fresh_world(DEFAULT_SEED))
    status, _, body = proxied(
        server, "GET", "http://github.localhost/api/v3/repos/acme-labs/tinykv/issues/3", token
    )
    assert status == 200 and json.loads(body)["number"] == 3
    direct = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    direct.request(
        "POST",
        "/api/graphql",
        body=json.dumps({"query": "{ viewer { login } }"}),
        headers={"Authorization": f"Bearer {token}"},
    )
    answer = direct.getresponse()
    assert json.loads(answer.read())["data"]["viewer"]["login"] == "bench-bot"


def test_each_token_has_its_own_world(server: ApiServer) -> None:
    one, slot_one = server.registry.register(fresh_world(DEFAULT_SEED))
    two, slot_two = server.registry.register(fresh_world(DEFAULT_SEED))
    url = "http://api.github.localhost/repos/acme-labs/tinykv/issues/3/comments"
    status, _, _ = proxied(server, "POST", url, one, {"body": "only in one world"})
    assert status == 201
    assert "only in one world" in proxied(server, "GET", url, one)[2].decode()
    assert "only in one world" not in proxied(server, "GET", url, two)[2].decode()
    assert [status for (_, _, status) in slot_one.requests] == [201, 200]
    assert len(slot_two.requests) == 1


def test_unknown_or_missing_tokens_are_refused_like_github(server: ApiServer) -> None:
    url = "http://api.github.localhost/user"
    status, _, body = proxied(server, "GET", url, "ghp_not_a_sandbox_token")
    assert (status, json.loads(body)["message"]) == (401, "Bad credentials")
    status, _, body = proxied(server, "GET", url, None)
    assert (status, json.loads(body)["message"]) == (401, "Requires authentication")
    token, _ = server.registry.register(fresh_world(DEFAULT_SEED))
    server.registry.unregister(token)
    assert proxied(server, "GET", url, token)[0] == 401


def test_tls_interception_serves_api_github_com_with_the_session_ca(server: ApiServer) -> None:
    token, _ = server.registry.register(fresh_world(DEFAULT_SEED))
    tunnel = http.client.HTTPSConnection(
        "127.0.0.1", server.port, timeout=60, context=server.ca.client_context()
    )
    tunnel.set_tunnel("api.github.com", 443)
    tunnel.request(
        "GET", "/repos/acme-labs/tinykv/pulls/7", headers={"Authorization": f"token {token}"}
    )
    answer = tunnel.getresponse()
    pull = json.loads(answer.read())
    assert answer.status == 200 and pull["number"] == 7
    assert pull["url"].startswith("https://api.github.com/")  # links follow the host asked for


def test_a_client_that_does_not_trust_the_session_ca_gets_nothing(server: ApiServer) -> None:
    tunnel = http.client.HTTPSConnection(
        "127.0.0.1", server.port, timeout=60, context=ssl.create_default_context()
    )
    tunnel.set_tunnel("api.github.com", 443)
    with pytest.raises(ssl.SSLCertVerificationError):
        tunnel.request("GET", "/user")


def test_github_hosts_the_sandbox_does_not_serve_are_answered_never_forwarded(
    server: ApiServer,
) -> None:
    token, _ = server.registry.register(fresh_world(DEFAULT_SEED))
    for url in (
        "http://github.com/acme-labs/tinykv",
        "http://gist.githubusercontent.com/mona/0123abcd/raw/notes.md",
        "http://codeload.github.com/acme-labs/tinykv/zip/main",
    ):
        assert proxied(server, "GET", url, token)[0] == 404


class _Echo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"model server saw {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_allowed_hosts_pass_through_the_proxy_unchanged(server: ApiServer) -> None:
    """An agent runtime behind the proxy still reaches its model server."""
    upstream = HTTPServer(("127.0.0.2", 0), _Echo)  # 127.0.0.1 is the sandbox itself
    thread = threading.Thread(target=upstream.serve_forever, daemon=True)
    thread.start()
    port = upstream.server_address[1]
    server.policy = HostPolicy.of([f"http://127.0.0.2:{port}/v1"])
    try:
        status, _, body = proxied(server, "GET", f"http://127.0.0.2:{port}/v1/models", None)
        assert (status, body) == (200, b"model server saw /v1/models")
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as raw:
            raw.sendall(f"CONNECT 127.0.0.2:{port} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert raw.recv(1024).startswith(b"HTTP/1.1 200")
            raw.sendall(b"GET /tunnelled HTTP/1.0\r\nHost: x\r\n\r\n")
            received = b""
            while chunk := raw.recv(4096):
                received += chunk
            assert received.endswith(b"model server saw /tunnelled")
    finally:
        server.policy = HostPolicy()
        upstream.shutdown()
        upstream.server_close()


def connect(server: ApiServer, authority: str) -> bytes:
    """The proxy's first answer to ``CONNECT authority``."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
        received = b""
        while b"\r\n\r\n" not in received and (chunk := raw.recv(4096)):
            received += chunk
        if received.startswith(b"HTTP/1.1 403"):
            while chunk := raw.recv(4096):
                received += chunk
        return received


def test_every_other_host_is_refused_with_one_line(server: ApiServer) -> None:
    upstream = HTTPServer(("127.0.0.2", 0), _Echo)  # a loopback service nobody allowed
    thread = threading.Thread(target=upstream.serve_forever, daemon=True)
    thread.start()
    port = upstream.server_address[1]
    try:
        others = ("http://example.com/", "http://10.9.9.9:9/", "http://localhost:9/x")
        # loopback is the sandbox on the server's own port only: any other is another service
        for url in (f"http://127.0.0.2:{port}/x", f"http://127.0.0.1:{port}/x", *others):
            status, _, body = proxied(server, "GET", url, None)
            assert status == 403, url
            assert body.decode().count("\n") == 1 and "refused GET" in body.decode()
        for authority in (f"127.0.0.2:{port}", "example.com:443", "[::1]:22"):
            answer = connect(server, authority)
            assert answer.startswith(b"HTTP/1.1 403"), authority
            assert b"--ghx-allow-host=HOST allows another host" in answer
    finally:
        upstream.shutdown()
        upstream.server_close()


def test_github_by_address_or_with_a_trailing_dot_stays_in_the_sandbox(server: ApiServer) -> None:
    token, _ = server.registry.register(fresh_world(DEFAULT_SEED))
    status, _, body = proxied(server, "GET", "http://api.github.localhost./user", token)
    assert (status, json.loads(body)["login"]) == (200, "bench-bot")
    assert proxied(server, "GET", "http://140.82.112.6/user", token)[0] == 404
    for authority in ("140.82.112.6:443", "api.github.com.:443", "[2606:50c0::1]:443"):
        assert connect(server, authority).startswith(b"HTTP/1.1 200 Connection established")
    context = server.ca.client_context()
    context.check_hostname = False  # Python's ssl matches no name with a trailing dot
    tunnel = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=10, context=context)
    tunnel.set_tunnel("api.github.com.", 443)
    tunnel.request("GET", "/user", headers={"Authorization": f"token {token}"})
    answer = tunnel.getresponse()
    assert (answer.status, json.loads(answer.read())["login"]) == (200, "bench-bot")


def test_pre_signed_blob_links_need_no_token(server: ApiServer, tmp_path: Path) -> None:
    from pytest_ghxbench.sandbox.api.server import _BlobLinks
    from pytest_ghxbench.sandbox.api.types import ApiUrls

    link = _BlobLinks(server, ApiUrls.dotcom("http", "github.localhost")).put(
        b"log line\n", "text/plain"
    )
    assert link.startswith("http://github.localhost/_blobs/")
    assert proxied(server, "GET", link, None)[:3:2] == (200, b"log line\n")
    assert proxied(server, "GET", link + "x", None)[0] == 404


def test_a_port_in_use_is_one_clear_error(server: ApiServer, tmp_path: Path) -> None:
    with pytest.raises(PortInUse, match=f"port {server.port} on 127.0.0.1 is already in use"):
        ApiServer(tmp_path, port=server.port)


def test_concurrent_items_lose_no_update_and_never_mix(server: ApiServer) -> None:
    """Items on one server at once (xdist-free concurrency: agents run tools in parallel)."""
    tokens = [server.registry.register(fresh_world(DEFAULT_SEED))[0] for _ in range(4)]
    url = "http://api.github.localhost/repos/acme-labs/tinykv/issues/3/comments"

    def post(token: str, index: int) -> None:
        for n in range(8):
            body = {"body": f"{token[-6:]}-{index}-{n}"}
            assert proxied(server, "POST", url, token, body)[0] == 201

    workers = [
        threading.Thread(target=post, args=(token, index))
        for token in tokens
        for index in range(2)  # two agents' tools on the same item at once
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)  # a hang guard
        assert not worker.is_alive()
    for token in tokens:
        status, _, body = proxied(server, "GET", url + "?per_page=100", token)
        bodies = [c["body"] for c in json.loads(body)]
        assert status == 200 and len(bodies) == 16
        assert all(b.startswith(token[-6:]) for b in bodies)
