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
import sys
import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

from pytest_ghxbench.sandbox.api import hosts
from pytest_ghxbench.sandbox.api.attribution import request_tokens
from pytest_ghxbench.sandbox.api.gate import ItemGate
from pytest_ghxbench.sandbox.api.handler import TEXT, ApiHandler, ApiHttpServer
from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.api.registry import Slot, WorldRegistry
from pytest_ghxbench.sandbox.api.tls import SessionCA
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls

__all__ = ["SCOPES", "ApiServer", "PortInUse"]

SCOPES = "gist, project, read:org, repo, workflow"
"""The OAuth scopes every sandbox token reports (gh checks them before some commands)."""
_MAX_BLOBS = 512


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
        from pytest_ghxbench.sandbox.api.rest import RestRouter

        self.registry = registry or WorldRegistry()
        self.rest = RestRouter()
        """GitHub's REST operations this server answers, built once, here."""
        self.ca = SessionCA(state_dir)
        self.policy = HostPolicy()
        """Where requests on the loopback port may go besides GitHub (nowhere by default)."""
        self._blobs: OrderedDict[str, _Blob] = OrderedDict()
        self._blob_lock = threading.Lock()
        self._ids = itertools.count(1)
        try:
            self._httpd = ApiHttpServer(("127.0.0.1", port), ApiHandler)
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
        return ItemGate(self, ApiHandler, slot, path, policy)

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
                return ApiResponse(404, b"The specified blob does not exist.", TEXT)
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

                    response = handle(self.rest, world, request)
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


def _blob_key(path: str, query: str) -> str:
    """The blob a download link names: its first segment; a source archive's link may go on
    (``/legacy.zip/refs/tags/v1``, as codeload's do) and, when a client asks for the web's
    archive instead (``/zip/...``), that is the one ``alt`` names (see ``rest/archives.py``)."""
    key, _, rest = path.partition("/")
    alt = parse_qs(query).get("alt")
    return alt[-1] if rest and not rest.startswith("legacy.") and alt else key
