"""How the oracle performs one capability through each mode's real interface.

Every executor appends the tool calls it makes to a :class:`Session` (transcript, tool calls,
measured tool time) and returns the envelope the oracle answers with:

- ``ghx``: ``ghx run <id> --input '<json>' --verbose`` on the item's GitHub (the built-in CLI in
  this process, or the configured ghx build as a process); the answer is the printed envelope;
- ``agent_direct``: the capability's gh plan, each command line a real ``gh`` process, or a
  :class:`Shell` command (``git``, a file written with a heredoc) in the item's checkout;
- ``mcp``: the capability's tool calls to the real MCP server the item started.

In ``agent_direct`` and ``mcp`` the answer's ``ok``/``data``/``error`` are the capability's own
result over the API (what the commands showed, in the capability's shape); a mutating
capability computes it on a copy of the world served under a throwaway token, so the
interface's commands stay the only thing that changes the item's world.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import shlex
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_ghxbench.adapters.oracle.transcript import Transcript
from pytest_ghxbench.api import BUILTIN_MODE_SPECS, ModeSpec, ToolCall
from pytest_ghxbench.ghx.cli import CliResult, run_ghx
from pytest_ghxbench.ghx.registry import get_capability, run_capability

if TYPE_CHECKING:
    from pytest_ghxbench.adapters.openai_chat.tools import McpHost
    from pytest_ghxbench.isolation.shell import JailShell
    from pytest_ghxbench.sandbox.backend import SandboxSession
    from pytest_ghxbench.sandbox.state import World

__all__ = [
    "COMMAND_TIMEOUT_S",
    "EXECUTORS",
    "Executor",
    "NoPlan",
    "Session",
    "Shell",
    "compact_json",
    "executor_of",
    "shell_output",
    "without_timings",
]

Envelope = dict[str, Any]
Executor = Callable[["Session", str, Mapping[str, Any]], Envelope]

COMMAND_TIMEOUT_S = 60.0
"""How long one command or tool call of a plan may take."""


class NoPlan(Exception):
    """The oracle has no way to perform this capability in this mode."""


@dataclass(frozen=True)
class Shell:
    """A step of a gh plan that is a shell command line in the item's checkout, as an agent
    with a ``bash`` tool types it: ``git`` commands, a file written with a heredoc. It is
    recorded with the script as the command."""

    script: str


def compact_json(value: Any) -> str:
    """JSON without spaces: what the oracle types into a command line."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def shell_output(result: CliResult) -> str:
    """What a shell tool returns to the agent: stdout, stderr, and a non-zero exit status."""
    text = result.stdout
    if result.stderr:
        text += result.stderr
    if result.exit_code != 0:
        text += f"[exit status {result.exit_code}]\n"
    return text


def without_timings(result: CliResult) -> CliResult:
    """``result`` with the values of a JSON envelope's ``meta.timings`` set to 0."""
    try:
        shown = json.loads(result.stdout)
    except json.JSONDecodeError:
        return result
    meta = shown.get("meta") if isinstance(shown, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("timings"), dict):
        return result
    meta["timings"] = {key: 0 for key in meta["timings"]}
    return dataclasses.replace(result, stdout=compact_json(shown) + "\n")


