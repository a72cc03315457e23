"""``gemini -p <prompt> --output-format stream-json``, parsed into a RunResult.

Every item runs Gemini CLI with a private ``GEMINI_CLI_HOME`` whose ``settings.json``
(:mod:`.settings`) gives it the mode's interface and nothing else, by the mode's kind: kind
``cli``, the shell tool for the mode's program alone (``tools.core``:
``run_shell_command(<program>)``); kind ``mcp``, the mode's MCP server registered under the
mode's name and trusted, its tools and no built-in tool. Approval mode ``yolo`` (headless mode
has nobody to ask; the allowlist still refuses anything else), the working directory trusted
(``--skip-trust``), no telemetry, usage statistics, update check or IDE.

Timing (``docs/metrics.md``): started just before the spawn, ready at the arrival of the
``init`` event (after the MCP servers connected and listed their tools), answered at the
arrival of the ``result`` event; ``sdk_latency_ms`` is the result's ``duration_ms``. Tokens
are the result's ``stats``; ``api_calls`` counts the completed responses in the session's chat
recording (:mod:`.recording`), the retried requests (stderr notices) and a refused last one.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.agent_process import (
    ProcessOutcome,
    no_result_message,
    process_transcript,
    run_agent_process,
    timeout_message,
)
from pytest_ghxbench.adapters.gemini.recording import Recording, read_recording
from pytest_ghxbench.adapters.gemini.settings import (
    DEFAULT_ENDPOINT,
    HOME_DIR_NAME,
    RUNTIME_PREFIXES,
    header_values,
    item_settings,
    runtime_environment,
    workspace_override,
    write_settings,
)
from pytest_ghxbench.adapters.gemini.stream import (
    GeminiStream,
    api_error,
    retry_notices,
    stats_tokens,
)
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

__all__ = ["GeminiAdapter", "GeminiStream", "gemini_argv"]

CREDENTIAL_VAR = "GEMINI_API_KEY"
PASSTHROUGH_VARS = ("XDG_CONFIG_HOME",)
MCP_ISSUES = "MCP issues detected"
"""What Gemini CLI prints (once) when an MCP server failed to connect or list its tools; it
then goes on without them."""
CONFIG_KEYS = ("binary", "model", "extra_args", "max_attempts")
MAX_ATTEMPTS_LIMIT = 10
"""Gemini CLI refuses more attempts per model request than this."""


def gemini_argv(binary: str, request: RunRequest, extra_args: Sequence[str] = ()) -> list[str]:
    """The command line for one item. Gemini CLI has no flag that adds to its system prompt,
    so the mode's instructions precede the prompt."""
    prompt = (
        f"{request.instructions}\n\n{request.prompt}" if request.instructions else request.prompt
    )
    argv = [binary, "-p", prompt, "--output-format", "stream-json"]
    argv += ["--approval-mode", "yolo", "--skip-trust"]
    _, model = provider_model(request.model, "google")
    if model:
        argv += ["--model", model]
    return [*argv, *extra_args]


def _secrets(env: Mapping[str, str]) -> list[str]:
    found = {*secret_values(env), *header_values(env.get("GEMINI_CLI_CUSTOM_HEADERS", ""))}
    return sorted((s for s in found if len(s) >= 6), key=len, reverse=True)


def _signature(requested: str | None, reported: str | None) -> str | None:
    # The model as PROVIDER/MODEL: the one asked for, else the one the init event names.
    provider, model = provider_model(requested, "google")
    name = model or reported
    return f"{provider}/{name}" if name else None


