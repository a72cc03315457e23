"""The ``oracle`` adapter: the reference agent that executes a scenario's ideal plan.

Atomic scenarios: it performs the scenario's capability through the mode's interface and
answers with the result envelope. Workflow scenarios: it performs the scenario's ``oracle``
steps in order and answers with a one-line summary. It needs the sandbox backend, whose item
session exposes the item's world (``request.backend.world``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_ghxbench.adapters.cli_usage import cli_usage
from pytest_ghxbench.adapters.oracle.costs import cost_usd, model_time_ms
from pytest_ghxbench.adapters.oracle.executors import (
    EXECUTORS,
    NoPlan,
    Session,
    compact_json,
    executor_of,
)
from pytest_ghxbench.adapters.oracle.transcript import (
    Transcript,
    account,
    bash_tool,
    function_tool,
)
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import (
    BUILTIN_MODE_SPECS,
    AdapterUnavailable,
    ModeSpec,
    RunRequest,
    RunResult,
)
from pytest_ghxbench.isolation.jail import JailError, jail_failure
from pytest_ghxbench.modes import ModeTable
from pytest_ghxbench.modes.probe import probe_server
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import Clients
from pytest_ghxbench.scenario.prompt import mode_instructions
from pytest_ghxbench.tokens import count_json, count_tokens

if TYPE_CHECKING:
    from pytest_ghxbench.adapters.openai_chat.tools import McpHost
    from pytest_ghxbench.isolation.shell import JailShell

__all__ = [
    "MODEL",
    "OracleAdapter",
    "OracleStepError",
    "resolve_placeholders",
    "tool_definitions",
    "tool_surface_tokens",
]

MODEL = "ghxbench/oracle"

_EXACT = re.compile(r"^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$")
_ANY = re.compile(r"\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}")


class OracleStepError(ValueError):
    """A workflow's ``oracle`` steps cannot be resolved against the bound input."""


def tool_definitions(mode: str | ModeSpec, clients: Clients | None = None) -> list[dict[str, Any]]:
    """The tools the agent is given in ``mode`` (chat-completions ``tools`` format): a ``bash``
    tool described with the real CLI's help, or what the real MCP server lists."""
    spec = BUILTIN_MODE_SPECS.get(mode) if isinstance(mode, str) else mode
    if spec is None:
        raise ValueError(f"the oracle does not drive mode {mode!r}; expected one of {_modes()}")
    if spec.kind == "cli":
        return [bash_tool(cli_usage(spec, clients))]
    return mcp_tool_definitions(clients or Clients(), spec=spec)


def _modes() -> str:
    return ", ".join(EXECUTORS)


_MCP_LISTINGS: dict[tuple[str, ...], list[dict[str, Any]]] = {}


def mcp_tool_definitions(
    clients: Clients, host: McpHost | None = None, spec: ModeSpec | None = None
) -> list[dict[str, Any]]:
    """What the MCP server of ``spec`` (the built-in mcp mode's by default) lists, from
    ``host`` (an item's running server) or, once per process, from a server started with a
    token that reaches nothing."""
    spec = spec or BUILTIN_MODE_SPECS["mcp"]
    command = clients.server_command(spec)
    key = tuple(command)
    if key not in _MCP_LISTINGS:
        if host is not None:
            _MCP_LISTINGS[key] = host.definitions()
        else:
            info = probe_server(spec, command)
            _MCP_LISTINGS[key] = [
                function_tool(str(t["name"]), str(t["description"]), t["inputSchema"])
                for t in info.tools or ()
            ]
    return list(_MCP_LISTINGS[key])


def tool_surface_tokens(
    mode: str | ModeSpec, instructions: str | None = None, clients: Clients | None = None
) -> int:
    """Tokens of what ``mode`` gives the agent before any task: its tool definitions (compact
    JSON) plus its instructions (the default ones unless ``instructions`` is given)."""
    name = mode if isinstance(mode, str) else mode.name
    spec = None if isinstance(mode, str) else mode
    text = mode_instructions(name, spec=spec) if instructions is None else instructions
    return count_json(tool_definitions(mode, clients)) + count_tokens(text)