@dataclass
class Session:
    """One oracle run on one sandbox item: what it said and did, and the tool time spent."""

    item: SandboxSession
    transcript: Transcript
    spec: ModeSpec = BUILTIN_MODE_SPECS["ghx"]
    """The item's mode."""
    mcp: McpHost | None = None
    shell: JailShell | None = None
    """The item's jailed shell, where its processes run (``None``: not isolated)."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_ms: float = 0.0

    @property
    def world(self) -> World:
        return self.item.world

    def process_env(self) -> dict[str, str]:
        """What the item's clients run with: a minimal base and the item's environment."""
        base = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "")}
        return {**base, **self.item.env}

    def run_program(self, name: str, argv: Sequence[str], program: str | None = None) -> CliResult:
        """``name ARGV...`` as a real process in the item's environment, as one ``bash`` call.

        Measured timings a command prints are zeroed (:func:`without_timings`): tool time
        belongs in the latency, and must not make token counts differ between runs."""
        command = shlex.join([name, *argv])
        return self._process(command, [program or name, *argv], self.process_env())

    def run_shell(self, script: str) -> CliResult:
        """``script`` run by ``sh`` in the item's checkout, as one ``bash`` call. Commits are
        dated by the world's clock (``GIT_AUTHOR_DATE``, ``GIT_COMMITTER_DATE``), so their shas,
        and with them the transcript, are the same on every run."""
        clock = self.world.clock
        env = {**self.process_env(), "GIT_AUTHOR_DATE": clock, "GIT_COMMITTER_DATE": clock}
        return self._process(script, ["sh", "-c", script], env)

    def _process(self, command: str, argv: list[str], env: dict[str, str]) -> CliResult:
        name = argv[0]
        started = time.perf_counter()
        if self.shell is not None:  # the jail's shell has the item's environment already
            base = self.process_env()
            extra = [f"{k}={v}" for k, v in env.items() if base.get(k) != v]
            jailed = self.shell.run(["env", *extra, *argv] if extra else argv, COMMAND_TIMEOUT_S)
            if jailed.timed_out:
                stderr = f"{name}: timed out after {COMMAND_TIMEOUT_S:.0f} s\n"
                result = CliResult(124, jailed.stdout, jailed.stderr + stderr)
            else:
                code = 127 if jailed.exit_code is None else jailed.exit_code
                result = CliResult(code, jailed.stdout, jailed.stderr)
            elapsed = (time.perf_counter() - started) * 1000.0
            return self._record_shell(command, without_timings(result), elapsed)
        try:
            done = subprocess.run(
                argv,
                env=env,
                cwd=self.item.working_directory(),
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                stdin=subprocess.DEVNULL,
                timeout=COMMAND_TIMEOUT_S,
                check=False,
            )
            result = CliResult(done.returncode, done.stdout, done.stderr)
        except subprocess.TimeoutExpired:
            result = CliResult(124, "", f"{name}: timed out after {COMMAND_TIMEOUT_S:.0f} s\n")
        except OSError as exc:
            result = CliResult(127, "", f"{name}: {exc.strerror or exc}\n")
        elapsed = (time.perf_counter() - started) * 1000.0
        return self._record_shell(command, without_timings(result), elapsed)

    def run_in_process(
        self, name: str, argv: Sequence[str], result: CliResult, ms: float
    ) -> CliResult:
        """Record a command the oracle ran in this process (the built-in ghx)."""
        return self._record_shell(shlex.join([name, *argv]), without_timings(result), ms)

    def _record_shell(self, command: str, result: CliResult, ms: float) -> CliResult:
        output = shell_output(result)
        self.record("bash", {"command": command}, output, ms, result.exit_code == 0)
        return result

    def record(
        self, name: str, arguments: Mapping[str, Any], output: str, ms: float, ok: bool
    ) -> None:
        self.tool_ms += ms
        self.transcript.tool_turn(name, arguments, output)
        self.tool_calls.append(
            ToolCall(name=name, arguments=dict(arguments), duration_ms=ms, ok=ok, output=output)
        )


def _answer(ok: bool, data: Any, error: Any, meta: Mapping[str, Any] | None = None) -> Envelope:
    return {"ok": ok, "data": data, "error": error, "meta": dict(meta or {})}


def expected_envelope(item: SandboxSession, task: str, input: Mapping[str, Any]) -> Envelope:
    """The capability's own result over the API. A mutating one runs on a copy of the world,
    registered with the server under a throwaway token, so the item's world stays as it is."""
    cap = get_capability(task)
    if cap is None or not cap.mutates:
        return run_capability(item.client(), task, input)
    registry = item.backend.server().registry
    token, _slot = registry.register(copy.deepcopy(item.world), f"{item.item_id}#expected")
    try:
        return run_capability(item.backend.client(token), task, input)
    finally:
        registry.unregister(token)


# --------------------------------------------------------------------------------- ghx


def run_ghx_step(session: Session, task: str, input: Mapping[str, Any]) -> Envelope:
    """``ghx run <task> --input '<json>' --verbose``: the envelope is the command's output."""
    argv = ["run", task, "--input", compact_json(input), "--verbose"]
    program = session.item.backend.clients.cli_program(session.spec)
    if program is None:
        started = time.perf_counter()
        repo = session.world.repository.full_name
        done = run_ghx(argv, session.item.client, repo=repo)
        result = session.run_in_process("ghx", argv, done, (time.perf_counter() - started) * 1000)
    else:
        result = session.run_program("ghx", argv, program)
    try:
        shown = json.loads(result.stdout)
    except json.JSONDecodeError:
        message = (result.stderr or result.stdout).strip() or f"exit status {result.exit_code}"
        return _answer(False, None, {"code": "UNKNOWN", "message": message})
    if not isinstance(shown, dict):
        return _answer(False, None, {"code": "UNKNOWN", "message": result.stdout.strip()})
    return _answer(bool(shown.get("ok")), shown.get("data"), shown.get("error"), shown.get("meta"))


# ---------------------------------------------------------------------------------- gh


