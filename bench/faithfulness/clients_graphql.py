"""Hand-written GraphQL: a case's step is ``{query, variables}``, POSTed by curl to the item's
GraphQL endpoint (github.com's layout, ``https://api.<GH_HOST>/graphql``) with the item's token,
through the item's proxy and CA (its environment).

``exit`` is 0 when the answer is a JSON object without ``errors`` and the HTTP status is below
400, else 1 (2 when curl itself failed); ``json`` is the whole body, ``status`` the HTTP status.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from cases import Outcome, parse_json, run_process

from pytest_ghxbench.sandbox.backend import SandboxSession


def endpoint(env: dict[str, str]) -> str:
    """The GraphQL URL a client of github.com at ``GH_HOST`` posts to."""
    return f"https://api.{env.get('GH_HOST', 'github.localhost')}/graphql"


def _exit_status(document: Any, status: int | None) -> int:
    if not isinstance(document, dict) or "errors" in document:
        return 1
    return 1 if status is None or status >= 400 else 0


def run_step(step: Any, session: SandboxSession) -> Outcome:
    env = dict(session.env)
    token = env.get("GH_TOKEN") or session.token()
    payload = {"query": step["query"], "variables": step.get("variables") or {}}
    with tempfile.TemporaryDirectory(prefix="faithfulness-graphql-") as scratch:
        request = Path(scratch) / "request.json"
        answer = Path(scratch) / "answer.json"
        request.write_text(json.dumps(payload), encoding="utf-8")
        argv = [
            "curl",
            "--silent",
            "--show-error",
            "--request",
            "POST",
            "--header",
            f"Authorization: bearer {token}",
            "--header",
            "Content-Type: application/json",
            "--data-binary",
            f"@{request}",
            "--output",
            str(answer),
            "--write-out",
            "%{http_code}",
            endpoint(env),
        ]
        ran = run_process(argv, env, Path(scratch))
        body = answer.read_text(encoding="utf-8", errors="replace") if answer.exists() else ""
    if ran.exit != 0:
        return Outcome(2, body + ran.output, parse_json(body))
    code = ran.output.strip()[:3]
    status = int(code) if code.isdigit() else None
    document = parse_json(body)
    return Outcome(_exit_status(document, status), body, document, status)