def resolve_placeholders(value: Any, bound: Mapping[str, Any], where: str = "input") -> Any:
    """``value`` with ``{{key}}`` placeholders replaced from ``bound``.

    A string that is exactly one placeholder becomes the bound value itself (keeping its type);
    placeholders inside longer strings are replaced by the value's text (JSON for non-strings).
    """
    if isinstance(value, str):
        exact = _EXACT.match(value)
        if exact:
            return _lookup(exact.group(1), bound, where)

        def text(match: re.Match[str]) -> str:
            found = _lookup(match.group(1), bound, where)
            return found if isinstance(found, str) else compact_json(found)

        return _ANY.sub(text, value)
    if isinstance(value, Mapping):
        return {k: resolve_placeholders(v, bound, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_placeholders(v, bound, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def _lookup(key: str, bound: Mapping[str, Any], where: str) -> Any:
    if key not in bound:
        known = ", ".join(sorted(bound)) or "none"
        raise OracleStepError(
            f"{where}: placeholder {{{{{key}}}}} names no key of the bound input (keys: {known})"
        )
    return bound[key]


def _steps(request: RunRequest) -> list[tuple[str, dict[str, Any]]]:
    scenario = request.scenario
    if getattr(scenario, "kind", None) != "workflow":
        return [(scenario.task, dict(request.input))]
    oracle = getattr(scenario, "oracle", None)
    if not oracle:
        raise OracleStepError(f"workflow scenario {scenario.id!r} has no 'oracle' steps")
    return [
        (step.task, resolve_placeholders(step.input, request.input, f"oracle[{index}].input"))
        for index, step in enumerate(oracle)
    ]


class OracleAdapter:
    """The reference agent (``--ghx-adapter=oracle``, the default)."""

    name = "oracle"
    modes = tuple(EXECUTORS)
    kinds = ("cli", "mcp")
    """Declared modes too: kind mcp with the MCP plans, kind cli when the program is gh or ghx
    (any other CLI is refused by :meth:`preflight`: the oracle has no plans in its words)."""
    model = MODEL

    def __init__(self) -> None:
        self._modes: ModeTable = ModeTable.builtin()
        self._clients: Clients | None = None

    def preflight(self, config: Any) -> None:
        """The oracle performs plans on the sandbox's world: any other backend is a usage
        error before the first item, not a runner error in every row."""
        from pytest_ghxbench.options import resolve_settings

        settings = resolve_settings(config)
        self._modes = settings.mode_table
        self._clients = Clients(gh=settings.gh, mcp_server=settings.mcp_server, ghx=settings.ghx)
        backend = settings.backend
        if backend != "sandbox":
            raise AdapterUnavailable(
                f"the oracle is the sandbox's reference agent and runs only with "
                f"--ghx-backend=sandbox (got {backend!r}); benchmark a real agent on this "
                "backend with --ghx-adapter (openai, claude-code, codex, opencode or your own)"
            )

    def refuses(self, spec: ModeSpec) -> str | None:
        """Why the oracle cannot run ``spec``'s mode (``None``: it can): a kind cli mode whose
        program is neither gh nor ghx, since its plans are in their words."""
        if executor_of(spec) is not None:
            return None
        return (
            f"the oracle has no plans for mode {spec.name!r} ({spec.where}): it is a kind cli "
            f"mode whose program is {spec.cli_name!r}, and the oracle's CLI plans are in gh's "
            "and ghx's words; run it with a real agent (--ghx-adapter) instead"
        )

    def tool_surface_tokens(self, mode: str, instructions: str | None = None) -> int:
        """Tokens of the tool definitions and instructions ``mode`` gives the agent."""
        return tool_surface_tokens(self._modes.get(mode) or mode, instructions, self._clients)

    def run(self, request: RunRequest) -> RunResult:
        """Perform the scenario's ideal plan through ``request.mode``'s real interface."""
        item = request.backend
        if not isinstance(item, SandboxSession):
            return RunResult(
                model=MODEL,
                error="the oracle adapter needs the sandbox backend (--ghx-backend=sandbox): "
                "the item's backend session is not a sandbox item",
            )
        spec = item.backend.modes.get(request.mode) or request.mode_spec
        executor = executor_of(spec)
        if executor is None:
            return RunResult(model=MODEL, error=f"the oracle does not drive mode {request.mode!r}")
        try:
            steps = _steps(request)
        except OracleStepError as exc:
            return RunResult(model=MODEL, error=str(exc))
        clients = item.backend.clients
        clock = RuntimeClock()
        host: McpHost | None = None
        shell: JailShell | None = None
        try:
            if spec.kind == "mcp":
                host = _start_mcp(item)
            elif clients.cli_program(spec) is not None:
                shell = _start_shell(item)
        except JailError as exc:
            return RunResult(model=MODEL, error=str(exc))
        try:
            if host is not None:
                tools = mcp_tool_definitions(clients, host, spec)
            else:
                tools = tool_definitions(spec, clients)
            clock.mark_ready()
            transcript = Transcript.start(tools, request.instructions, request.prompt)
            session = Session(item, transcript, spec, mcp=host, shell=shell)
            envelopes: list[tuple[str, dict[str, Any]]] = []
            for task, input in steps:
                try:
                    envelopes.append((task, executor(session, task, input)))
                except NoPlan as exc:
                    return RunResult(model=MODEL, error=f"oracle has no {request.mode} plan: {exc}")
                if not envelopes[-1][1]["ok"] and len(steps) > 1:
                    break  # a workflow stops at its first failed step, as a careful agent would
        finally:
            if host is not None:
                host.close()
            if shell is not None:
                shell.close()
        answer = _final_answer(request, envelopes)
        session.transcript.answer(answer)
        result = _result(session, answer)
        result.startup_ms = clock.startup_ms()
        return result


def _start_shell(item: SandboxSession) -> JailShell | None:
    """The item's jailed shell for its gh (or ghx build) commands; ``None``: not isolated."""
    jail = item.jail()
    if jail is None:
        return None
    from pytest_ghxbench.isolation.shell import JailShell

    base = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "")}
    return JailShell(jail, {**base, **item.env}, item.working_directory())


def _start_mcp(item: SandboxSession) -> McpHost:
    """The item's MCP server, started the way every adapter starts it (in its jail, when the
    session isolates items)."""
    from pytest_ghxbench.adapters.openai_chat.tools import McpHost
    from pytest_ghxbench.adapters.process import mcp_server_command

    env = dict(item.env)
    command, args, extra = mcp_server_command(env)
    server_env = {"PATH": env["PATH"], "HOME": env["HOME"], **extra}
    log = item.workdir / "mcp-server.log"
    cwd = item.working_directory()
    jail = item.jail()
    argv = [command, *args] if jail is None else jail.command([command, *args], cwd=cwd)
    try:
        return McpHost(argv, server_env, cwd=cwd, log=log)
    except Exception as exc:
        if jail is not None:
            text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
            failure = jail_failure(text)
            if failure is not None:
                raise JailError(failure) from exc
        raise


def _final_answer(request: RunRequest, envelopes: list[tuple[str, dict[str, Any]]]) -> str:
    if getattr(request.scenario, "kind", None) != "workflow":
        return json.dumps(envelopes[0][1], ensure_ascii=False)
    task, last = envelopes[-1]
    if not last["ok"]:
        error = last.get("error") or {}
        message = error.get("message", "") if isinstance(error, dict) else str(error)
        return f"Stopped at step {len(envelopes)} ({task}), which failed: {message}"
    return "Done: " + ", ".join(task for task, _ in envelopes) + "."


def _result(session: Session, answer: str) -> RunResult:
    transcript = session.transcript
    tokens, turns = account(transcript.tools, transcript.messages)
    model_ms = model_time_ms(tokens, len(turns))
    tool_ms = round(session.tool_ms, 3)
    return RunResult(
        final_text=answer,
        tokens=tokens,
        tool_calls=list(session.tool_calls),
        cost_usd=cost_usd(tokens),
        latency_ms=round(model_ms + tool_ms, 3),
        model=MODEL,
        api_calls=len(turns),
        timing_breakdown={"model_ms": model_ms, "tool_ms": tool_ms},
        transcript=transcript.to_json(),
    )
