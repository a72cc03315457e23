"""What the proxy does with a request before serving it: which route it takes, and whether it
is refused (a host the policy does not allow, a client foreign to the item's mode).

GitHub named with a trailing dot is GitHub; GitHub named by address is answered by the sandbox
(404: it serves names, not addresses), never forwarded. Loopback is the sandbox's own API origin
only on the server's own port: another loopback port is another service, a host like any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pytest_ghxbench.sandbox.api import attribution, hosts
from pytest_ghxbench.sandbox.api.policy import (
    HostPolicy,
    canonical_host,
    is_github,
    split_authority,
)
from pytest_ghxbench.sandbox.api.registry import Slot, WorldRegistry
from pytest_ghxbench.sandbox.api.types import ApiResponse

__all__ = ["Admission", "admit", "admit_tunnel"]

_TEXT = {"Content-Type": "text/plain; charset=utf-8"}


@dataclass(frozen=True)
class Admission:
    route: hosts.Route
    host: str
    """The host as routed (a trailing dot dropped)."""
    refusal: ApiResponse | None = None


def admit(
    scheme: str,
    host: str,
    path: str,
    method: str,
    headers: Mapping[str, str],
    *,
    policy: HostPolicy,
    registry: WorldRegistry,
    item: Slot | None,
    own_port: int | None = None,
) -> Admission:
    """The route of ``method scheme://host path`` and, when it must not be served, the answer
    that refuses it. ``headers``: lower-case names; ``item``: the world of the jail the request
    came from, if any; ``own_port``: the API server's port."""
    name, port = split_authority(host, 443 if scheme == "https" else 80)
    if name.endswith("."):
        host = host.replace(name, name.rstrip("."), 1)
    where = hosts.route(scheme, host, path, method)
    if own_port is not None and port != own_port and canonical_host(name) == "127.0.0.1":
        where = hosts.Route("foreign")  # a service on this machine, not the sandbox
    what = f"{method} {scheme}://{host}{path}"
    if where.kind == "foreign":
        if is_github(name):
            return Admission(hosts.Route("unknown"), host)
        if not policy.allows(name, port):
            return Admission(where, host, ApiResponse(403, policy.refusal(what).encode(), _TEXT))
        return Admission(where, host)
    refused = attribution.check(registry, headers, what, item)
    if refused is not None:
        return Admission(where, host, ApiResponse.error(403, refused))
    return Admission(where, host)


def admit_tunnel(authority: str, policy: HostPolicy) -> tuple[str, int, ApiResponse | None]:
    """``(host, port, refusal)`` of a ``CONNECT authority``; ``host`` is ``""`` when GitHub is
    asked for (the proxy intercepts it)."""
    name, port = split_authority(authority, 443)
    if is_github(name):
        return "", port, None
    if not policy.allows(name, port):
        refusal = policy.refusal(f"CONNECT {authority}").encode()
        return name, port, ApiResponse(403, refusal, _TEXT)
    return name, port, None