class GeminiAdapter:
    """Runs Gemini CLI headless; config: ``[tool.ghxbench.adapters.gemini]`` with ``binary``
    (default ``"gemini"``), ``model`` (``PROVIDER/MODEL``; ``--ghx-model`` wins),
    ``extra_args`` (appended to every command line) and ``max_attempts`` (Gemini CLI's attempts
    per model request, 1 to 10; its default 10 when unset)."""

    name = "gemini"
    modes: Sequence[str] = ("agent_direct", "mcp", "ghx")
    kinds: Sequence[str] = ("cli", "mcp")

    def __init__(self, command: str = "gemini", extra_args: Sequence[str] = ()) -> None:
        self.command = command
        self.extra_args = list(extra_args)
        self.binary: str | None = None
        self.model: str | None = None
        self.version: str | None = None
        self.max_attempts: int | None = None

    def preflight(self, config: Any) -> None:
        """Read the config, find the binary, record its version, check the key is set."""
        table = adapter_table(config, "gemini") if config is not None else {}
        unknown = sorted(set(table) - set(CONFIG_KEYS))
        if unknown:
            raise AdapterUnavailable(
                f"gemini: unknown key(s) in [tool.ghxbench.adapters.gemini]: "
                f"{', '.join(unknown)}; valid: {', '.join(CONFIG_KEYS)}"
            )
        self.command = str(table.get("binary", self.command))
        model = table.get("model")
        self.model = str(model) if model else None
        extra = table.get("extra_args", self.extra_args)
        if not isinstance(extra, list):
            raise AdapterUnavailable("gemini: extra_args must be a list of strings")
        self.extra_args = [str(a) for a in extra]
        attempts = table.get("max_attempts")
        if attempts is not None and (
            not isinstance(attempts, int)
            or isinstance(attempts, bool)
            or not 1 <= attempts <= MAX_ATTEMPTS_LIMIT
        ):
            raise AdapterUnavailable(
                f"gemini: max_attempts must be a whole number from 1 to {MAX_ATTEMPTS_LIMIT}, "
                f"not {attempts!r}"
            )
        self.max_attempts = attempts
        self.check_ready()

    def check_ready(self, environ: Mapping[str, str] | None = None) -> None:
        """The config-free part of :meth:`preflight`."""
        self.binary, self.version = locate_runtime("gemini", self.command, "Gemini CLI")
        env = os.environ if environ is None else environ
        if not env.get(CREDENTIAL_VAR):
            raise AdapterUnavailable(
                f"gemini: {CREDENTIAL_VAR} is not set (the adapter runs Gemini CLI with a "
                "Gemini API key; GOOGLE_GEMINI_BASE_URL points it at another endpoint)"
            )

    def model_endpoints(self) -> list[str]:
        """Where the model is (``GOOGLE_GEMINI_BASE_URL``, else Google's Gemini API): the one
        host besides GitHub that a jailed item reaches."""
        return [os.environ.get("GOOGLE_GEMINI_BASE_URL") or DEFAULT_ENDPOINT]

    def run(self, request: RunRequest) -> RunResult:
        """Run one item and parse its stream; failures become ``RunResult.error``."""
        if request.model is None and self.model:
            request = replace(request, model=self.model)
        try:
            spec = request.mode_spec
        except ValueError as exc:
            return RunResult(error=f"gemini: {exc}")
        if spec.kind not in self.kinds:
            return RunResult(error=f"gemini: mode {spec.name!r} is of unknown kind {spec.kind!r}")
        server = mcp_server_command(request.env) if spec.kind == "mcp" else None
        try:
            settings = item_settings(spec, server, self.max_attempts)
        except ValueError as exc:
            return RunResult(error=f"gemini: mode {spec.name!r}: {exc}")
        cwd = working_directory(request)
        override = workspace_override(cwd)
        if override is not None:
            return RunResult(
                error=f"gemini: the working directory has Gemini CLI workspace settings "
                f"({override}), which would override the item's tools; refusing to run there"
            )
        home = request.workdir / HOME_DIR_NAME
        write_settings(home, settings)
        env = scrubbed_env(
            dict(request.env), passthrough=PASSTHROUGH_VARS, prefixes=RUNTIME_PREFIXES
        )
        env = runtime_environment(env, home)
        binary = self.binary or shutil.which(self.command, path=env.get("PATH")) or self.command
        argv = gemini_argv(binary, request, self.extra_args)
        secrets = _secrets(env)
        stream = GeminiStream(clock=RuntimeClock())
        try:
            outcome = run_agent_process(
                jailed_argv(
                    request, argv, cwd=cwd, runtime=[runtime_root(binary)], writable=[home]
                ),
                env=env,
                cwd=cwd,
                deadline=request.deadline,
                on_line=stream.feed,
            )
        except OSError as exc:
            return RunResult(error=f"gemini: cannot start {binary!r}: {exc}")
        return self._result(request, spec, argv, settings, stream, outcome, home, secrets)

    def _result(
        self,
        request: RunRequest,
        spec: ModeSpec,
        argv: Sequence[str],
        settings: Mapping[str, Any],
        stream: GeminiStream,
        outcome: ProcessOutcome,
        home: Path,
        secrets: Sequence[str],
    ) -> RunResult:
        recording = read_recording(home, stream.session_id)
        retries = retry_notices(outcome.stderr_tail)
        stats = stream.stats
        tokens = stats_tokens(stats) if stats is not None else None
        if tokens is None and recording is not None:
            tokens = recording.tokens()
        transcript = process_transcript(
            argv, self.version, stream.events, stream.garbage, outcome, secrets
        )
        transcript["settings"] = json.loads(redact(json.dumps(settings), secrets))
        # what api_calls was counted from: the completed responses the chat recording lists
        transcript["recorded_responses"] = None if recording is None else recording.responses
        transcript["retry_notices"] = retries
        final = stream.final_text if stream.result is not None else None
        result = RunResult(
            final_text=redact(final, secrets) if final is not None else None,
            tool_calls=stream.all_tool_calls(),
            session_id=stream.session_id,
            model=_signature(request.model, stream.model),
            api_calls=_api_calls(stream, recording, retries),
            internal_retry_count=retries,
            transcript=transcript,
            error=_error(outcome, stream, spec, secrets),
        )
        if tokens is not None:
            result.tokens = tokens
        duration = stats.get("duration_ms") if stats is not None else None
        if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration > 0:
            result.sdk_latency_ms = float(duration)
        stream.clock.apply(result)
        if result.latency_ms is not None:
            tool_ms = sum(call.duration_ms or 0.0 for call in result.tool_calls)
            model_ms = max(0.0, result.latency_ms - tool_ms)
            result.timing_breakdown = {"model_ms": model_ms, "tool_ms": tool_ms}
        return result


