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

from pytest_ghxbench.isolation.hosts import (
    LOOPBACK,
    address_of,
    allowed_hosts,
    canonical_host,
    endpoint,
    split_authority,
)
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


def is_github(host: str) -> bool:
    """Whether ``host`` names GitHub (or the sandbox's stand-in), in any spelling."""
    name = canonical_host(host)
    address = address_of(name)
    if address is not None:
        return any(address in network for network in GITHUB_NETWORKS)
    return hosts.is_github_host(name)


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
        return sorted({port for name, port in self.allowed if name == LOOPBACK and port})

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
