"""Watching an ``opencode serve`` event stream (``GET /event``, SSE) while an item runs.

OpenCode retries a failed model request (HTTP 429, 5xx) inside the same assistant message and
records no trace of it in the session's messages; the only sign is a ``session.status`` event
``{"sessionID", "status": {"type": "retry", "attempt", "message", "next"}}``. The watcher counts
those for one session, so ``api_calls`` includes retries and ``internal_retry_count`` says how
many there were.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
from typing import Any

__all__ = ["RetryWatcher"]

_CONNECT_WAIT_S = 3.0
_STOP_WAIT_S = 10.0  # for the reader to take in what had arrived (it never waits on the server)


class RetryWatcher:
    """Counts ``retry`` statuses of ``session_id`` on the server at ``host:port`` from
    :meth:`start` until :meth:`stop`. A stream that cannot be opened counts nothing (the run
    goes on; ``connected`` says whether it was watched)."""

    def __init__(self, host: str, port: int, authorization: str, session_id: str) -> None:
        self._host = host
        self._port = port
        self._authorization = authorization
        self.session_id = session_id
        self.retries = 0
        self.messages: list[str] = []
        self.connected = False
        self._ready = threading.Event()
        self._stopping = False
        self._connection: http.client.HTTPConnection | None = None
        self._socket: socket.socket | None = None
        self._thread = threading.Thread(target=self._read, name="opencode-events", daemon=True)

    def start(self) -> RetryWatcher:
        """Open the stream and wait (briefly) until the server confirms the subscription."""
        self._thread.start()
        self._ready.wait(_CONNECT_WAIT_S)
        return self

    def stop(self) -> None:
        """Stop watching. What the server sent before is still counted: the stream is shut,
        and the reader takes in what had arrived before it meets the end."""
        self._stopping = True
        if self._socket is not None:  # wakes the reader
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=_STOP_WAIT_S)
        if self._connection is not None:
            self._connection.close()

    def _read(self) -> None:
        try:
            connection = http.client.HTTPConnection(self._host, self._port, timeout=None)
            self._connection = connection
            connection.request(
                "GET",
                "/event",
                headers={"Authorization": self._authorization, "Accept": "text/event-stream"},
            )
            # the connection forgets its socket once the response is read to the end
            self._socket = connection.sock
            if self._stopping:
                return
            response = connection.getresponse()
            if response.status != 200:
                return
            while line := response.fp.readline():  # until stop() shuts the stream
                if line.startswith(b"data:"):
                    self._handle(line[5:])
        except (OSError, http.client.HTTPException, ValueError):
            return
        finally:
            self._ready.set()

    def _handle(self, data: bytes) -> None:
        try:
            event: Any = json.loads(data)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        if event.get("type") == "server.connected":
            self.connected = True
            self._ready.set()
            return
        properties = event.get("properties")
        if event.get("type") != "session.status" or not isinstance(properties, dict):
            return
        status = properties.get("status")
        if properties.get("sessionID") != self.session_id or not isinstance(status, dict):
            return
        if status.get("type") == "retry":
            self.retries += 1
            self.messages.append(str(status.get("message", "")))
