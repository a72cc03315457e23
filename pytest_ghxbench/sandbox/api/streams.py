"""HTTP/1.1 bodies as streams: a request body read as it arrives (``Content-Length`` or
chunked), and a response body written in chunks (:class:`HandlerReply`), so a git push or
clone of any size passes through the server without being held in memory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from io import BufferedIOBase

from pytest_ghxbench.sandbox.api.types import ApiResponse

__all__ = ["ChunkedWriter", "HandlerReply", "RequestBody"]

_BLOCK = 64 * 1024


class RequestBody:
    """The body of one request on ``rfile``: ``read`` returns ``b""`` at its end.

    ``ValueError`` when the framing is broken (a bad chunk size)."""

    def __init__(self, rfile: BufferedIOBase, headers: Mapping[str, str]) -> None:
        """``headers``: the request's headers, lower-case names."""
        self._rfile = rfile
        self.chunked = headers.get("transfer-encoding", "").lower() == "chunked"
        self.length: int | None = None
        if not self.chunked:
            try:
                self.length = max(0, int(headers.get("content-length") or 0))
            except ValueError:
                raise ValueError("invalid Content-Length") from None
        self._left = 0 if self.chunked else (self.length or 0)
        self.finished = not self.chunked and self._left == 0

    def read(self, size: int = _BLOCK) -> bytes:
        """Up to ``size`` bytes of the body; ``b""`` once it is all read."""
        if self.finished:
            return b""
        if self.chunked and self._left == 0:
            self._left = self._chunk_size()
            if self._left == 0:
                while self._rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                self.finished = True
                return b""
        data = self._rfile.read(min(size, self._left))
        if not data:
            raise ValueError("the request body ended early")
        self._left -= len(data)
        if self._left == 0:
            if self.chunked:
                self._rfile.readline()  # the CRLF after a chunk
            else:
                self.finished = True
        return data

    def read_all(self, limit: int) -> bytes:
        """The whole body; ``ValueError`` when it is longer than ``limit`` bytes."""
        if self.length is not None and self.length > limit:
            raise ValueError("request body too large")
        parts: list[bytes] = []
        total = 0
        while data := self.read():
            total += len(data)
            if total > limit:
                raise ValueError("request body too large")
            parts.append(data)
        return b"".join(parts)

    def drain(self, limit: int) -> bool:
        """Read and drop the rest of the body, at most ``limit`` bytes; whether it ended (so
        the connection can serve another request)."""
        dropped = 0
        try:
            while dropped <= limit:
                data = self.read()
                if not data:
                    return True
                dropped += len(data)
        except (ValueError, OSError):
            return False
        return False

    def _chunk_size(self) -> int:
        line = self._rfile.readline(1024)
        try:
            return int(line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            raise ValueError("invalid chunk size in the request body") from None


class ChunkedWriter:
    """Writes a response body with ``Transfer-Encoding: chunked``; :meth:`close` ends it."""

    def __init__(self, wfile: BufferedIOBase) -> None:
        self._wfile = wfile

    def write(self, data: bytes) -> None:
        if data:
            self._wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def close(self) -> None:
        self._wfile.write(b"0\r\n\r\n")
        self._wfile.flush()


class HandlerReply:
    """A :class:`~pytest_ghxbench.sandbox.git.http.Reply` on a handler's connection: a whole
    answer goes out through ``send``, a streamed one chunked."""

    def __init__(
        self, handler: BaseHTTPRequestHandler, send: Callable[[ApiResponse], None]
    ) -> None:
        self._handler = handler
        self._send = send
        self._out: ChunkedWriter | None = None
        self.started = False

    def send(self, response: ApiResponse) -> None:
        self.started = True
        self._send(response)

    def start(self, status: int, reason: str, headers: list[tuple[str, str]]) -> None:
        self.started = True
        handler = self._handler
        handler.send_response(status, reason)
        for name, value in headers:
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                handler.send_header(name, value)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        self._out = ChunkedWriter(handler.wfile)

    def write(self, data: bytes) -> None:
        assert self._out is not None
        self._out.write(data)

    def finish(self) -> None:
        assert self._out is not None
        self._out.close()
