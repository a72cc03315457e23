"""What the proxy does with traffic that is not for GitHub: pass it on unchanged.

An agent runtime whose environment routes through the sandbox's proxy still has to reach its
model server. Requests for GitHub's hosts never get here (the server answers them itself or
refuses them); everything else is tunnelled (``CONNECT``) or forwarded (plain HTTP)."""

from __future__ import annotations

import http.client
import selectors
import socket
from collections.abc import Mapping

__all__ = ["HOP_BY_HOP", "forward", "tunnel"]

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
_IDLE_S = 300.0


def tunnel(client: socket.socket, host: str, port: int) -> bool:
    """Relay bytes between ``client`` and ``host:port`` until either side closes.

    Returns False (having sent nothing) when the target cannot be reached, so the caller can
    answer 502 instead."""
    try:
        upstream = socket.create_connection((host, port), timeout=10)
    except OSError:
        return False
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    with upstream, selectors.DefaultSelector() as selector:
        selector.register(client, selectors.EVENT_READ, upstream)
        selector.register(upstream, selectors.EVENT_READ, client)
        while True:
            ready = selector.select(timeout=_IDLE_S)
            if not ready:
                return True
            for key, _ in ready:
                source: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = source.recv(65536)
                    if not data:
                        return True
                    key.data.sendall(data)
                except OSError:
                    return True


def forward(
    method: str, host: str, port: int, target: str, headers: Mapping[str, str], body: bytes
) -> tuple[int, str, list[tuple[str, str]], bytes]:
    """Send a plain-HTTP request on to ``host:port``; ``(status, reason, headers, body)``."""
    connection = http.client.HTTPConnection(host, port, timeout=300)
    try:
        kept = {k: v for k, v in headers.items() if k.lower() not in HOP_BY_HOP}
        connection.request(method, target, body=body or None, headers=kept)
        answer = connection.getresponse()
        data = answer.read()
        out = [(k, v) for k, v in answer.getheaders() if k.lower() not in HOP_BY_HOP]
        return answer.status, answer.reason, out, data
    finally:
        connection.close()
