"""Write GitHub's REST operations as the sandbox reads them: every operation of GitHub's published
OpenAPI description with its operationId, its query parameters and its JSON request body, each
schema cut down to what a request is checked against (type, enum, properties, required, items,
oneOf/anyOf/allOf, nullable, default). The sandbox binds each route it serves to one of these,
accounts for the parameters it does not evaluate and validates bodies against them; a request
for an operation it does not serve is a gap, and for any other path it is GitHub's own 404.

    python scripts/gen_rest_operations.py [PACKAGE_DIR] [--check]

PACKAGE_DIR defaults to the npm package @octokit/openapi under ``/tmp/npmcache``
(``npm install --prefix /tmp/npmcache @octokit/openapi@23``); its dereferenced
``generated/api.github.com.deref.json`` is read. The output,
``pytest_ghxbench/sandbox/api/rest/github_operations.jsonl``, holds a header object naming its
source, then one operation per line, sorted by path and method. ``--check`` writes nothing and
fails when the committed file differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

PACKAGE = Path("/tmp/npmcache/node_modules/@octokit/openapi")
SPEC = "generated/api.github.com.deref.json"
OUTPUT = (
    Path(__file__).resolve().parent.parent
    / "pytest_ghxbench/sandbox/api/rest/github_operations.jsonl"
)
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_KEPT = ("type", "enum", "required", "nullable", "default", "minimum", "maximum")
_NESTED = ("items", "additionalProperties")
_LISTS = ("oneOf", "anyOf", "allOf")
_DEPTH = 6


def slim(schema: Any, depth: int = 0) -> dict[str, Any]:
    """What of ``schema`` a request is checked against (deeper than a few levels: anything)."""
    if not isinstance(schema, dict) or depth > _DEPTH:
        return {}
    out: dict[str, Any] = {key: schema[key] for key in _KEPT if key in schema}
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {
            name: slim(value, depth + 1) for name, value in schema["properties"].items()
        }
    for key in _NESTED:
        value = schema.get(key)
        if isinstance(value, dict):
            out[key] = slim(value, depth + 1)
        elif isinstance(value, bool):
            out[key] = value
    for key in _LISTS:
        if isinstance(schema.get(key), list):
            out[key] = [slim(value, depth + 1) for value in schema[key]]
    return out


def _operation(path: str, method: str, op: dict[str, Any]) -> dict[str, Any]:
    query = {
        p["name"]: slim(p.get("schema")) for p in op.get("parameters", []) if p.get("in") == "query"
    }
    body: dict[str, Any] | None = None
    content = (op.get("requestBody") or {}).get("content") or {}
    for kind, media in content.items():
        if "json" in kind:
            body = slim(media.get("schema"))
            break
    entry: dict[str, Any] = {"method": method.upper(), "path": path, "id": op["operationId"]}
    if query:
        entry["query"] = query
    if body is not None:
        entry["body"] = body
        entry["body_required"] = bool((op.get("requestBody") or {}).get("required"))
    return entry


def render(package: Path) -> str:
    spec = json.loads((package / SPEC).read_text(encoding="utf-8"))
    meta = json.loads((package / "package.json").read_text(encoding="utf-8"))
    entries = sorted(
        (
            _operation(path, method, op)
            for path, item in spec["paths"].items()
            for method, op in item.items()
            if method in _METHODS
        ),
        key=lambda entry: (entry["path"], entry["method"]),
    )
    header = {
        "generated_by": "scripts/gen_rest_operations.py",
        "source": f"{meta['name']} {meta['version']} {SPEC}",
        "operations": len(entries),
    }
    lines = [json.dumps(header, sort_keys=True)]
    lines += [json.dumps(entry, sort_keys=True, separators=(",", ":")) for entry in entries]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=PACKAGE)
    parser.add_argument("--check", action="store_true", help="only compare with the committed file")
    args = parser.parse_args(argv)
    if not (args.package / SPEC).is_file():
        print(f"no {SPEC} under {args.package}", file=sys.stderr)
        return 2
    text = render(args.package)
    if args.check:
        same = OUTPUT.is_file() and OUTPUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUTPUT} is out of date; run {sys.argv[0]}")
        return 0 if same else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
