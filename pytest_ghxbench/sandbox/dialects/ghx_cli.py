"""The ``ghx`` command line over a sandbox world, shaped like the real ghx CLI.

Three commands::

    ghx run <capability> --input '<json>' [--verbose]     (--input - reads stdin)
    ghx capabilities list [--domain D] [--json]
    ghx capabilities explain <capability>

``run`` prints the result envelope as one line of compact JSON: ``{"ok":true,"data":...}`` or
``{"ok":false,"error":{"code","message"}}``; ``--verbose`` prints the whole envelope with its
``meta`` (``capability_id``, ``route_used``, ``attempts``, ``timings``). Output is compact
because every byte of it is tokens the ``ghx`` mode pays for. Exit status: 0 when ``ok``, 1 on
a capability error (unknown capability, invalid input, missing object...), 2 on a usage error
(the message on stderr names the problem).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    Capability,
    all_capabilities,
    get_capability,
    run_capability,
)
from pytest_ghxbench.sandbox.dialects.result import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CliResult
from pytest_ghxbench.sandbox.state import World

__all__ = ["GHX_USAGE", "CliResult", "example_input", "run_ghx"]

GHX_USAGE = """\
Usage: ghx <command> [flags]

Commands:
  run <capability> --input <json>  Run a capability; --input - reads the JSON from stdin.
                                   Prints {"ok":true,"data":...} or {"ok":false,"error":...};
                                   --verbose adds meta (route, attempts, timings).
  capabilities list [--domain D]   Capability ids, descriptions, [required inputs]; --json
  capabilities explain <id>        Input schema, route and an example input

