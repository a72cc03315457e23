"""The HTTP side of the sandbox's API server: the connection handler for the origin, the
forward proxy, intercepted ``CONNECT`` tunnels (:class:`TlsApiHandler`) and git's smart HTTP,
each request answered by :meth:`~.server.ApiServer.answer` or passed on (:mod:`.passthrough`).
"""

from __future__ import annotations

import socket
import ssl
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pytest_ghxbench.sandbox.api import passthrough
from pytest_ghxbench.sandbox.api.admission import admit, admit_tunnel
from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.api.registry import Slot
from pytest_ghxbench.sandbox.api.streams import HandlerReply, RequestBody
from pytest_ghxbench.sandbox.api.types import ApiResponse

if TYPE_CHECKING:
    from pytest_ghxbench.sandbox.api.server import ApiServer

__all__ = ["TEXT", "ApiHandler", "ApiHttpServer", "TlsApiHandler"]

_MAX_BODY = 64 * 1024 * 1024

TEXT = {"Content-Type": "text/plain; charset=utf-8"}


class ApiHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    api: ApiServer
    slot: Slot | None = None  # requests on the loopback port come from no one item's jail

    @property
    def policy(self) -> HostPolicy:
        return self.api.policy


class ApiHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ApiHttpServer  # or an ItemGate, which has the same attributes
    timeout = 120
    # Headers and body go out as separate writes; with Nagle's algorithm on, a keep-alive
    # client's delayed ACK then stalls every answer by ~40 ms, which would count as tool time.
    disable_nagle_algorithm = True
    tls_host: str | None = None
    """Set on connections the proxy intercepted: the host the client asked to CONNECT to."""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the sandbox's requests are recorded per world, not printed."""

    def setup(self) -> None:
        if self.request.family == socket.AF_UNIX:  # an item's gate: no Nagle to disable
            self.disable_nagle_algorithm = False  # type: ignore[misc]
        super().setup()

    def handle(self) -> None:
        # A client may hang up mid-answer (gh does after some uploads): that ends the connection,
        # it is not an error of the sandbox's.
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_CONNECT(self) -> None:
        host, port, refusal = admit_tunnel(self.path, self.server.policy)
        if host:
            self.close_connection = True
            if refusal is not None:
                self._send(refusal)
                return
            self.wfile.flush()
            if not passthrough.tunnel(self.connection, host, port):
                self._send(ApiResponse(502, b"cannot reach " + host.encode(), TEXT))
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        try:
            wrapped = self.server.api.ca.server_context.wrap_socket(
                self.connection, server_side=True
            )
        except (ssl.SSLError, OSError):
            return  # the client does not trust the session CA: nothing more to say
        TlsApiHandler(wrapped, self.client_address, self.server, self.path.rpartition(":")[0])

    def _any(self) -> None:
        target = self.path
        scheme = "https" if self.tls_host else "http"
        host = self.headers.get("Host") or self.tls_host or ""
        if target.startswith(("http://", "https://")):
            parts = urlsplit(target)
            scheme, host = parts.scheme, parts.netloc
            target = parts.path + (f"?{parts.query}" if parts.query else "")
        path, _, query = (target or "/").partition("?")
        headers = {k.lower(): v for k, v in self.headers.items()}
        server = self.server
        admission = admit(
            scheme, host, path, self.command, headers,
            policy=server.policy, registry=server.api.registry, item=server.slot,
            own_port=server.api.port,
        )  # fmt: skip
        where, host = admission.route, admission.host
        if admission.refusal is not None:
            self.close_connection = True
            self._send(admission.refusal)
            return
        if where.kind == "git":
            self._git(where.path, query, f"{scheme}://{host}{target or '/'}")
            return
        try:
            body = self._read_body()
        except ValueError as exc:
            self.close_connection = True
            self._send(ApiResponse.error(400, str(exc)))
            return
        if where.kind == "foreign":
            self._forward(host, target, body)
            return
        url = f"{scheme}://{host}{target or '/'}"
        self._send(self.server.api.answer(where, self.command, url, query, headers, body))

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _any

    def _read_body(self) -> bytes:
        headers = {k.lower(): v for k, v in self.headers.items()}
        return RequestBody(self.rfile, headers).read_all(_MAX_BODY)

    def _git(self, path: str, query: str, url: str) -> None:
        """A git smart-HTTP request: its body streams into git and git's answer streams back,
        whatever their size."""
        from pytest_ghxbench.sandbox.git.http import GitRequest, serve

        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body = RequestBody(self.rfile, headers)
        except ValueError as exc:
            self.close_connection = True
            self._send(ApiResponse.error(400, str(exc)))
            return
        reply = HandlerReply(self, self._send)
        try:
            request = GitRequest(self.command, path, query, headers, url, body)
            serve(self.server.api.registry, request, reply)
        except (BrokenPipeError, ConnectionResetError):
            raise
        except Exception:
            sys.stderr.write(
                f"ghxbench sandbox: {self.command} {url} failed:\n{traceback.format_exc()}"
            )
            if reply.started:
                self.close_connection = True  # the client sees a cut answer
            else:
                self._send(ApiResponse.error(500, "The sandbox failed on this request"))
        if not body.finished and not body.drain(_MAX_BODY):
            self.close_connection = True

    def _send(self, response: ApiResponse) -> None:
        self.send_response(response.status)
        for name, value in response.headers.items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if self.command != "HEAD" and response.body:
            self.wfile.write(response.body)

    def _forward(self, host: str, target: str, body: bytes) -> None:
        name, _, port_text = host.rpartition(":")
        if not port_text.isdigit():
            name, port_text = host, "80"
        try:
            status, reason, headers, data = passthrough.forward(
                self.command, name, int(port_text), target, dict(self.headers.items()), body
            )
        except (OSError, ValueError) as exc:
            self._send(ApiResponse(502, f"cannot reach {host}: {exc}".encode(), TEXT))
            return
        self.send_response(status, reason)
        for key, value in headers:
            if key.lower() != "content-length":
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


class TlsApiHandler(ApiHandler):
    def __init__(
        self, request: socket.socket, client_address: Any, server: ApiHttpServer, host: str
    ) -> None:
        self.tls_host = host
        super().__init__(request, client_address, server)
