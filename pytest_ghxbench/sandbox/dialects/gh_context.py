"""Shared plumbing of the sandbox's ``gh`` commands: the run context, repository and number
resolution, capability calls, ``--json`` export and gh's text formatting helpers.

Output follows gh's non-terminal mode (stdout is a pipe when an agent runs it): JSON is
compact with sorted keys, tables are tab-separated without headers, times are RFC 3339.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, TypeVar

from pytest_ghxbench.sandbox.capabilities.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.dialects.gh_args import Command, GhError, Parsed, json_fields_help
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "GhContext",
    "capability_message",
    "dump_json",
    "duration",
    "export_json",
    "fuzzy_ago",
    "list_result",
    "parse_time",
    "pluralize",
    "table",
]

_URL = re.compile(r"^https?://[^/]+/([^/]+)/([^/]+)/(?:pull|issues)/(\d+)(?:[/?#].*)?$")


@dataclass
class GhContext:
    """One ``gh`` invocation: the world it runs against and what it has done to it."""

    world: World
    stdin: str = ""
    mutated: bool = False

    @property
    def full_name(self) -> str:
        return self.world.repository.full_name

    def check_repo(self, parsed: Parsed) -> None:
        """Fail like gh when ``-R`` names a repository other than the world's.

        Without ``-R`` the sandbox behaves as if run inside a clone of the world's repository.
        """
        given = parsed.text("repo")
        if not given:
            return
        self.check_repo_name(given)

    def check_repo_name(self, given: str) -> None:
        text = given.strip().removesuffix(".git")
        text = re.sub(r"^https?://", "", text)
        parts = [p for p in text.split("/") if p]
        if len(parts) == 3:
            parts = parts[1:]
        if len(parts) != 2:
            raise GhError(f'expected the "[HOST/]OWNER/REPO" format, got "{given}"')
        repo = self.world.repository
        if (parts[0].casefold(), parts[1].casefold()) != (
            repo.owner.casefold(),
            repo.name.casefold(),
        ):
            raise GhError(
                f"GraphQL: Could not resolve to a Repository with the name "
                f"'{parts[0]}/{parts[1]}'. (repository)"
            )

    def number_arg(self, selector: str) -> int | None:
        """The number in ``7``, ``#7`` or a pull/issue URL; ``None`` for anything else."""
        text = selector.strip()
        match = _URL.match(text)
        if match:
            self.check_repo_name(f"{match.group(1)}/{match.group(2)}")
            return int(match.group(3))
        text = text.removeprefix("#")
        if text.isdigit():
            return int(text)
        return None

    def call(self, task: str, input: Mapping[str, Any]) -> Any:
        """Run capability ``task`` and return its ``data``; a failure becomes a :class:`GhError`
        with the capability's message (gh prints GitHub's message the same way)."""
        envelope = self.run(task, input)
        if not envelope["ok"]:
            error = envelope["error"] or {}
            raise GhError(str(error.get("message") or f"{task} failed"))
        return envelope["data"]

    def run(self, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
        """Run capability ``task`` and return its result envelope, noting a mutation whenever
        the capability may change the world (even if it then fails)."""
        cap = get_capability(task)
        if cap is not None and cap.mutates:
            self.mutated = True
        return run_capability(self.world, task, input)

    def repo_input(self) -> dict[str, Any]:
        repo = self.world.repository
        return {"owner": repo.owner, "name": repo.name}

    def now(self) -> datetime:
        return parse_time(self.world.clock) or datetime.now(timezone.utc)


def capability_message(error: Mapping[str, Any]) -> str:
    """A failed capability's message as GitHub's APIs word it: without the ``input.field: ``
    prefix that locates the bad field."""
    return re.sub(r"^input(?:\.\w+)*: ", "", str(error.get("message", "")))


def ok(stdout: str = "", stderr: str = "", *, context: GhContext | None = None) -> CliResult:
    """A successful result (``mutated`` taken from the context)."""
    return CliResult(0, stdout, stderr, bool(context and context.mutated))


# ---------------------------------------------------------------- --json


def export_json(
    command: Command, parsed: Parsed, build: Any, *, context: GhContext | None = None
) -> CliResult | None:
    """If ``--json`` was given, the result of exporting ``build(fields)``; otherwise ``None``.

    ``build`` takes the requested field names and returns the value to print (an object or a
    list of objects holding exactly those fields).
    """
    from pytest_ghxbench.sandbox.dialects.gh_jq import JqError, run_jq

    if parsed.has("jq") and not parsed.has("json"):
        raise GhError("cannot use `--jq` without specifying `--json`")
    if parsed.has("template") and not parsed.has("json"):
        raise GhError("cannot use `--template` without specifying `--json`")
    if not parsed.has("json"):
        return None
    fields = [f.strip() for f in parsed.text("json").split(",") if f.strip()]
    if not fields:
        raise GhError(json_fields_help(command.json_fields))
    for name in fields:
        if name not in command.json_fields:
            raise GhError(
                f'Unknown JSON field: "{name}"\nAvailable fields:\n'
                + "".join(f"  {f}\n" for f in sorted(command.json_fields))
            )
    value = build(fields)
    if parsed.has("template"):
        raise GhError("--template is not supported in the sandbox; use --json with --jq")
    if parsed.has("jq"):
        try:
            return ok(run_jq(parsed.text("jq"), value), context=context)
        except JqError as exc:
            raise GhError(str(exc)) from None
    return ok(dump_json(value) + "\n", context=context)


_Item = TypeVar("_Item")


def list_result(
    command: Command,
    parsed: Parsed,
    items: Sequence[_Item],
    getters: Callable[[_Item], Mapping[str, Any]],
    row: Callable[[_Item], Sequence[object]],
    *,
    empty: str,
) -> CliResult:
    """What a ``list`` command prints: the ``--json`` export of ``items`` when asked for, else
    ``empty`` on stderr when there are none, else one table row per item."""
    exported = export_json(
        command, parsed, lambda fields: [pick(fields, getters(i)) for i in items]
    )
    if exported is not None:
        return exported
    if not items:
        return ok(stderr=empty)
    return ok(table([row(item) for item in items]))


def dump_json(value: Any) -> str:
    """JSON the way gh writes it to a pipe: compact, keys sorted, no HTML escaping."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def pick(fields: Sequence[str], getters: Mapping[str, Any]) -> dict[str, Any]:
    """The requested fields of one object, each computed by its getter (called lazily)."""
    return {name: getters[name]() for name in fields}


# ---------------------------------------------------------------- text helpers


def table(rows: Sequence[Sequence[object]]) -> str:
    """gh's table printer on a pipe: tab-separated cells, one row per line, no header."""
    return "".join("\t".join(_cell(c) for c in row) + "\n" for row in rows)


def _cell(value: object) -> str:
    return re.sub(r"\s+", " ", str(value)).strip() if value is not None else ""


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def duration(start: str | None, end: str | None) -> str:
    """Go's ``time.Duration`` text for ``end - start`` (``6m20s``); ``0s`` when unknown."""
    first, last = parse_time(start), parse_time(end)
    if first is None or last is None or last <= first:
        return "0s"
    seconds = int((last - first).total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def pluralize(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def fuzzy_ago(now: datetime, then: str | None) -> str:
    """gh's ``about 2 days ago``."""
    moment = parse_time(then)
    if moment is None:
        return ""
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "less than a minute ago"
    for limit, size, unit in (
        (3600, 60, "minute"),
        (86400, 3600, "hour"),
        (30 * 86400, 86400, "day"),
        (365 * 86400, 30 * 86400, "month"),
    ):
        if seconds < limit:
            return f"about {pluralize(int(seconds // size), unit)} ago"
    return f"about {pluralize(int(seconds // (365 * 86400)), 'year')} ago"