Exit status: 0 ok, 1 capability error, 2 usage error.
"""


class _UsageError(Exception):
    pass


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


def _usage_error(message: str) -> CliResult:
    return CliResult(EXIT_USAGE, "", f"{message}\nRun 'ghx --help' for usage.\n")


def run_ghx(world: World, argv: Sequence[str], stdin: str = "") -> CliResult:
    """Run one ``ghx`` command line (without the leading ``ghx``) on ``world``.

    ``stdin`` is the text ``--input -`` reads. Mutating capabilities change ``world`` in place;
    the result's ``mutated`` says whether one reached its handler.
    """
    args = list(argv)
    if not args:
        return CliResult(EXIT_USAGE, "", GHX_USAGE)
    command, rest = args[0], args[1:]
    if command in ("-h", "--help", "help"):
        return CliResult(EXIT_OK, GHX_USAGE)
    if "-h" in rest or "--help" in rest:
        return CliResult(EXIT_OK, GHX_USAGE)
    try:
        if command == "run":
            return _run(world, rest, stdin)
        if command == "capabilities":
            return _capabilities(world, rest)
    except _UsageError as exc:
        return _usage_error(str(exc))
    return _usage_error(f"ghx: unknown command {command!r}; expected run or capabilities")


# ------------------------------------------------------------------------------------ run


def _run(world: World, args: list[str], stdin: str) -> CliResult:
    capability_id: str | None = None
    raw_input: str | None = None
    verbose = False
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--verbose":
            verbose = True
        elif arg == "--input" or arg.startswith("--input="):
            if raw_input is not None:
                raise _UsageError("ghx run: --input given more than once")
            if arg == "--input":
                if index >= len(args):
                    raise _UsageError("ghx run: --input needs a value (a JSON object, or -)")
                raw_input = args[index]
                index += 1
            else:
                raw_input = arg.partition("=")[2]
        elif arg.startswith("-") and arg != "-":
            raise _UsageError(f"ghx run: unknown flag {arg!r}")
        elif capability_id is None:
            capability_id = arg
        else:
            raise _UsageError(f"ghx run: unexpected argument {arg!r} after {capability_id!r}")
    if capability_id is None:
        raise _UsageError("ghx run: missing capability id (see 'ghx capabilities list')")
    if raw_input is None:
        raise _UsageError(
            f"ghx run {capability_id}: missing --input (a JSON object, or - to read stdin)"
        )
    source = "stdin" if raw_input == "-" else "--input"
    text = stdin if raw_input == "-" else raw_input
    if not text.strip():
        raise _UsageError(f"ghx run {capability_id}: {source} is empty; expected a JSON object")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _UsageError(
            f"ghx run {capability_id}: {source} is not valid JSON: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno})"
        ) from None
    envelope = run_capability(world, capability_id, value)
    cap = get_capability(capability_id)
    reached_handler = envelope["meta"]["route_used"] is not None
    mutated = cap is not None and cap.mutates and reached_handler
    if verbose:
        shown = envelope
    elif envelope["ok"]:
        shown = {"ok": True, "data": envelope["data"]}
    else:
        shown = {"ok": False, "error": envelope["error"]}
    status = EXIT_OK if envelope["ok"] else EXIT_ERROR
    return CliResult(status, _dump(shown), "", mutated)


# --------------------------------------------------------------------------- capabilities


def _domain(cap: Capability) -> str:
    return cap.id.split(".", 1)[0]


def _required(cap: Capability) -> list[str]:
    return list(cap.input_schema.get("required", []))


def _capabilities(world: World, args: list[str]) -> CliResult:
    if not args:
        raise _UsageError("ghx capabilities: expected 'list' or 'explain <id>'")
    sub, rest = args[0], args[1:]
    if sub == "list":
        return _list(rest)
    if sub == "explain":
        return _explain(world, rest)
    raise _UsageError(f"ghx capabilities: unknown subcommand {sub!r}; expected list or explain")


def _list(args: list[str]) -> CliResult:
    as_json = False
    domain: str | None = None
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--json":
            as_json = True
        elif arg == "--domain" or arg.startswith("--domain="):
            if arg == "--domain":
                if index >= len(args):
                    raise _UsageError("ghx capabilities list: --domain needs a value")
                domain = args[index]
                index += 1
            else:
                domain = arg.partition("=")[2]
        else:
            raise _UsageError(f"ghx capabilities list: unexpected argument {arg!r}")
    caps = all_capabilities()
    if domain is not None:
        domains = sorted({_domain(cap) for cap in caps})
        if domain not in domains:
            raise _UsageError(
                f"ghx capabilities list: unknown domain {domain!r}; "
                f"expected one of {', '.join(domains)}"
            )
        caps = [cap for cap in caps if _domain(cap) == domain]
    if as_json:
        entries = [
            {"capability_id": c.id, "description": c.description, "required_inputs": _required(c)}
            for c in caps
        ]
        return CliResult(EXIT_OK, _dump(entries))
    lines = [f"{c.id}  {c.description} [{', '.join(_required(c))}]\n" for c in caps]
    return CliResult(EXIT_OK, "".join(lines))


def _explain(world: World, args: list[str]) -> CliResult:
    if len(args) != 1 or args[0].startswith("-"):
        raise _UsageError("ghx capabilities explain: expected exactly one capability id")
    cap = get_capability(args[0])
    if cap is None:
        ids = [c.id for c in all_capabilities()]
        close = difflib.get_close_matches(args[0], ids, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        message = f"ghx capabilities explain: unknown capability {args[0]!r}{hint}\n"
        return CliResult(EXIT_ERROR, "", message)
    explained = {
        "capability_id": cap.id,
        "description": cap.description,
        "route": cap.route,
        "mutates": cap.mutates,
        "required_inputs": _required(cap),
        "input_schema": cap.input_schema,
        "example_input": example_input(cap, world),
    }
    return CliResult(EXIT_OK, _dump(explained))


def example_input(cap: Capability, world: World) -> dict[str, Any]:
    """An input object with every required key of ``cap``: a shape to copy, not a real call.

    Keys required by the first branch of an ``anyOf``/``oneOf`` (e.g. "title and/or body")
    are included too. ``owner`` and ``name`` are the world's repository; other strings are
    ``<key>`` placeholders; numbers, enums and defaults come from the schema.
    """
    repo = world.repository
    known = {"owner": repo.owner, "name": repo.name}
    return {
        key: known.get(key, _example_value(key, cap.properties.get(key, {})))
        for key in _example_keys(cap.input_schema)
    }


def _example_keys(schema: Mapping[str, Any]) -> list[str]:
    keys = list(schema.get("required", []))
    branches = [*schema.get("allOf", [])]
    for combinator in ("anyOf", "oneOf"):
        branches += schema.get(combinator, [])[:1]
    for branch in branches:
        keys += [key for key in _example_keys(branch) if key not in keys]
    return keys


def _example_value(key: str, schema: Mapping[str, Any]) -> Any:
    for keyword in ("examples", "enum"):
        values = schema.get(keyword)
        if values:
            return next((v for v in values if v is not None), values[0])
    if "const" in schema:
        return schema["const"]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    kinds = schema.get("type", "string")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    kind = next((k for k in kinds if k != "null"), "null")
    if kind == "integer" or kind == "number":
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    if kind == "array":
        return [_example_value(key, schema.get("items", {}))]
    if kind == "object":
        props = schema.get("properties", {})
        return {
            name: _example_value(name, props.get(name, {})) for name in schema.get("required", [])
        }
    if kind == "null":
        return None
    return f"<{key}>"
