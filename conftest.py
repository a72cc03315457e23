"""An example adapter and backend for trying the harness before the embedded sandbox exists.

``pytest --ghx-mode=agent_direct,ghx --reps=4 --ghx-adapter=example --ghx-backend=example``
runs the scenarios in ``scenarios/`` against a tiny in-memory GitHub with a scripted "agent".
Its token, latency and cost numbers are illustrative arithmetic, not measurements of any model:
the point is to show the plumbing (items, rows, summary, gate) end to end. Copy this file as
the starting point of your own adapter.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import pytest_ghxbench as gb

_SEED: dict[str, Any] = {
    "repo": {
        "owner": "acme",
        "name": "widgets",
        "description": "Widgets for everyone",
        "defaultBranch": "main",
        "stargazerCount": 42,
    },
    "issues": {
        "12": {
            "number": 12,
            "title": "Widget spins backwards",
            "state": "OPEN",
            "labels": ["bug"],
            "comments": [{"author": "kim", "body": "Seen on v2 too."}],
        },
    },
    "pulls": {
        "7": {
            "number": 7,
            "title": "Fix widget rotation",
            "state": "OPEN",
            "isDraft": False,
            "threads": [
                {"id": "PRRT_1", "isResolved": False, "body": "Rename this."},
                {"id": "PRRT_2", "isResolved": False, "body": "Add a test."},
            ],
        },
    },
}
_MANIFEST = {
    "version": 1,
    "repo": {
        "owner": "acme",
        "name": "widgets",
        "full_name": "acme/widgets",
        "default_branch": "main",
    },
    "resources": {
        "issue": {"number": 12},
        "pr": {"number": 7},
        "pr_with_reviews": {"number": 7},
        "pr_thread": {"id": "PRRT_1"},
    },
}


def _ok(data: Any) -> dict[str, Any]:
    return {"ok": True, "data": data, "error": None, "meta": {}}


def _not_found(what: str) -> dict[str, Any]:
    return {"ok": False, "data": None, "error": {"code": "NOT_FOUND", "message": what}, "meta": {}}


class ExampleSession:
    """One item's private copy of the example world."""

    def __init__(self) -> None:
        self.state = copy.deepcopy(_SEED)
        self.env: dict[str, str] = {}

    def run_task(self, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
        issue = self.state["issues"].get(str(input.get("issueNumber")))
        pull = self.state["pulls"].get(str(input.get("prNumber")))
        if task == "repo.view":
            return _ok(dict(self.state["repo"]))
        if task == "issue.view":
            return (
                _ok({k: issue[k] for k in ("number", "title", "state", "labels")})
                if issue
                else _not_found("issue")
            )
        if task == "issue.comments.list":
            return _ok({"items": list(issue["comments"])}) if issue else _not_found("issue")
        if task == "pr.view":
            return (
                _ok({k: pull[k] for k in ("number", "title", "state", "isDraft")})
                if pull
                else _not_found("pull request")
            )
        if task == "pr.comments.list":
            if not pull:
                return _not_found("pull request")
            threads = [
                t for t in pull["threads"] if not (input.get("unresolvedOnly") and t["isResolved"])
            ]
            return _ok({"items": threads})
        if task == "pr.comment.resolve":
            for pr in self.state["pulls"].values():
                for thread in pr["threads"]:
                    if thread["id"] == input.get("threadId"):
                        thread["isResolved"] = True
                        return _ok({"id": thread["id"], "isResolved": True})
            return _not_found("review thread")
        return {
            "ok": False,
            "data": None,
            "meta": {},
            "error": {"code": "UNSUPPORTED", "message": f"example backend lacks {task}"},
        }

    def close(self) -> None:
        pass


class ExampleBackend:
    name = "example"

    def manifest(self) -> dict[str, Any]:
        return copy.deepcopy(_MANIFEST)

    def open_session(self, item_id: str, workdir: Path) -> ExampleSession:
        return ExampleSession()


# Illustrative per-mode costs of one tool round trip: (context tokens, tool calls, ms).
_MODE_SHAPE = {"agent_direct": (2400, 3, 9000), "mcp": (5200, 2, 7000), "ghx": (1300, 1, 4500)}


class ExampleAdapter:
    """Performs the ideal plan through the backend and answers with the envelope."""

    name = "example"
    modes = tuple(_MODE_SHAPE)
    model = "example/scripted"

    def run(self, request: gb.RunRequest) -> gb.RunResult:
        assert request.backend is not None
        scenario = request.scenario
        context, calls, ms = _MODE_SHAPE[request.mode]
        if scenario.kind == "workflow":
            listed = request.backend.run_task(
                "pr.comments.list", {**request.input, "unresolvedOnly": True}
            )
            for thread in listed["data"]["items"]:
                request.backend.run_task("pr.comment.resolve", {"threadId": thread["id"]})
            answer = "Resolved every open review thread."
            calls += len(listed["data"]["items"])
        else:
            envelope = dict(request.backend.run_task(scenario.task, request.input))
            envelope["meta"] = {"route_used": "cli"} if request.mode == "ghx" else {}
            answer = json.dumps(envelope)
        words = len(request.prompt.split()) + len(request.instructions.split())
        return gb.RunResult(
            final_text=answer,
            tokens=gb.Tokens(
                input=context + 2 * words, output=60 + len(answer) // 8, cache_read=context // 2
            ),
            tool_calls=[gb.ToolCall(name="bash", arguments={"step": i}) for i in range(calls)],
            latency_ms=float(ms + 25 * words),
            cost_usd=round((context + 2 * words) * 1.25e-6, 6),
        )


def pytest_ghxbench_adapters(config: pytest.Config) -> list[Any]:
    return [ExampleAdapter()]


def pytest_ghxbench_backends(config: pytest.Config) -> list[Any]:
    return [ExampleBackend()]
