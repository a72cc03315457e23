"""Where the sandbox's proxy lets a request go: GitHub is answered by the sandbox, the allowed
hosts (the adapter's model endpoint, ``--ghx-allow-host``) are passed on, everything else is
refused with one line that says why.

GitHub is recognised however a client names it: by host name, with a trailing dot
(``api.github.com.``) or by one of GitHub's published addresses (``140.82.112.6``). Those are
never forwarded. Loopback is a host like any other: a service on the machine is reached only
when it is an allowed host (a model server on ``127.0.0.1``, say), whichever loopback name or
address the client uses.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from pytest_ghxbench.sandbox.api import hosts

__all__ = [
    "GITHUB_NETWORKS",
    "HostPolicy",
    "allowed_hosts",
    "canonical_host",
    "endpoint",
    "is_github",
    "split_authority",
]

GITHUB_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "192.30.252.0/22",
        "185.199.108.0/22",
        "140.82.112.0/20",
        "143.55.64.0/20",
        "2a0a:a440::/29",
        "2606:50c0::/32",
    )
)
"""GitHub's own address ranges (``https://api.github.com/meta``: web, api, git, pages)."""

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
_LOOPBACK = "127.0.0.1"


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def canonical_host(host: str) -> str:
    """``host`` (a name or an address, without a port) as policies compare it: lower case, no
    brackets, no trailing dots, IPv4-mapped addresses as IPv4, ``localhost`` and ``::1`` as
    ``127.0.0.1``."""
    name = host.strip().strip("[]").lower().rstrip(".")
    address = _address(name)
    if address is not None:
        return _LOOPBACK if address == ipaddress.IPv6Address("::1") else str(address)
    return _LOOPBACK if name in _LOOPBACK_NAMES else name


def split_authority(authority: str, default_port: int) -> tuple[str, int]:
    """``(host, port)`` of ``host``, ``host:port``, ``[v6]:port`` or a bare IPv6 address."""
    text = authority.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    return host, int(port) if port.isdigit() else default_port


def is_github(host: str) -> bool:
    """Whether ``host`` names GitHub (or the sandbox's stand-in), in any spelling."""
    name = canonical_host(host)
    address = _address(name)
    if address is not None:
        return any(address in network for network in GITHUB_NETWORKS)
    return hosts.is_github_host(name)


def endpoint(value: str) -> tuple[str, int | None]:
    """``(canonical host, port or None)`` of an allowed-host value: a URL
    (``http://127.0.0.1:8080/v1``: its host and port, 80/443 by scheme), ``HOST:PORT`` or a
    bare ``HOST`` (any port)."""
    text = value.strip()
    if "://" in text:
        parts = urlsplit(text)
        default = 443 if parts.scheme == "https" else 80
        host, port = split_authority(parts.netloc.rpartition("@")[2], default)
        return canonical_host(host), port
    host, port = split_authority(text, -1)
    return canonical_host(host), None if port < 0 else port


def allowed_hosts(values: Iterable[object]) -> tuple[str, ...]:
    """The hosts ``--ghx-allow-host`` values name (a value may list several, separated by
    commas or spaces), in order, each once; :class:`ValueError` for one that names no host."""
    hosts: list[str] = []
    for value in values:
        if not isinstance(value, str):
            raise ValueError(f"must be host names, got {value!r}")
        hosts += value.replace(",", " ").split()
    for host in hosts:
        if not endpoint(host)[0]:
            raise ValueError(f"{host!r} names no host (give HOST, HOST:PORT or a URL)")
    return tuple(dict.fromkeys(hosts))


@dataclass(frozen=True)
class HostPolicy:
    """The hosts a proxy passes traffic on to; GitHub's never are."""

    allowed: frozenset[tuple[str, int | None]] = frozenset()

    @classmethod
    def of(cls, values: Iterable[str]) -> HostPolicy:
        """The policy allowing ``values`` (see :func:`endpoint`); blank values are ignored."""
        return cls(frozenset(endpoint(value) for value in values if value.strip()))

    def __or__(self, other: HostPolicy) -> HostPolicy:
        return HostPolicy(self.allowed | other.allowed)

    def allows(self, host: str, port: int) -> bool:
        name = canonical_host(host)
        if is_github(name):
            return False
        return (name, port) in self.allowed or (name, None) in self.allowed

    def loopback_ports(self) -> list[int]:
        """The allowed ports on loopback (model servers on this machine), in order."""
        return sorted({port for name, port in self.allowed if name == _LOOPBACK and port})

    def describe(self) -> str:
        """The allowed hosts, for a refusal message."""
        shown = sorted(name if port is None else f"{name}:{port}" for name, port in self.allowed)
        return ", ".join(shown) if shown else "none"

    def refusal(self, what: str) -> str:
        """The one line a refused request gets."""
        return (
            f"ghxbench sandbox proxy: refused {what}: an item reaches only GitHub (answered by "
            f"the sandbox) and its model endpoint (allowed: {self.describe()}); "
            "--ghx-allow-host=HOST allows another host\n"
        )
