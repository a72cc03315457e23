"""Clone, fetch and push over HTTP, served by git itself: ``git http-backend`` (git's smart-HTTP
CGI) runs for each request on the repository of the world the request's token names.

What the sandbox adds is what GitHub adds around git:

- authentication: the token is the HTTP Basic password (any user name, e.g.
  ``x-access-token``) or the user name, or ``Authorization: token/Bearer``; a git-only token
  (:meth:`~pytest_ghxbench.sandbox.api.registry.WorldRegistry.git_token`) works too. Without
  one the answer is 401 ``Basic realm="GitHub"``, so git asks its credential helper: the
  token is what says which item's world is meant. A wrong token gets GitHub's 401 message;
  a repository the world does not have gets GitHub's 404 (``Repository not found.``);
- GitHub's refusals of a push, and its hint for a new branch (:mod:`.hooks`);
- a push moves branches in the world: pull requests on them follow
  (:func:`~pytest_ghxbench.sandbox.api.rest.git.refs_changed`).

The world's lock is held while git runs, as for every API request on it.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from io import BufferedReader
from pathlib import Path
from typing import IO, Protocol, cast
from urllib.parse import urlsplit

from pytest_ghxbench.sandbox.api.registry import Slot, WorldRegistry
from pytest_ghxbench.sandbox.api.streams import RequestBody
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.git.hooks import (
    DEFAULT_BRANCH_ENV,
    PROTECTED_ENV,
    REPO_URL_ENV,
    server_config,
)
from pytest_ghxbench.sandbox.state import World

__all__ = ["GIT_USER", "GitRequest", "Reply", "http_backend", "serve"]

GIT_USER = "x-access-token"
"""The user name clients pair with a token (any name works, as on GitHub)."""

_PATH = re.compile(r"/(?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?/(?P<service>.+)")
_SERVICES = {
    ("GET", "info/refs"),
    ("POST", "git-upload-pack"),
    ("POST", "git-receive-pack"),
}
_CGI_HEADERS_MAX = 64 * 1024
_STDERR_MAX = 16 * 1024
_TEXT = "text/plain; charset=UTF-8"
_NOT_FOUND = b"Repository not found.\n"
_BAD_CREDENTIALS = (
    b"Invalid username or token. Password authentication is not supported for Git operations.\n"
)
_CHALLENGE = {"WWW-Authenticate": 'Basic realm="GitHub"'}
_BACKEND: str | None = None


@dataclass(frozen=True)
class GitRequest:
    """One smart-HTTP request, as the server read its head; the body is still to be read."""

    method: str
    path: str
    """``/OWNER/REPO[.git]/info/refs`` and the like."""
    query: str
    headers: Mapping[str, str]
    """Lower-case names."""
    url: str
    """What the client asked for (recorded on the world)."""
    body: RequestBody


class Reply(Protocol):
    """How :func:`serve` answers: whole (:meth:`send`) or streamed (:meth:`start`, then
    :meth:`write` any number of times, then :meth:`finish`)."""

    def send(self, response: ApiResponse) -> None: ...

    def start(self, status: int, reason: str, headers: list[tuple[str, str]]) -> None: ...

    def write(self, data: bytes) -> None: ...

    def finish(self) -> None: ...


def serve(registry: WorldRegistry, request: GitRequest, reply: Reply) -> None:
    """Answer one smart-HTTP request."""
    match = _PATH.fullmatch(request.path)
    service = match["service"] if match else ""
    if match is None or (request.method, service) not in _SERVICES:
        reply.send(_text(404, b"Not Found\n"))
        return
    if service == "info/refs" and not _query_service(request.query):
        # The dumb protocol: GitHub serves only the smart one.
        reply.send(_text(403, b"Please upgrade your git client.\n"))
        return
    slot, credentials = _slot(registry, request.headers)
    if slot is None:
        if credentials:
            reply.send(_text(401, _BAD_CREDENTIALS, _CHALLENGE))
        else:
            reply.send(ApiResponse(401, b"", {**_CHALLENGE, "Content-Type": _TEXT}))
        return
    with slot.held() as world:
        repo = world.repository
        wanted = f"{match['owner']}/{match['name']}".casefold()
        if wanted != repo.full_name.casefold():
            reply.send(_text(404, _NOT_FOUND))
            slot.requests.append((request.method, request.url, 404))
            return
        git = world.git
        before = git.refs() if service == "git-receive-pack" else None
        settled = False

        def settle(status: int) -> None:
            """Record the request and let the world follow the refs a push moved (pull
            requests on them), once."""
            nonlocal settled
            if settled:
                return
            settled = True
            slot.requests.append((request.method, request.url, status))
            if before is not None and git.refs() != before:
                from pytest_ghxbench.sandbox.code import refs_changed

                world.tick()  # a change like any other: the clock moves on
                refs_changed(world)

        status = 500
        try:
            status = _run(world, service, request, reply, settle)
        finally:
            settle(status)  # also when the client went away before the answer: refs may move


def _query_service(query: str) -> bool:
    services = ("service=git-upload-pack", "service=git-receive-pack")
    return any(part in services for part in query.split("&"))


def _slot(registry: WorldRegistry, headers: Mapping[str, str]) -> tuple[Slot | None, bool]:
    """The world the request's credentials name, and whether it had any."""
    scheme, _, value = headers.get("authorization", "").strip().partition(" ")
    scheme = scheme.lower()
    candidates: list[str] = []
    if scheme in ("token", "bearer"):
        candidates = [value.strip()]
    elif scheme == "basic":
        try:
            user, _, password = base64.b64decode(value.strip()).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None, True
        candidates = [password, user]  # GitHub takes a token as either
    else:
        return None, bool(scheme)
    for token in candidates:
        found = registry.get_for_git(token) if token else None
        if found is not None:
            return found, True
    return None, True


