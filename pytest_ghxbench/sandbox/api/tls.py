"""The per-session certificate authority of the intercepting proxy.

Clients that hard-code ``api.github.com`` reach the sandbox through ``HTTPS_PROXY``: the proxy
answers their ``CONNECT`` with a certificate for the GitHub host signed by this CA, which exists
only for the session and which only the item environments trust (``SSL_CERT_FILE`` and friends
name a bundle that adds it to the system's authorities)."""

from __future__ import annotations

import ssl
from pathlib import Path

import trustme

__all__ = ["INTERCEPTED_NAMES", "SessionCA"]

INTERCEPTED_NAMES = (
    "github.com",
    "*.github.com",
    "githubusercontent.com",
    "*.githubusercontent.com",
    "github.localhost",
    "*.github.localhost",
)
"""The names the proxy's leaf certificate covers: every GitHub host a client may reach."""


class SessionCA:
    """A throwaway CA, its leaf certificate for the GitHub hosts, and the files clients trust."""

    def __init__(self, directory: Path) -> None:
        self._ca = trustme.CA(organization_name="pytest-ghxbench sandbox")
        leaf = self._ca.issue_cert(*INTERCEPTED_NAMES)
        self.server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        leaf.configure_cert(self.server_context)
        # HTTP/1.1 only: the proxy's handler speaks nothing else, and clients fall back to it.
        self.server_context.set_alpn_protocols(["http/1.1"])
        directory.mkdir(parents=True, exist_ok=True)
        self.ca_file = directory / "sandbox-ca.pem"
        self._ca.cert_pem.write_to_path(str(self.ca_file))
        self.bundle_file = directory / "ca-bundle.pem"
        self.bundle_file.write_bytes(_system_bundle() + b"\n" + self._ca.cert_pem.bytes())

    def client_context(self) -> ssl.SSLContext:
        """An SSL context that trusts this CA (for tests and in-process clients)."""
        context = ssl.create_default_context()
        self._ca.configure_trust(context)
        return context


def _system_bundle() -> bytes:
    """The machine's CA bundle, so a client given the bundle still trusts every other site
    (empty when the machine has none: then only GitHub's names, the sandbox's, are trusted)."""
    paths = ssl.get_default_verify_paths()
    for candidate in (paths.cafile, paths.openssl_cafile, "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate).read_bytes()
    return b""
