"""``claude -p <prompt> --output-format stream-json --verbose``, parsed into a RunResult.

Each mode gets its interface and no other (Claude Code 2.1 flags): a kind cli mode
(agent_direct, ghx, a declared CLI) gets the built-in ``Bash`` tool alone (``--tools Bash``)
with only its program's commands approved (``--allowedTools "Bash(gh:*)"``; anything else is
refused, as ``-p`` has nobody to ask); a kind mcp mode gets no built-in tool at all
(``--tools ""``) and the item's MCP server, registered under the mode's name (``--mcp-config``,
``--strict-mcp-config``), whose tools are approved.

Timing (``docs/metrics.md``): started just before the spawn, ready at the arrival of the
``system``/``init`` event (after MCP servers connected), answered at the arrival of the
``result`` event. The runtime's own ``duration_ms`` is ``sdk_latency_ms``. The stream itself
is read by :class:`~pytest_ghxbench.adapters.claude_code.stream.ClaudeStream`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pytest_ghxbench.adapters.agent_process import (
    no_result_message,
    process_transcript,
    run_agent_process,
    timeout_message,
)
from pytest_ghxbench.adapters.claude_code.stream import ClaudeStream
from pytest_ghxbench.adapters.jailed import jailed_argv, runtime_root
from pytest_ghxbench.adapters.process import (
    adapter_table,
    locate_runtime,
    mcp_server_command,
    provider_model,
    redact,
    scrubbed_env,
    secret_values,
    working_directory,
)
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import AdapterUnavailable, ModeSpec, RunRequest, RunResult

__all__ = ["ClaudeCodeAdapter", "ClaudeStream", "claude_argv"]

CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")
PASSTHROUGH_VARS = ("XDG_CONFIG_HOME",)
RUNTIME_PREFIXES = ("CLAUDE_", "ANTHROPIC_")
"""The runtime's own settings (``ANTHROPIC_BASE_URL``, ``CLAUDE_CODE_MAX_RETRIES``, ...) and
credentials reach it; their secret values are redacted from everything recorded."""
DEFAULT_ENDPOINT = "https://api.anthropic.com"


def claude_argv(
    binary: str, request: RunRequest, mcp_config: Mapping[str, Any] | None = None
) -> list[str]:
    """The command line for one item: the prompt, the stream format, the mode's tools."""
    argv = [binary, "-p", request.prompt, "--output-format", "stream-json", "--verbose"]
    if request.instructions:
        argv += ["--append-system-prompt", request.instructions]
    spec = request.mode_spec
    if spec.kind == "mcp":
        argv += ["--mcp-config", json.dumps(dict(mcp_config or {})), "--strict-mcp-config"]
        argv += ["--tools", "", "--allowedTools", f"mcp__{spec.name}"]
    else:
        argv += ["--tools", "Bash", "--allowedTools", f"Bash({spec.cli_name}:*)"]
    _, model = provider_model(request.model, "anthropic")
    if model:
        argv += ["--model", model]
    return argv


