"""An item's one way out of its jail: a Unix socket the API server serves as that item's.

The jail binds the socket in and bridges a loopback port to it (:mod:`pytest_ghxbench.isolation`),
so everything an item's processes send over the network arrives here, known to be that item's:
requests with another item's token are refused, and other hosts are reached only when the
item's own policy allows them (its adapter's model endpoint, ``--ghx-allow-host``).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.api.registry import Slot

if TYPE_CHECKING:
    from pytest_ghxbench.sandbox.api.server import ApiServer

__all__ = ["ItemGate"]


class ItemGate:
    """Listens on ``path`` and serves each connection with ``handler`` (the API server's request
    handler, which reads ``api``, ``slot`` and ``policy`` from this object) in a thread of its
    own, until :meth:`close`."""

    def __init__(
        self, api: ApiServer, handler: Any, slot: Slot, path: Path, policy: HostPolicy
    ) -> None:
        self.api = api
        self.slot = slot
        self.policy = policy
        self.path = path
        self._handler = handler
        path.unlink(missing_ok=True)
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.bind(str(path))
            self._socket.listen(64)
        except OSError:
            self._socket.close()
            raise
        self._thread = threading.Thread(target=self._accept, name="ghxbench-item-gate", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return  # closed
            threading.Thread(
                target=self._serve, args=(connection,), name="ghxbench-item-request", daemon=True
            ).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            self._handler(connection, ("jail", 0), self)
        except OSError:
            pass  # the jail went away mid-request
        finally:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def close(self) -> None:
        """Stop accepting (connections already open finish on their own) and remove the
        socket."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        self._socket.close()
        self._thread.join(timeout=1.0)
        self.path.unlink(missing_ok=True)
