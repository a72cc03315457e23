"""Host names as the proxy's policy compares them, and the ``--ghx-allow-host`` values that
name them: below the options (which check the values) and the sandbox (whose proxy applies
them)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = [
    "LOOPBACK",
    "address_of",
    "allowed_hosts",
    "canonical_host",
    "endpoint",
    "split_authority",
]

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
LOOPBACK = "127.0.0.1"


def address_of(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
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
    address = address_of(name)
    if address is not None:
        return LOOPBACK if address == ipaddress.IPv6Address("::1") else str(address)
    return LOOPBACK if name in _LOOPBACK_NAMES else name


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
