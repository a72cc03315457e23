"""What checking requests against GitHub's description costs the sandbox's REST API.

Side by side, in one process and one run, alternating request by request: the router as served
(each route bound to its operation: the body checked against the description's types and
enums, and the parameters the handler did not read recorded as gaps) and the same routes
unbound from their operations (no validation, no accounting), on requests an item makes (reads
with query parameters, writes with bodies). Prints the median per request of each and the
difference, and that difference for the busiest item of the shipped suite (23 API requests) as a
share of the median item (213 ms, measured by ``bench/gap_overhead.py``).

    python bench/request_accounting.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import statistics
import time
from typing import Any
from urllib.parse import parse_qs

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiUrls
from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.manifest import fresh_world

URLS = ApiUrls.dotcom("http", "github.localhost")
REPO = "/repos/acme-labs/tinykv"
BUSIEST_ITEM_REQUESTS = 23
MEDIAN_ITEM_MS = 213.0
REQUESTS: list[tuple[str, str, Any]] = [
    ("GET", f"{REPO}/issues?state=all&labels=bug&sort=updated&direction=asc&per_page=50", None),
    ("GET", f"{REPO}/pulls/7", None),
    ("GET", f"{REPO}/pulls/7/comments?sort=created&direction=desc", None),
    ("PATCH", f"{REPO}/issues/3", {"title": "Renamed", "labels": ["bug"], "state": "open"}),
    ("POST", f"{REPO}/issues/3/comments", {"body": "A comment"}),
]


class _Blobs:
    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        return f"{URLS.web}/_blobs/x"


def _unbound(router: RestRouter) -> RestRouter:
    bare = RestRouter.__new__(RestRouter)
    routes = tuple(dataclasses.replace(r, operation=None) for r in router.routes)
    bare.routes = routes
    bare._by_method = {
        m: tuple(r for r in routes if r.method == m) for m in {r.method for r in routes}
    }
    return bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    options = parser.parse_args()
    served = RestRouter()
    routers = {"served (validated, accounted)": served, "unbound": _unbound(served)}
    requests = []
    for method, target, body in REQUESTS:
        path, _, query = target.partition("?")
        data = json.dumps(body).encode() if body is not None else b""
        requests.append(ApiRequest(method, path, parse_qs(query), {}, data, URLS, _Blobs()))
    world = fresh_world()
    samples: dict[str, list[float]] = {name: [] for name in routers}
    log = GapLog()
    for _ in range(options.rounds):
        for name, router in routers.items():
            start = time.perf_counter()
            for request in requests:
                with request_scope(log):
                    response = handle(router, world, request)
                assert response.status < 300, response.body[:200]
            samples[name].append((time.perf_counter() - start) / len(requests))
    medians = {name: statistics.median(values) * 1e6 for name, values in samples.items()}
    cost = medians["served (validated, accounted)"] - medians["unbound"]
    share = cost * BUSIEST_ITEM_REQUESTS / (MEDIAN_ITEM_MS * 1000) * 100
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    print(f"{options.rounds} rounds of {len(requests)} requests, alternating")
    for name, value in medians.items():
        print(f"  {name:32s} {value:8.1f} µs per request (median)")
    print(f"  validation and accounting      {cost:8.1f} µs per request")
    busiest = cost * BUSIEST_ITEM_REQUESTS
    print(
        f"  busiest item ({BUSIEST_ITEM_REQUESTS} requests): {busiest:.0f} µs, "
        f"{share:.3f} % of the median item ({MEDIAN_ITEM_MS:.0f} ms)"
    )


if __name__ == "__main__":
    main()
