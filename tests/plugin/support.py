"""Building blocks for end-to-end tests: a scripted adapter and a small in-test backend.

The adapter's behaviour per scenario and mode comes from ``behaviour.json`` in the test
directory, so each test states exactly what the "agent" does:

    {"<scenario id>": {"<mode or *>": {"tokens": {...}, "tool_calls": 2, "latency_ms": 900,
                                        "answer": "<text>" | {...}, "raise": "msg",
                                        "report_error": "HTTP 503 ... (a reported runner error)",
                                        "sleep": 0.5, "fail_attempts": 1, "exit": 1,
                                        "action": ["task", {input}], "cost": 0.01}}}

Without an explicit ``answer`` the adapter performs the scenario's task on the backend and
answers with the resulting envelope (plus ``meta.route_used = "cli"``).
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

CONFTEST = textwrap.dedent(
    '''
    import copy, json, os, time
    from pathlib import Path

    import pytest_ghxbench as gb

    HERE = Path(__file__).parent
    ATTEMPTS = {}


    class World:
        """A tiny GitHub: one repo, one issue with comments, one PR with review threads."""

        def __init__(self):
            self.state = {
                "repo": {"name": "demo", "owner": "acme", "stars": 3},
                "issues": {"7": {"number": 7, "title": "Crash", "state": "OPEN", "comments": []}},
                "threads": [{"id": "T1", "resolved": False}, {"id": "T2", "resolved": False}],
                "reviews": [],
            }

        def run_task(self, task, input):
            s = self.state
            if task == "repo.view":
                return {"ok": True, "data": dict(s["repo"]), "error": None, "meta": {}}
            if task == "issue.view":
                issue = s["issues"].get(str(input.get("issueNumber")))
                if issue is None:
                    return {"ok": False, "data": None,
                            "error": {"code": "NOT_FOUND", "message": "no such issue"}, "meta": {}}
                return {"ok": True, "data": {k: issue[k] for k in ("number", "title", "state")},
                        "error": None, "meta": {}}
            if task == "issue.comments.create":
                s["issues"]["7"]["comments"].append(input.get("body", ""))
                return {"ok": True, "data": {"created": True}, "error": None, "meta": {}}
            if task == "issue.comments.list":
                return {"ok": True, "data": {"items": list(s["issues"]["7"]["comments"])},
                        "error": None, "meta": {}}
            if task == "pr.comment.resolve":
                for t in s["threads"]:
                    if t["id"] == input.get("threadId"):
                        t["resolved"] = True
                return {"ok": True, "data": {"resolved": True}, "error": None, "meta": {}}
            if task == "pr.comments.list":
                items = [t for t in s["threads"]
                         if not (input.get("unresolvedOnly") and t["resolved"])]
                return {"ok": True, "data": {"items": items}, "error": None, "meta": {}}
            return {"ok": False, "data": None,
                    "error": {"code": "UNKNOWN_TASK", "message": task}, "meta": {}}


    class Session:
        def __init__(self):
            self.world = World()
            self.env = {"DEMO_BACKEND": "1"}

        def run_task(self, task, input):
            return self.world.run_task(task, input)

        def close(self):
            pass


    class DemoBackend:
        name = "demo"

        def manifest(self):
            path = HERE / "manifest.json"
            if path.exists():
                return json.loads(path.read_text())
            return {"repo": {"owner": "acme", "name": "demo", "full_name": "acme/demo"},
                    "resources": {"issue": {"number": 7}, "pr": {"number": 1}}}

        def open_session(self, item_id, workdir):
            return Session()


    def behaviour(scenario_id, mode):
        path = HERE / "behaviour.json"
        table = json.loads(path.read_text()) if path.exists() else {}
        per = table.get(scenario_id, table.get("*", {}))
        merged = dict(per.get("*", {}))
        merged.update(per.get(mode, {}))
        return merged


    class ScriptedAdapter:
        name = "scripted"
        modes = ("agent_direct", "mcp", "ghx")

        def run(self, request):
            b = behaviour(request.scenario.id, request.mode)
            key = (request.item_id)
            ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
            failing = ATTEMPTS[key] <= b.get("fail_attempts", 0)
            if "exit" in b:
                os._exit(b["exit"])
            if b.get("only_iteration", request.iteration) != request.iteration:
                b = {k: v for k, v in b.items() if k not in ("raise", "sleep")}
            if "sleep" in b and (failing or not b.get("fail_attempts")):
                time.sleep(b["sleep"])
            if "raise" in b and (failing or not b.get("fail_attempts")):
                raise RuntimeError(b["raise"])
            if "report_error" in b and (failing or not b.get("fail_attempts")):
                return gb.RunResult(error=b["report_error"])
            if "echo_env" in b:
                answer = json.dumps({"ok": True, "data": {"seen": os.environ.get(b["echo_env"])},
                                     "error": None, "meta": {"route_used": "cli"}})
            elif "answer" in b:
                answer = b["answer"]
                if not isinstance(answer, str) and not b.get("raw"):
                    answer = json.dumps(answer)
            elif request.scenario.kind == "workflow":
                for task, inp in b.get("actions", []):
                    request.backend.run_task(task, {**request.input, **inp})
                answer = "done"
            else:
                envelope = request.backend.run_task(request.scenario.task, dict(request.input))
                envelope = copy.deepcopy(dict(envelope))
                envelope["meta"] = {**envelope.get("meta", {}), "route_used": "cli"}
                answer = "Here you go:\\n```json\\n" + json.dumps(envelope) + "\\n```"
            if b.get("repeat"):
                answer = answer * b["repeat"]
            tokens = b.get("tokens", {"input": 1000, "output": 100, "cache_read": 0})
            calls = [gb.ToolCall(name="bash", arguments={"command": "gh x"})
                     for _ in range(b.get("tool_calls", 1))]
            return gb.RunResult(
                final_text=answer, tokens=gb.Tokens(**tokens), tool_calls=calls,
                cost_usd=b.get("cost"), latency_ms=b.get("latency_ms"),
                model="test/scripted-1",
            )


    def pytest_ghxbench_adapters(config):
        return [ScriptedAdapter()]


    def pytest_ghxbench_backends(config):
        return [DemoBackend()]
    '''
)

INI = textwrap.dedent(
    """
    [pytest]
    ghx_adapter = scripted
    ghx_backend = demo
    """
)


def atomic(scenario_id: str, task: str = "repo.view", **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": scenario_id,
        "name": f"scenario {scenario_id}",
        "task": task,
        "input": {},
        "prompt_template": "Execute task {{task}} with input {{input_json}}.",
        "timeout_ms": 60000,  # above every latency a test reports (a longer one is impossible)
        "allowed_retries": 0,
        "assertions": {
            "expected_outcome": "success",
            "required_fields": ["ok", "data", "error", "meta"],
            "required_meta_fields": ["route_used"],
            "expected_route_used": "cli",
            "require_tool_calls": True,
            "min_tool_calls": 1,
        },
        "tags": ["demo"],
    }
    data.update(overrides)
    return data


def setup_project(
    pytester: Any,
    scenarios: list[dict[str, Any]],
    behaviour: dict[str, Any] | None = None,
    sets: dict[str, list[str]] | None = None,
) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makeini(INI)
    root = pytester.path / "scenarios"
    root.mkdir(exist_ok=True)
    for scenario in scenarios:
        (root / f"{scenario['id']}.json").write_text(json.dumps(scenario, indent=2))
    if sets is not None:
        (root / "scenario-sets.json").write_text(json.dumps(sets))
    if behaviour is not None:
        (pytester.path / "behaviour.json").write_text(json.dumps(behaviour))


def read_rows(pytester: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted((pytester.path / ".ghxbench" / "runs").glob("run_*/rows.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


def summary(pytester: Any) -> dict[str, Any]:
    latest = pytester.path / ".ghxbench" / "runs" / "latest"
    data: dict[str, Any] = json.loads((latest / "summary.json").read_text())
    return data