def _api_calls(stream: GeminiStream, recording: Recording | None, retries: int) -> int | None:
    """Model requests: completed responses (the chat recording's, else the stream's), the
    requests Gemini CLI retried, and the refused request that ended the session."""
    if recording is None and stream.result is None and not stream.responses:
        return None
    responses = recording.responses if recording is not None else stream.responses
    return responses + retries + (1 if stream.refused_request() else 0)


def _error(
    outcome: ProcessOutcome, stream: GeminiStream, spec: ModeSpec, secrets: Sequence[str]
) -> str | None:
    if outcome.timed_out:
        return timeout_message("gemini", outcome)
    if spec.kind == "mcp" and MCP_ISSUES in outcome.stderr_tail:
        # The item had no interface: a harness failure, not the model's.
        return (
            f"gemini: MCP server {spec.name!r} did not start (Gemini CLI: {MCP_ISSUES}); "
            + redact(outcome.stderr_tail.strip()[-500:], secrets)
        )
    if stream.result is None:
        return no_result_message("gemini", outcome, len(stream.garbage), secrets)
    failure = stream.failure()
    if failure is None:
        return None
    refused = api_error(failure)
    text = f"model API error: {refused}" if refused is not None else failure
    return redact(f"gemini: {text}", secrets)[:2000]
