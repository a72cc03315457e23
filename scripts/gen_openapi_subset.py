"""Write the response schemas of the REST operations the sandbox serves, taken from GitHub's
published OpenAPI description.

    python scripts/gen_openapi_subset.py [PACKAGE_DIR] [--check]

PACKAGE_DIR defaults to the npm package @octokit/openapi under ``/tmp/npmcache``
(``npm install --prefix /tmp/npmcache @octokit/openapi@23``); its
``generated/api.github.com.json`` is read. The operations are the routes registered in
``pytest_ghxbench.sandbox.api.rest`` (their templates are OpenAPI paths); for each one the
output, ``tests/sandbox/api/data/openapi-subset.json``, holds every response's schema by status
and media type, plus the component schemas they reference (transitively, with ``$ref`` kept
local). OpenAPI 3.0's ``nullable`` becomes JSON Schema's ``null`` type, so the schemas validate
with ``jsonschema`` as they are. A route the description lacks stops the script. ``--check``
writes nothing and fails when the committed file differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_ghxbench.sandbox.api.rest.router import served

PACKAGE = Path("/tmp/npmcache/node_modules/@octokit/openapi")
SPEC = "generated/api.github.com.json"
OUTPUT = Path(__file__).resolve().parent.parent / "tests/sandbox/api/data/openapi-subset.json"
_SCHEMAS = "#/components/schemas/"


class Unservable(Exception):
    """A served route has no operation in the published description."""


def _resolve(spec: dict[str, Any], node: Any) -> Any:
    """Follow a ``$ref`` outside components/schemas (responses, examples...) to its target."""
    while isinstance(node, dict) and "$ref" in node and not node["$ref"].startswith(_SCHEMAS):
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _json_schema(node: Any, used: set[str]) -> Any:
    """``node`` as JSON Schema: ``nullable`` folded into the type, schema refs noted."""
    if isinstance(node, list):
        return [_json_schema(item, used) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        used.add(node["$ref"].removeprefix(_SCHEMAS))
        return {"$ref": node["$ref"]}
    converted = {
        key: _json_schema(value, used)
        for key, value in node.items()
        if key not in ("nullable", "example", "examples", "discriminator", "xml", "properties")
    }
    if "properties" in node:
        converted["properties"] = {
            name: _json_schema(value, used) for name, value in node["properties"].items()
        }
    if not node.get("nullable"):
        return converted
    if "enum" in converted and None not in converted["enum"]:
        converted["enum"] = [*converted["enum"], None]
    if isinstance(converted.get("type"), str):
        converted["type"] = [converted["type"], "null"]
        return converted
    return {"anyOf": [converted, {"type": "null"}]}


def build(package: Path) -> dict[str, Any]:
    spec = json.loads((package / SPEC).read_text(encoding="utf-8"))
    meta = json.loads((package / "package.json").read_text(encoding="utf-8"))
    used: set[str] = set()
    operations: dict[str, Any] = {}
    missing = []
    for entry in sorted(served(), key=lambda r: (r.template, r.method)):
        operation = spec["paths"].get(entry.template, {}).get(entry.method.lower())
        if operation is None:
            missing.append(f"{entry.method} {entry.template}")
            continue
        responses: dict[str, Any] = {}
        for status, response in operation["responses"].items():
            content = _resolve(spec, response).get("content") or {}
            responses[status] = {
                media: _json_schema(_resolve(spec, body.get("schema", {})), used)
                for media, body in sorted(content.items())
            }
        operations[f"{entry.method} {entry.template}"] = {
            "operationId": operation.get("operationId"),
            "responses": responses,
        }
    if missing:
        raise Unservable("not in the published description: " + ", ".join(missing))
    schemas: dict[str, Any] = {}
    pending = sorted(used)
    while pending:
        name = pending.pop()
        if name in schemas:
            continue
        found: set[str] = set()
        schemas[name] = _json_schema(spec["components"]["schemas"][name], found)
        pending += sorted(found - schemas.keys())
    return {
        "source": {
            "package": meta["name"],
            "version": meta["version"],
            "file": SPEC,
            "description_version": spec["info"]["version"],
        },
        "generated_by": "scripts/gen_openapi_subset.py",
        "operations": operations,
        "components": {"schemas": dict(sorted(schemas.items()))},
    }


def render(subset: dict[str, Any]) -> str:
    return json.dumps(subset, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=PACKAGE)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if not (args.package / SPEC).is_file():
        print(f"no {SPEC} under {args.package}", file=sys.stderr)
        return 2
    try:
        text = render(build(args.package))
    except Unservable as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.check:
        if not OUTPUT.is_file() or OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