def run_gh_step(session: Session, task: str, input: Mapping[str, Any]) -> Envelope:
    """The capability's gh plan as real gh processes; the answer reports what the capability
    returns, unless a command of the plan failed when the capability would not."""
    from pytest_ghxbench.adapters.oracle.plans import gh_plan, reports_by_exit_status

    plan = gh_plan(task, input, session.world)
    expected = expected_envelope(session.item, task, input)
    gh = session.item.backend.clients.cli_program(session.spec)
    for step in plan:
        if isinstance(step, Shell):
            result, shown = session.run_shell(step.script), step.script
        else:
            result, shown = session.run_program("gh", step, gh), shlex.join(["gh", *step])
        if result.exit_code != 0 and not reports_by_exit_status(step):
            if expected["ok"]:
                output = (result.stderr or result.stdout).strip()
                message = f"{shown} failed: {output}"
                return _answer(False, None, {"code": "UNKNOWN", "message": message})
            break
    return _answer(expected["ok"], expected["data"], expected["error"])


# --------------------------------------------------------------------------------- mcp


def run_mcp_step(session: Session, task: str, input: Mapping[str, Any]) -> Envelope:
    """The capability's calls to the item's MCP server (lookups first where a tool needs ids
    the input lacks); the answer reports the capability's result unless a tool reported an
    error when the capability would not. A capability no tool of the server performs is a
    failed answer that names the server and its version."""
    from pytest_ghxbench.adapters.oracle.mcp_plans import NoTool, mcp_plan

    assert session.mcp is not None, "the mcp executor needs the item's MCP server"
    plan = mcp_plan(task, input, session.world)
    try:
        name, arguments = next(plan)
    except NoTool as exc:
        return _answer(
            False, None, {"code": "UNSUPPORTED", "message": _no_tool(session, task, exc)}
        )
    expected = expected_envelope(session.item, task, input)
    while True:
        unfit = _unfit(session.mcp, name, arguments)
        if unfit is not None:
            message = f"{_server_label(session)} cannot perform {task}: {unfit}"
            return _answer(False, None, {"code": "UNSUPPORTED", "message": message})
        started = time.perf_counter()
        reply = session.mcp.call(name, arguments, COMMAND_TIMEOUT_S)
        elapsed = (time.perf_counter() - started) * 1000.0
        session.record(name, arguments, reply.text, elapsed, reply.ok)
        if not reply.ok:
            if expected["ok"]:
                message = f"MCP tool {name} failed: {reply.text.strip()}"
                return _answer(False, None, {"code": "UNKNOWN", "message": message})
            break
        try:
            name, arguments = plan.send(reply.text)
        except StopIteration:
            break
        except NoTool as exc:
            message = _no_tool(session, task, exc)
            return _answer(False, None, {"code": "UNSUPPORTED", "message": message})
    return _answer(expected["ok"], expected["data"], expected["error"])


def _no_tool(session: Session, task: str, exc: Exception) -> str:
    label = _server_label(session)
    if session.spec.builtin:
        return f"{label} cannot perform {task}: it {exc}"
    # the reason names GitHub's MCP server, for which the plans are written
    return f"{label} cannot perform {task}: the oracle has no plan for it (GitHub's server {exc})"


def _unfit(host: McpHost, name: str, arguments: Mapping[str, Any]) -> str | None:
    """Why the server cannot take the plan's call (``None``: it can): the plans are written for
    GitHub's MCP server, and another server may lack the tool or name its arguments otherwise."""
    if name not in host.tool_names:
        return (
            f"it does not list the tool {name} (the server lacks it, or --read-only or "
            "--toolsets hide it)"
        )
    import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies

    schema = host.input_schemas.get(name)
    if not isinstance(schema, Mapping):
        return None
    try:
        jsonschema.validate(dict(arguments), dict(schema))
    except jsonschema.ValidationError as exc:
        where = "/".join(map(str, exc.absolute_path)) or "its arguments"
        return (
            f"its tool {name} does not take the arguments of the oracle's plan, written for "
            f"GitHub's MCP server ({where}: {exc.message})"
        )
    except jsonschema.SchemaError:
        return None
    return None


def _server_label(session: Session) -> str:
    """The server as it says who it is (``initialize``'s ``serverInfo``), and the mode."""
    from pytest_ghxbench.sandbox.clients import MCP_SERVER

    if session.spec.builtin:
        version = session.item.backend.clients.versions().get(MCP_SERVER, "unknown")
        return f"{MCP_SERVER} {version}"
    assert session.mcp is not None
    name, version = session.mcp.server_info
    return f"{name} {version} (mode {session.spec.name})"


def executor_of(spec: ModeSpec) -> Executor | None:
    """How the oracle performs a step in ``spec``'s mode: the MCP plans for any server, the
    gh or ghx plans for a CLI that is gh or ghx; ``None``: no plan is in its words."""
    if spec.kind == "mcp":
        return run_mcp_step
    return {"gh": run_gh_step, "ghx": run_ghx_step}.get(spec.cli_name)


EXECUTORS: Mapping[str, Executor] = {
    "ghx": run_ghx_step,
    "agent_direct": run_gh_step,
    "mcp": run_mcp_step,
}
"""The executor of each mode the oracle drives."""
