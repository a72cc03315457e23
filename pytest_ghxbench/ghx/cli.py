"""The ``ghx`` command line: capabilities performed over the API of the GitHub it is pointed at.

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

Which GitHub, as gh decides it (:func:`client_from_env`): ``GH_HOST`` (default ``github.com``;
``*.localhost`` hosts are plain HTTP as gh has them), or ``GITHUB_API_URL`` when set; the token
from ``GH_TOKEN``/``GITHUB_TOKEN`` (``GH_ENTERPRISE_TOKEN``/``GITHUB_ENTERPRISE_TOKEN`` first on
other hosts). Proxies and CA bundles come from the usual environment variables.
"""

from __future__ import annotations

import difflib
import itertools
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_ghxbench import bounded_json
from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.ghx.registry import (
    Capability,
    all_capabilities,
    get_capability,
    run_capability,
)

__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_USAGE",
    "GHX_USAGE",
    "CliResult",
    "api_url_for_host",
    "client_from_env",
    "example_input",
    "main",
    "run_ghx",
]

EXIT_OK = 0
EXIT_ERROR = 1
"""The command ran and failed (a capability error, an unknown object...)."""
EXIT_USAGE = 2
"""The command line itself is wrong (unknown subcommand, missing flag, unparsable value)."""

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


@dataclass(frozen=True)
class CliResult:
    """The outcome of one command line: what a terminal would show, and its exit status."""

    exit_code: int
    stdout: str
    stderr: str = ""


class _UsageError(Exception):
    pass


ClientFactory = Callable[[], GitHubClient]


def api_url_for_host(host: str) -> str:
    """The REST root of a GitHub host, as gh derives it."""
    host = host.strip().lower().rstrip("/")
    if host in ("github.com", "api.github.com"):
        return "https://api.github.com"
    if host == "localhost" or host.endswith(".localhost"):
        return f"http://api.{host}"
    return f"https://{host}/api/v3"


def client_from_env(env: Mapping[str, str]) -> GitHubClient:
    """A client of the GitHub ``env`` points at (see the module doc)."""
    host = env.get("GH_HOST", "").strip() or "github.com"
    api_url = env.get("GITHUB_API_URL", "").strip() or api_url_for_host(host)
    names: tuple[str, ...] = ("GH_TOKEN", "GITHUB_TOKEN")
    if host.lower() not in ("github.com", "api.github.com") and not host.endswith(".localhost"):
        names = ("GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", *names)
    token = next((env[name] for name in names if env.get(name)), "")
    return GitHubClient(token, api_url=api_url)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


def _usage_error(message: str) -> CliResult:
    return CliResult(EXIT_USAGE, "", f"{message}\nRun 'ghx --help' for usage.\n")


def run_ghx(
    argv: Sequence[str],
    client: ClientFactory,
    stdin: str = "",
    repo: str | None = None,
) -> CliResult:
    """Run one ``ghx`` command line (without the leading ``ghx``).

    ``client`` makes the API client (only ``run`` needs one); ``stdin`` is the text
    ``--input -`` reads; ``repo`` (``OWNER/NAME``, gh's ``GH_REPO``) fills examples."""
    args = list(argv)
    if not args:
        return CliResult(EXIT_USAGE, "", GHX_USAGE)
    command, rest = args[0], args[1:]
    if command in ("-h", "--help", "help") or "-h" in rest or "--help" in rest:
        return CliResult(EXIT_OK, GHX_USAGE)
    try:
        if command == "run":
            return _run(rest, client, stdin)
        if command == "capabilities":
            return _capabilities(rest, repo)
    except _UsageError as exc:
        return _usage_error(str(exc))
    return _usage_error(f"ghx: unknown command {command!r}; expected run or capabilities")


# ------------------------------------------------------------------------------------ run


def _run(args: list[str], client: ClientFactory, stdin: str) -> CliResult:
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
        value = bounded_json.loads(text)
    except json.JSONDecodeError as exc:
        verdict = (
            "is refused" if isinstance(exc, bounded_json.BoundedJSONError) else "is not valid JSON"
        )
        raise _UsageError(
            f"ghx run {capability_id}: {source} {verdict}: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno})"
        ) from None
    envelope = run_capability(client(), capability_id, value)
    if verbose:
        shown = envelope
    elif envelope["ok"]:
        shown = {"ok": True, "data": envelope["data"]}
    else:
        shown = {"ok": False, "error": envelope["error"]}
    return CliResult(EXIT_OK if envelope["ok"] else EXIT_ERROR, _dump(shown))


# --------------------------------------------------------------------------- capabilities


def _domain(cap: Capability) -> str:
    return cap.id.split(".", 1)[0]


def _required(cap: Capability) -> list[str]:
    return list(cap.input_schema.get("required", []))


def _capabilities(args: list[str], repo: str | None) -> CliResult:
    if not args:
        raise _UsageError("ghx capabilities: expected 'list' or 'explain <id>'")
    sub, rest = args[0], args[1:]
    if sub == "list":
        return _list(rest)
    if sub == "explain":
        return _explain(rest, repo)
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


def _explain(args: list[str], repo: str | None) -> CliResult:
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
        "example_input": example_input(cap, repo),
    }
    return CliResult(EXIT_OK, _dump(explained))


def example_input(cap: Capability, repo: str | None = None) -> dict[str, Any]:
    """An input object with every required key of ``cap``: a shape to copy, not a real call.

    Keys required by the first branch of an ``anyOf``/``oneOf`` (e.g. "title and/or body")
    are included too. ``owner`` and ``name`` come from ``repo`` (``OWNER/NAME``) when given;
    other strings are ``<key>`` placeholders; numbers, enums and defaults come from the schema.
    """
    owner, _, name = (repo or "").partition("/")
    known = {"owner": owner, "name": name} if owner and name else {}
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
    if kind in ("integer", "number"):
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


def _wants_stdin(args: Sequence[str]) -> bool:
    pairs = itertools.pairwise(args)
    return "--input=-" in args or any(a == "--input" and b == "-" for a, b in pairs)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pytest_ghxbench.ghx``: run one command line on this process's GitHub."""
    args = list(sys.argv[1:] if argv is None else argv)
    text = sys.stdin.read() if _wants_stdin(args) and not sys.stdin.isatty() else ""
    env = dict(os.environ)
    result = run_ghx(args, lambda: client_from_env(env), text, env.get("GH_REPO"))
    sys.stdout.write(result.stdout)
    sys.stdout.flush()
    sys.stderr.write(result.stderr)
    return result.exit_code
