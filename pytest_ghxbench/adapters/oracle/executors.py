"""How the oracle performs one capability through each mode's interface.

Every executor appends the tool calls it makes to a :class:`Session` (transcript, tool calls,
measured tool time) and returns the envelope the oracle answers with. An executor that cannot
perform a capability in its mode raises :class:`NoPlan`.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.adapters.oracle.transcript import Transcript
from pytest_ghxbench.api import ToolCall
from pytest_ghxbench.sandbox.capabilities.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "EXECUTORS",
    "NoPlan",
    "Session",
    "compact_json",
    "shell_output",
    "without_timings",
]

Envelope = dict[str, Any]


class NoPlan(Exception):
    """The oracle has no way to perform this capability in this mode."""


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
    """One oracle run: the world it acts on, what it said and did, and the tool time spent."""

    world: World
    transcript: Transcript
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_ms: float = 0.0

    def shell(self, program: str, argv: Sequence[str], run: Callable[..., CliResult]) -> CliResult:
        """Run ``program ARGV...`` through ``run(world, argv)`` as one ``bash`` tool call.

        Measured timings a command prints are zeroed (:func:`without_timings`): tool time
        belongs in the latency, and must not make token counts differ between runs.
        """
        command = shlex.join([program, *argv])
        started = time.perf_counter()
        result = without_timings(run(self.world, list(argv)))
        elapsed = (time.perf_counter() - started) * 1000.0
        output = shell_output(result)
        self._record("bash", {"command": command}, output, elapsed, result.exit_code == 0)
        return result

    def _record(
        self, name: str, arguments: Mapping[str, Any], output: str, ms: float, ok: bool
    ) -> None:
        self.tool_ms += ms
        self.transcript.tool_turn(name, arguments, output)
        self.tool_calls.append(
            ToolCall(name=name, arguments=dict(arguments), duration_ms=ms, ok=ok, output=output)
        )


def _answer(ok: bool, data: Any, error: Any, meta: Mapping[str, Any] | None = None) -> Envelope:
    return {"ok": ok, "data": data, "error": error, "meta": dict(meta or {})}


def _expected(world: World, task: str, input: Mapping[str, Any]) -> Envelope:
    """The capability's own result, computed on a copy of the world when it mutates, so the
    interface's commands stay the only thing that changes the item's world."""
    cap = get_capability(task)
    target = copy.deepcopy(world) if cap is not None and cap.mutates else world
    return run_capability(target, task, input)


# --------------------------------------------------------------------------------- ghx


def run_ghx_step(session: Session, task: str, input: Mapping[str, Any]) -> Envelope:
    """``ghx run <task> --input '<json>' --verbose``: the envelope is the command's output."""
    from pytest_ghxbench.sandbox.dialects.ghx_cli import run_ghx

    argv = ["run", task, "--input", compact_json(input), "--verbose"]
    result = session.shell("ghx", argv, run_ghx)
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
    """The capability's gh plan (one or more command lines); the answer reports what the
    capability returns, unless a command of the plan failed when the capability would not."""
    from pytest_ghxbench.adapters.oracle.plans import gh_plan, reports_by_exit_status

    try:
        from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
    except ImportError as exc:
        raise NoPlan(f"the sandbox gh dialect cannot be imported: {exc}") from exc
    plan = gh_plan(task, input, session.world)
    expected = _expected(session.world, task, input)
    for argv in plan:
        result = session.shell("gh", argv, run_gh)
        if result.exit_code != 0 and not reports_by_exit_status(argv):
            if expected["ok"]:
                shown = (result.stderr or result.stdout).strip()
                message = f"gh {shlex.join(argv)} failed: {shown}"
                return _answer(False, None, {"code": "UNKNOWN", "message": message})
            break
    return _answer(expected["ok"], expected["data"], expected["error"])


# --------------------------------------------------------------------------------- mcp

MCP_EXEC_MODULE = "pytest_ghxbench.sandbox.dialects.mcp_exec"


def run_mcp_step(session: Session, task: str, input: Mapping[str, Any]) -> Envelope:
    """The capability's MCP calls (lookups first where the tool needs ids the input lacks, then
    the call on its direct route); the answer reports the capability's result unless a tool
    reported an error when the capability would not."""
    from pytest_ghxbench.adapters.oracle.mcp_args import mcp_plan

    try:
        mcp_exec = importlib.import_module(MCP_EXEC_MODULE)
    except ImportError as exc:
        missing = f"the sandbox MCP executor ({MCP_EXEC_MODULE}) is not available: {exc}"
        raise NoPlan(missing) from exc
    plan = mcp_plan(task, input, session.world)
    name, arguments = next(plan)
    expected = _expected(session.world, task, input)
    while True:
        started = time.perf_counter()
        outcome = mcp_exec.call_tool(session.world, name, arguments)
        elapsed = (time.perf_counter() - started) * 1000.0
        text = str(outcome.text)
        session._record(name, arguments, text, elapsed, not outcome.is_error)
        if outcome.is_error:
            if expected["ok"]:
                message = f"MCP tool {name} failed: {text.strip()}"
                return _answer(False, None, {"code": "UNKNOWN", "message": message})
            break
        try:
            name, arguments = plan.send(text)
        except StopIteration:
            break
    return _answer(expected["ok"], expected["data"], expected["error"])


Executor = Callable[[Session, str, Mapping[str, Any]], Envelope]

EXECUTORS: Mapping[str, Executor] = {
    "ghx": run_ghx_step,
    "agent_direct": run_gh_step,
    "mcp": run_mcp_step,
}
"""The executor of each mode the oracle drives."""
