"""REST routes for what the seed's repository and viewer have none of, answered as GitHub
answers a public repository and a user without them:

- code scanning: nothing ever analysed, so ``404 no analysis found``;
- Dependabot alerts: off, so ``403 Dependabot alerts are disabled for this repository.``;
- secret scanning: off, so ``404 Secret scanning is disabled on this repository.``;
- notifications: none (empty lists; marking them read is done at once, ``205``), so a thread
  is ``404``;
- the viewer's subscription to the repository's notifications, which is state: watching or
  ignoring it, or not.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, paged, route
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.state import Subscription

__all__: list[str] = []

_REPO = "/repos/{owner}/{repo}"
_NO_ANALYSIS = "no analysis found"
_NO_DEPENDABOT = "Dependabot alerts are disabled for this repository."
_NO_SECRET_SCANNING = "Secret scanning is disabled on this repository."


@route("GET", _REPO + "/code-scanning/alerts")
def _code_scanning_alerts(ctx: Ctx) -> Any:
    raise RestError(404, _NO_ANALYSIS)


@route("GET", _REPO + "/code-scanning/alerts/{alert_number}")
def _code_scanning_alert(ctx: Ctx) -> Any:
    raise RestError(404, _NO_ANALYSIS)


@route("GET", _REPO + "/code-scanning/analyses")
def _code_scanning_analyses(ctx: Ctx) -> Any:
    raise RestError(404, _NO_ANALYSIS)


@route("GET", _REPO + "/dependabot/alerts")
def _dependabot_alerts(ctx: Ctx) -> Any:
    raise RestError(403, _NO_DEPENDABOT)


@route("GET", _REPO + "/dependabot/alerts/{alert_number}")
def _dependabot_alert(ctx: Ctx) -> Any:
    raise RestError(403, _NO_DEPENDABOT)


@route("GET", _REPO + "/secret-scanning/alerts")
def _secret_scanning_alerts(ctx: Ctx) -> Any:
    raise RestError(404, _NO_SECRET_SCANNING)


@route("GET", _REPO + "/secret-scanning/alerts/{alert_number}")
def _secret_scanning_alert(ctx: Ctx) -> Any:
    raise RestError(404, _NO_SECRET_SCANNING)


# ---------------------------------------------------------------- notifications


@route("GET", "/notifications")
def _notifications(ctx: Ctx) -> Any:
    return paged(ctx, [])


@route("GET", _REPO + "/notifications")
def _repo_notifications(ctx: Ctx) -> Any:
    return paged(ctx, [])


def _all_read(ctx: Ctx) -> Any:
    return ApiResponse(205, b"", {})


@route("PUT", "/notifications", status=205)
def _mark_read(ctx: Ctx) -> Any:
    return _all_read(ctx)


@route("PUT", _REPO + "/notifications", status=205)
def _mark_repo_read(ctx: Ctx) -> Any:
    return _all_read(ctx)


def _no_thread(ctx: Ctx) -> Any:
    raise RestError(404, "Not Found")


_THREAD = "/notifications/threads/{thread_id}"
for _method, _path in (
    ("GET", _THREAD),
    ("PATCH", _THREAD),
    ("DELETE", _THREAD),
    ("GET", _THREAD + "/subscription"),
    ("PUT", _THREAD + "/subscription"),
    ("DELETE", _THREAD + "/subscription"),
):
    route(_method, _path)(_no_thread)


# ---------------------------------------------------------------- watching the repository


def _subscription_json(ctx: Ctx, subscription: Subscription) -> dict[str, Any]:
    repo = ctx.links.repo_api
    return {
        "subscribed": not subscription.ignored,
        "ignored": subscription.ignored,
        "reason": None,
        "created_at": subscription.created_at,
        "url": f"{repo}/subscription",
        "repository_url": repo,
    }


@route("GET", _REPO + "/subscription")
def _subscription(ctx: Ctx) -> Any:
    found = ctx.world.repository.viewer_subscription
    if found is None:
        raise RestError(404, "Not Found")
    return _subscription_json(ctx, found)


@route("PUT", _REPO + "/subscription")
def _subscribe(ctx: Ctx) -> Any:
    ignored = bool(ctx.body.get("ignored"))
    created = ctx.world.tick()
    ctx.world.repository.viewer_subscription = Subscription(ignored=ignored, created_at=created)
    ctx.mutated = True
    return _subscription_json(ctx, ctx.world.repository.viewer_subscription)


@route("DELETE", _REPO + "/subscription", status=204)
def _unsubscribe(ctx: Ctx) -> Any:
    ctx.world.repository.viewer_subscription = None
    ctx.mutated = True
    return None