def _text(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> ApiResponse:
    return ApiResponse(status, body, {"Content-Type": _TEXT, **(headers or {})})


def http_backend() -> str:
    """The ``git-http-backend`` program of the git on ``PATH``."""
    global _BACKEND
    if _BACKEND is None:
        done = subprocess.run(
            ["git", "--exec-path"], capture_output=True, text=True, check=True, timeout=30
        )
        _BACKEND = str(Path(done.stdout.strip()) / "git-http-backend")
    return _BACKEND


def _cgi_env(world: World, repo: Path, service: str, request: GitRequest) -> dict[str, str]:
    headers = request.headers
    where = urlsplit(request.url)
    protected = " ".join(f"refs/heads/{b}" for b in world.repository.protected_branches)
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        # Only the served repository's own settings and the server's: nothing of the user's.
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "HOME": str(repo.parent),
        "LANG": "C",
        "GIT_PROJECT_ROOT": str(repo.parent),
        "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": f"/{repo.name}/{service}",
        "REQUEST_METHOD": request.method,
        "QUERY_STRING": request.query,
        "CONTENT_TYPE": headers.get("content-type", ""),
        "REMOTE_USER": world.viewer,
        "REMOTE_ADDR": "127.0.0.1",
        PROTECTED_ENV: protected,
        REPO_URL_ENV: f"{where.scheme}://{where.netloc}/{world.repository.full_name}",
        DEFAULT_BRANCH_ENV: world.repository.default_branch,
        **server_config(),
    }
    if request.body.length is not None:
        env["CONTENT_LENGTH"] = str(request.body.length)
    if "content-encoding" in headers:
        env["HTTP_CONTENT_ENCODING"] = headers["content-encoding"]
    if "git-protocol" in headers:
        env["GIT_PROTOCOL"] = headers["git-protocol"]
    return env


def _run(
    world: World, service: str, request: GitRequest, reply: Reply, settle: Callable[[int], None]
) -> int:
    """Run the CGI on the world's repository and relay its answer; the HTTP status.
    ``settle(status)`` runs once git is done, before the answer ends: a client whose push
    succeeded (``git push`` returned) finds the request recorded and the world moved with it."""
    repo = world.git.path
    child = subprocess.Popen(
        [http_backend()],
        env=_cgi_env(world, repo, service, request),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(repo),
    )
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    errors: list[bytes] = []
    feeder = threading.Thread(target=_feed, args=(request.body, child.stdin), daemon=True)
    drainer = threading.Thread(target=_collect, args=(child.stderr, errors), daemon=True)
    feeder.start()
    drainer.start()
    try:
        head = _cgi_head(child.stdout)
        if head is None:
            status = 500
            reply.send(ApiResponse.error(500, "The sandbox failed on this request"))
        else:
            status, reason, headers = head
            reply.start(status, reason, headers)
            stdout = cast(BufferedReader, child.stdout)
            while data := stdout.read1(64 * 1024):
                reply.write(data)
            child.wait()  # git is done with the repository
            settle(status)
            reply.finish()
    finally:
        child.stdout.close()
        code = child.wait()
        feeder.join()
        drainer.join()
    if (code != 0 or status >= 500) and errors:
        message = b"".join(errors).decode("utf-8", "replace").rstrip()
        sys.stderr.write(f"ghxbench sandbox: git http-backend ({service}) said:\n{message}\n")
    return status


def _feed(body: RequestBody, stdin: IO[bytes]) -> None:
    """Stream the request body into the CGI until it ends or the CGI stops reading."""
    # ValueError: the client's body ended early; OSError: the CGI or the client went away.
    with contextlib.suppress(ValueError, OSError):
        while data := body.read():
            stdin.write(data)
    with contextlib.suppress(OSError):
        stdin.close()


def _collect(stream: IO[bytes], into: list[bytes]) -> None:
    size = 0
    while data := stream.read(4096):
        if size < _STDERR_MAX:
            into.append(data)
            size += len(data)


def _cgi_head(stdout: IO[bytes]) -> tuple[int, str, list[tuple[str, str]]] | None:
    """The status and headers a CGI printed before its body (RFC 3875); None when it printed
    none (it failed)."""
    status, reason = 200, "OK"
    headers: list[tuple[str, str]] = []
    seen = 0
    while True:
        line = stdout.readline()
        if not line and not seen:
            return None
        seen += len(line)
        if not line or line in (b"\r\n", b"\n") or seen > _CGI_HEADERS_MAX:
            return status, reason, headers
        name, _, value = line.decode("latin-1").partition(":")
        name, value = name.strip(), value.strip()
        if name.lower() == "status":
            code, _, text = value.partition(" ")
            status, reason = int(code), text or reason
        else:
            headers.append((name, value))
