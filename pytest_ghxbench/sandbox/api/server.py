"""The sandbox's GitHub API server: one loopback HTTP server for every item of a session.

It is at once:
- an origin server for the Enterprise Server layout on its own address;
- a forward proxy (``HTTP_PROXY``) for the github.com layout under ``github.localhost``;
- an intercepting HTTPS proxy (``HTTPS_PROXY``) that answers ``CONNECT api.github.com:443``
  with a certificate of the session's CA, for clients that hard-code github.com;
- git's smart-HTTP server for clone, fetch and push on the web hosts (``github.com``,
  ``github.localhost``), streamed through ``git http-backend`` (:mod:`..git.http`).

Every GitHub request is authenticated by its token, which names one item's world
(:class:`~.registry.WorldRegistry`); REST goes to :func:`.rest.handle`, GraphQL to
:func:`.graphql.execute`, both under that world's lock. Requests for other hosts are passed on
unchanged (:mod:`.passthrough`) when the server's :class:`~.policy.HostPolicy` allows them (an
agent runtime's model server), else refused (:mod:`.admission`); nothing for GitHub ever leaves
the machine. A jailed item reaches the server through a Unix socket of its own (:mod:`.gate`).
"""

from __future__ import annotations

import itertools
import secrets
import socket
import ssl
import sys
import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pytest_ghxbench.sandbox.api import hosts, passthrough
from pytest_ghxbench.sandbox.api.admission import admit, admit_tunnel
from pytest_ghxbench.sandbox.api.attribution import request_tokens
from pytest_ghxbench.sandbox.api.gate import ItemGate
from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.api.registry import Slot, WorldRegistry
from pytest_ghxbench.sandbox.api.streams import HandlerReply, RequestBody
from pytest_ghxbench.sandbox.api.tls import SessionCA
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls

__all__ = ["SCOPES", "ApiServer", "PortInUse"]

SCOPES = "gist, project, read:org, repo, workflow"
"""The OAuth scopes every sandbox token reports (gh checks them before some commands)."""
_MAX_BLOBS = 512
_MAX_BODY = 64 * 1024 * 1024


class PortInUse(OSError):
    """The requested port is taken."""


@dataclass
class _Blob:
    data: bytes
    content_type: str
    filename: str | None


class _BlobLinks:
    """The :class:`~.types.BlobStore` of one request: links on the host the client used."""

    def __init__(self, server: ApiServer, urls: ApiUrls) -> None:
        self._server = server
        self._urls = urls

    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        key = self._server.store_blob(_Blob(data, content_type, filename))
        return f"{self._urls.web}{hosts.BLOB_PREFIX}{key}"