def _signature(reported: str | None, requested: str | None) -> str | None:
    # The model the runtime says it used, as PROVIDER/MODEL.
    provider, model = provider_model(requested, "anthropic")
    return f"{provider}/{reported or model}" if (reported or model) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class ClaudeCodeAdapter:
    """Runs Claude Code headless; config: ``[tool.ghxbench.adapters.claude-code]`` with
    ``binary`` (default ``"claude"``) and ``extra_args`` (appended to every command line)."""

    name = "claude-code"
    modes: Sequence[str] = ("agent_direct", "mcp", "ghx")
    kinds: Sequence[str] = ("cli", "mcp")

    def __init__(self, command: str = "claude", extra_args: Sequence[str] = ()) -> None:
        self.command = command
        self.extra_args = list(extra_args)
        self.binary: str | None = None
        self.model: str | None = None  # PROVIDER/MODEL from config; --ghx-model wins
        self.version: str | None = None

    def preflight(self, config: Any) -> None:
        """Find the binary, record its version, check that credentials are present."""
        table = adapter_table(config, "claude-code", "claude_code") if config is not None else {}
        self.command = str(table.get("binary", self.command))
        model = table.get("model")
        self.model = str(model) if model else None
        extra = table.get("extra_args", self.extra_args)
        self.extra_args = [str(a) for a in extra] if isinstance(extra, list) else []
        self.check_ready()

    def check_ready(self, environ: Mapping[str, str] | None = None) -> None:
        """The config-free part of :meth:`preflight`."""
        import os

        self.binary, self.version = locate_runtime("claude-code", self.command, "Claude Code")
        env = os.environ if environ is None else environ
        if not any(env.get(var) for var in CREDENTIAL_VARS) and not os.path.isdir(
            os.path.join(env.get("HOME", ""), ".claude")
        ):
            raise AdapterUnavailable(
                "claude-code: no credentials: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN), "
                "or log in with `claude` once"
            )

    def model_endpoints(self) -> list[str]:
        """Where the runtime's model is (``ANTHROPIC_BASE_URL``, else Anthropic's API): the
        one host besides GitHub that a jailed item reaches."""
        import os

        return [os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ENDPOINT]

    def run(self, request: RunRequest) -> RunResult:
        """Run one item and parse its stream; failures become ``RunResult.error``."""
        if request.model is None and self.model:
            request = replace(request, model=self.model)
        try:
            spec = request.mode_spec
        except ValueError as exc:
            return RunResult(error=f"claude-code: {exc}")
        env = scrubbed_env(
            dict(request.env), passthrough=PASSTHROUGH_VARS, prefixes=RUNTIME_PREFIXES
        )
        binary = self.binary or shutil.which(self.command, path=env.get("PATH")) or self.command
        mcp_config = None
        if spec.kind == "mcp":
            command, args, server_env = mcp_server_command(env)
            mcp_config = {
                "mcpServers": {spec.name: {"command": command, "args": args, "env": server_env}}
            }
        argv = [*claude_argv(binary, request, mcp_config), *self.extra_args]
        secrets = secret_values(env)
        headers = env.get("ANTHROPIC_CUSTOM_HEADERS", "")  # "Name: value" lines, e.g. a bearer
        secrets += [line.partition(":")[2].strip() for line in headers.splitlines()]
        secrets = sorted({s for s in secrets if len(s) >= 6}, key=len, reverse=True)
        clock = RuntimeClock()
        stream = ClaudeStream(clock=clock)
        cwd = working_directory(request)
        try:
            outcome = run_agent_process(
                jailed_argv(request, argv, cwd=cwd, runtime=[runtime_root(binary)]),
                env=env,
                cwd=cwd,
                deadline=request.deadline,
                on_line=stream.feed,
            )
        except OSError as exc:
            return RunResult(error=f"claude-code: cannot start {binary!r}: {exc}")
        transcript = process_transcript(
            argv, self.version, stream.events, stream.garbage, outcome, secrets
        )
        result = RunResult(
            final_text=None,
            tokens=stream.tokens(),
            tool_calls=stream.all_tool_calls(),
            api_calls=stream.api_calls(),
            session_id=stream.session_id,
            model=_signature(stream.model, request.model),
            transcript=transcript,
        )
        clock.apply(result)
        final = stream.result
        if final is not None:
            text = final.get("result")
            result.final_text = redact(
                text if isinstance(text, str) else stream.last_text or "", secrets
            )
            result.cost_usd = _number(final.get("total_cost_usd"))
            result.sdk_latency_ms = _number(final.get("duration_ms"))
            api_ms = _number(final.get("duration_api_ms"))
            if api_ms is not None:
                result.timing_breakdown = {"api_ms": api_ms}
            result.session_id = final.get("session_id") or result.session_id
        result.error = self._error(outcome, stream, secrets, spec)
        return result

    def _error(
        self, outcome: Any, stream: ClaudeStream, secrets: Sequence[str], spec: ModeSpec
    ) -> str | None:
        if outcome.timed_out:
            return timeout_message("claude-code", outcome)
        status = stream.mcp_servers.get(spec.name)
        if spec.kind == "mcp" and status is not None and status not in ("connected", "pending"):
            # The item had no interface: a harness failure, not the model's.
            return f"claude-code: MCP server {spec.name!r} did not start (status {status!r})"
        if stream.result is None:
            return no_result_message("claude-code", outcome, len(stream.garbage), secrets)
        text = stream.error_text()
        return None if text is None else "claude-code: " + redact(text, secrets)[:2000]