class ApiServer:
    """The server, its registry of worlds and its CA. Start with :meth:`start`."""

    def __init__(
        self, state_dir: Path, *, port: int = 0, registry: WorldRegistry | None = None
    ) -> None:
        self.registry = registry or WorldRegistry()
        self.ca = SessionCA(state_dir)
        self.policy = HostPolicy()
        """Where requests on the loopback port may go besides GitHub (nowhere by default)."""
        self._blobs: OrderedDict[str, _Blob] = OrderedDict()
        self._blob_lock = threading.Lock()
        self._ids = itertools.count(1)
        try:
            self._httpd = _HttpServer(("127.0.0.1", port), _Handler)
        except OSError as exc:
            if exc.errno in (98, 48):  # EADDRINUSE on Linux, macOS
                raise PortInUse(f"port {port} on 127.0.0.1 is already in use") from None
            raise
        self._httpd.api = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """The REST root on the loopback address (GraphQL is ``/api/graphql`` beside it), for
        clients in this process that are given a base URL instead of the proxy."""
        return f"http://127.0.0.1:{self.port}/api/v3"

    def start(self) -> ApiServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="ghxbench-sandbox-api",
                daemon=True,
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread (``ghxbench sandbox serve``) until :meth:`stop`."""
        self._httpd.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        """Make :meth:`serve_forever` return (from another thread, e.g. a signal handler's)."""
        self._httpd.shutdown()

    def close(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def open_gate(self, slot: Slot, path: Path, policy: HostPolicy) -> ItemGate:
        """Serve the item of ``slot`` on a Unix socket at ``path`` (its jail's way out)."""
        return ItemGate(self, _Handler, slot, path, policy)

    # ------------------------------------------------------------------ dispatch

    def store_blob(self, blob: _Blob) -> str:
        key = secrets.token_urlsafe(24)
        with self._blob_lock:
            self._blobs[key] = blob
            while len(self._blobs) > _MAX_BLOBS:
                self._blobs.popitem(last=False)
        return key

    def answer(
        self,
        where: hosts.Route,
        method: str,
        url: str,
        query: str,
        headers: dict[str, str],
        body: bytes,
    ) -> ApiResponse:
        """The response to a request for a GitHub host, routed to ``where``; ``url`` is what
        the client asked for (recorded on the world), ``query`` its query string."""
        if where.kind == "blob":
            with self._blob_lock:
                blob = self._blobs.get(_blob_key(where.path, query))
            if blob is None:
                return ApiResponse(404, b"The specified blob does not exist.", _TEXT)
            extra = {"Content-Type": blob.content_type}
            if blob.filename:
                extra["Content-Disposition"] = f"attachment; filename={blob.filename}"
            return ApiResponse(200, blob.data, extra)
        if where.kind == "download" and where.urls is not None:
            from pytest_ghxbench.sandbox.api.downloads import release_download

            blobs = _BlobLinks(self, where.urls)
            return release_download(self.registry, self._slot(headers), where.path, url, blobs)
        if where.kind == "unknown" or where.urls is None:
            return ApiResponse.error(404, "Not Found")
        slot = self._slot(headers)
        if slot is None and where.kind == "raw":
            from pytest_ghxbench.sandbox.api.rest.raw import not_found

            return not_found()  # as for a private repository: no token, no world to read
        if slot is None:
            if "authorization" in headers:
                return ApiResponse.error(401, "Bad credentials")
            return ApiResponse.error(401, "Requires authentication")
        request = ApiRequest(
            method=method,
            path=where.path,
            query=parse_qs(query, keep_blank_values=True),
            headers=headers,
            body=body,
            urls=where.urls,
            blobs=_BlobLinks(self, where.urls),
        )
        try:
            with slot.held() as world:
                if where.kind == "graphql":
                    from pytest_ghxbench.sandbox.api.graphql import execute

                    response = execute(world, request)
                elif where.kind == "raw":
                    from pytest_ghxbench.sandbox.api.rest.raw import raw_file

                    response = raw_file(world, request)
                else:
                    from pytest_ghxbench.sandbox.api.rest import handle

                    response = handle(world, request)
        except Exception:
            # A fault of the sandbox's, not the client's: the client gets a 500 (the item's
            # clients see it as a failure) and the traceback goes to stderr, where pytest shows
            # it with the item.
            sys.stderr.write(f"ghxbench sandbox: {method} {url} failed:\n{traceback.format_exc()}")
            response = ApiResponse.error(500, "The sandbox failed on this request")
        resource = "graphql" if where.kind == "graphql" else "core"
        response.headers.update(self._github_headers(resource))
        slot.requests.append((method, url, response.status))
        return response

    def _slot(self, headers: dict[str, str]) -> Slot | None:
        tokens = request_tokens(headers.get("authorization", ""))
        return next((slot for t in tokens if (slot := self.registry.get(t)) is not None), None)

    def _github_headers(self, resource: str) -> dict[str, str]:
        return {
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Request-Id": f"SBX:{next(self._ids):08X}",
            "X-OAuth-Scopes": SCOPES,
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Used": "1",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
            "X-RateLimit-Resource": resource,
        }


_TEXT = {"Content-Type": "text/plain; charset=utf-8"}


def _blob_key(path: str, query: str) -> str:
    """The blob a download link names: its first segment; a source archive's link may go on
    (``/legacy.zip/refs/tags/v1``, as codeload's do) and, when a client asks for the web's
    archive instead (``/zip/...``), that is the one ``alt`` names (see ``rest/archives.py``)."""
    key, _, rest = path.partition("/")
    alt = parse_qs(query).get("alt")
    return alt[-1] if rest and not rest.startswith("legacy.") and alt else key


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    api: ApiServer
    slot: Slot | None = None  # requests on the loopback port come from no one item's jail

    @property
    def policy(self) -> HostPolicy:
        return self.api.policy


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HttpServer  # or an ItemGate, which has the same attributes
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
                self._send(ApiResponse(502, b"cannot reach " + host.encode(), _TEXT))
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
        _TlsHandler(wrapped, self.client_address, self.server, self.path.rpartition(":")[0])

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
            self._send(ApiResponse(502, f"cannot reach {host}: {exc}".encode(), _TEXT))
            return
        self.send_response(status, reason)
        for key, value in headers:
            if key.lower() != "content-length":
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


class _TlsHandler(_Handler):
    def __init__(
        self, request: socket.socket, client_address: Any, server: _HttpServer, host: str
    ) -> None:
        self.tls_host = host
        super().__init__(request, client_address, server)
