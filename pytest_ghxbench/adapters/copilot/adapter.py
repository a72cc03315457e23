"""``copilot -p <prompt> --output-format json``, parsed into a RunResult (stream: :mod:`.stream`).

GitHub Copilot CLI (1.0.102) runs against the user's own model provider ("BYOK":
``COPILOT_PROVIDER_BASE_URL`` and the other ``COPILOT_*`` variables pass through), offline
(``COPILOT_OFFLINE=true``: no GitHub login, telemetry, web tools, GitHub MCP server or
auto-update; checked: it then makes no request but the model's), with a private
``COPILOT_HOME`` per item and without its built-in MCP servers (``--disable-builtin-mcps``:
GitHub's among them, which would be a GitHub client foreign to every mode).

Each mode gets its interface and nothing else, by kind (``request.mode_spec``):

- kind cli: the ``bash`` tool alone (``--available-tools=bash``), with only commands of the
  mode's program approved (``--allow-tool=shell(<program>:*)``; anything else is refused, as
  ``-p`` has nobody to ask); the shell inherits the item's environment as it is
  (``COPILOT_DISABLE_LOGIN_SHELL_ENV=1``: Copilot otherwise merges a login shell's, whose
  ``PATH`` puts the system's directories first).
- kind mcp: the mode's server registered under the mode's name (``--additional-mcp-config``,
  its command the backend's launcher) and only its tools (``--available-tools=<name>``,
  ``--allow-tool=<name>``); no shell.

A tool's output up to 100 KB reaches the model as it is (Copilot's default saves anything above
20 KB to a file the model would need a file tool to read, which no mode has); the harness's
``COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES`` wins.

Timing (``docs/metrics.md``): started just before the spawn; ready at the arrival of
``user.message`` (Copilot takes the prompt once its MCP servers are up); answered at the
arrival of the final ``assistant.message``. Tokens come from the session's own event log in the
item's ``COPILOT_HOME`` (:func:`.stream.session_usage`).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
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
from pytest_ghxbench.adapters.copilot.runtime import (
    MODEL_VARS,
    PROVIDER_URL,
    item_environment,
    package_cache,
    prepare_runtime,
    runtime_secrets,
)
from pytest_ghxbench.adapters.copilot.stream import NOISE, CopilotStream, session_usage
from pytest_ghxbench.adapters.jailed import jailed_argv, runtime_root
from pytest_ghxbench.adapters.process import (
    adapter_table,
    mcp_server_command,
    provider_model,
    redact,
    working_directory,
)
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import AdapterUnavailable, ModeSpec, RunRequest, RunResult, Tokens

__all__ = ["CopilotAdapter", "CopilotStream", "copilot_argv", "package_cache"]

SHELL_TOOL = "bash"
HOME_DIR = "copilot-home"
"""The item's ``COPILOT_HOME``, in its working directory (config, session logs, logs)."""


def mcp_config(name: str, command: str, args: Sequence[str], env: Mapping[str, str]) -> str:
    """The ``--additional-mcp-config`` JSON registering one stdio server under ``name``."""
    server = {"type": "local", "command": command, "args": list(args), "env": dict(env)}
    return json.dumps({"mcpServers": {name: {**server, "tools": ["*"]}}})


def copilot_argv(
    binary: str, request: RunRequest, spec: ModeSpec, mcp_json: str | None = None
) -> list[str]:
    """The command line for one item; the mode instructions precede the prompt (Copilot has
    no flag that adds to its system prompt)."""
    prompt = (
        f"{request.instructions}\n\n{request.prompt}" if request.instructions else request.prompt
    )
    argv = [binary, "-p", prompt, "--output-format", "json", "--no-auto-update"]
    argv += ["--disable-builtin-mcps"]
    if spec.kind == "mcp":
        argv += ["--additional-mcp-config", mcp_json or "{}"]
        argv += [f"--available-tools={spec.name}", f"--allow-tool={spec.name}"]
    else:
        argv += [f"--available-tools={SHELL_TOOL}", f"--allow-tool=shell({spec.cli_name}:*)"]
    _, model = provider_model(request.model, "openai")
    if model:
        argv += ["--model", model]
    return argv


def _provider(env: Mapping[str, str]) -> str:
    return env.get("COPILOT_PROVIDER_TYPE") or "openai"


def _configured_prices(config: Any) -> dict[str, Any]:
    from pytest_ghxbench.adapters import pricing
    from pytest_ghxbench.options import resolve_settings

    table = resolve_settings(config).tables.get("prices")
    try:
        return dict(pricing.parse_prices(table, "[tool.ghxbench.prices]"))
    except pricing.PriceTableError as exc:
        raise AdapterUnavailable(f"copilot: {exc}") from exc


def _cost(model: str | None, tokens: Tokens, prices: Mapping[str, Any]) -> float | None:
    """From the price table; ``None`` (the harness derives it) without a price. Copilot's own
    ``cost`` is a billing multiplier, 0 for a BYOK provider."""
    from pytest_ghxbench.adapters import pricing

    price = pricing.price_for(model, prices) if model else None
    return None if price is None else pricing.cost_usd(tokens, price)


class CopilotAdapter:
    """Runs GitHub Copilot CLI headless against a BYOK model provider; config:
    ``[tool.ghxbench.adapters.copilot]`` with ``binary`` (default ``"copilot"``), ``model``
    (``PROVIDER/MODEL``) and ``extra_args`` (appended to every command line)."""

    name = "copilot"
    modes: Sequence[str] = ("agent_direct", "mcp", "ghx")
    kinds: Sequence[str] = ("cli", "mcp")

    def __init__(self, command: str = "copilot", extra_args: Sequence[str] = ()) -> None:
        self.command = command
        self.extra_args = list(extra_args)
        self.binary: str | None = None
        self.model: str | None = None  # PROVIDER/MODEL from config; --ghx-model wins
        self.version: str | None = None
        self.prices: dict[str, Any] = {}
        self.cache: Path | None = None
        self._lock = threading.Lock()

    def preflight(self, config: Any) -> None:
        """Find the binary, unpack its package, check that a model provider is configured."""
        table = adapter_table(config, "copilot") if config is not None else {}
        unknown = sorted(set(table) - {"binary", "model", "extra_args"})
        if unknown:
            raise AdapterUnavailable(
                f"copilot: unknown key(s) in [tool.ghxbench.adapters.copilot]: {', '.join(unknown)}"
            )
        self.command = str(table.get("binary", self.command))
        model = table.get("model")
        self.model = str(model) if model else None
        extra = table.get("extra_args", self.extra_args)
        self.extra_args = [str(a) for a in extra] if isinstance(extra, list) else []
        session_model = None
        if config is not None:
            from pytest_ghxbench.options import resolve_settings

            session_model = resolve_settings(config).model
            self.prices = _configured_prices(config)
        self.check_ready(model=session_model or self.model)

    def check_ready(
        self, environ: Mapping[str, str] | None = None, model: str | None = None
    ) -> None:
        """The config-free part of :meth:`preflight`."""
        env = os.environ if environ is None else environ
        if not env.get(PROVIDER_URL):
            raise AdapterUnavailable(
                f"copilot: no model provider: set {PROVIDER_URL} (and COPILOT_PROVIDER_TYPE, "
                "COPILOT_PROVIDER_API_KEY, COPILOT_MODEL; see `copilot help providers`). "
                "GitHub's own model routing needs a GitHub login, which items do not get"
            )
        if not (model or any(env.get(var) for var in MODEL_VARS)):
            raise AdapterUnavailable(
                "copilot: no model: set [tool.ghxbench.adapters.copilot] model, --ghx-model "
                "or COPILOT_MODEL (a BYOK provider needs an explicit model)"
            )
        self._locate(env)

    def _locate(self, env: Mapping[str, str]) -> str:
        with self._lock:
            if self.binary is None:
                binary = shutil.which(self.command, path=env.get("PATH"))
                if binary is None:
                    raise AdapterUnavailable(
                        f"copilot: executable {self.command!r} not found on PATH (install "
                        "@github/copilot or set [tool.ghxbench.adapters.copilot] binary)"
                    )
                cache = package_cache(env)
                version = prepare_runtime(binary, cache)
                if version is None:
                    raise AdapterUnavailable(f"copilot: `{binary} --version` failed")
                self.binary, self.cache, self.version = binary, cache, version
            return self.binary

    def model_endpoints(self) -> list[str]:
        """The BYOK provider's URL: the one host besides GitHub a jailed item reaches."""
        url = os.environ.get(PROVIDER_URL)
        return [url] if url else []

    def run(self, request: RunRequest) -> RunResult:
        """Run one item and parse its stream; failures become ``RunResult.error``."""
        if request.model is None and self.model:
            request = replace(request, model=self.model)
        try:
            spec = request.mode_spec
        except ValueError as exc:
            return RunResult(error=f"copilot: {exc}")
        if spec.kind not in self.kinds or (spec.kind == "cli" and not spec.cli_name):
            return RunResult(error=f"copilot: unsupported mode {request.mode!r} ({spec.kind})")
        try:
            binary = self._locate(os.environ)
        except AdapterUnavailable as exc:
            return RunResult(error=str(exc))
        assert self.cache is not None
        home = request.workdir / HOME_DIR
        home.mkdir(parents=True, exist_ok=True)
        env = item_environment(request.env, home, self.cache)
        config = None
        if spec.kind == "mcp":
            command, args, server_env = mcp_server_command(env)
            config = mcp_config(spec.name, command, args, server_env)
        argv = [*copilot_argv(binary, request, spec, config), *self.extra_args]
        secrets = runtime_secrets(env)
        cwd = working_directory(request)
        stream = CopilotStream(clock=RuntimeClock())
        try:
            outcome = run_agent_process(
                jailed_argv(request, argv, cwd=cwd, runtime=[runtime_root(binary), self.cache]),
                env=env,
                cwd=cwd,
                deadline=request.deadline,
                on_line=stream.feed,
            )
        except OSError as exc:
            return RunResult(error=f"copilot: cannot start {binary!r}: {exc}")
        return self._result(request, spec, env, home, argv, stream, outcome, secrets)

    def _result(
        self,
        request: RunRequest,
        spec: ModeSpec,
        env: Mapping[str, str],
        home: Path,
        argv: Sequence[str],
        stream: CopilotStream,
        outcome: ProcessOutcome,
        secrets: Sequence[str],
    ) -> RunResult:
        usage = session_usage(home, stream.session_id)
        failed = len(stream.failures)
        if usage is not None:
            api_calls: int | None = usage.responses + failed
        else:  # no session log: only a session whose every request failed is still countable
            api_calls = failed if stream.calls_started == failed else None
        provider, model = provider_model(request.model, _provider(env))
        model = stream.model or model or next((env[v] for v in MODEL_VARS if env.get(v)), None)
        name = f"{provider}/{model}" if model else None
        tokens = usage.tokens if usage is not None else Tokens()
        tool_calls = stream.all_tool_calls()
        events = [e for e in stream.events if e.get("type") not in NOISE]
        transcript = process_transcript(
            argv, self.version, events, stream.garbage, outcome, secrets
        )
        transcript["usage_records"] = usage.records if usage is not None else None
        final = stream.final_text if stream.final_text is not None else stream.last_text
        result = RunResult(
            final_text=redact(final, secrets) if final is not None else None,
            tokens=tokens,
            tool_calls=tool_calls,
            cost_usd=_cost(name, tokens, self.prices),
            session_id=stream.session_id,
            model=name,
            api_calls=api_calls,
            internal_retry_count=stream.retries,
            sdk_latency_ms=stream.sdk_duration_ms(),
            transcript=transcript,
        )
        stream.clock.apply(result)
        api_ms = stream.api_duration_ms()
        if api_ms is not None:
            tool_ms = sum(call.duration_ms or 0.0 for call in tool_calls)
            result.timing_breakdown = {"api_ms": api_ms, "tool_ms": tool_ms}
        result.error = _error(outcome, stream, spec, secrets)
        if result.error is not None:
            transcript["copilot_log_tail"] = _log_tail(home, secrets)
        return result


def _log_tail(home: Path, secrets: Sequence[str], lines: int = 40) -> list[str]:
    """The end of the item's Copilot process log (``COPILOT_HOME/logs``), redacted."""
    logs = sorted((home / "logs").glob("*.log"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return []
    try:
        text = logs[-1].read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [redact(line, secrets)[:1000] for line in text.splitlines()[-lines:]]


def _error(
    outcome: ProcessOutcome, stream: CopilotStream, spec: ModeSpec, secrets: Sequence[str]
) -> str | None:
    if outcome.timed_out:
        return timeout_message("copilot", outcome)
    if spec.kind == "mcp" and stream.clock.ready is not None:
        status = stream.mcp_servers.get(spec.name)
        if status != "connected":
            # The item had no interface: a harness failure, not the model's.
            why = stream.mcp_errors.get(spec.name, "")
            return redact(
                f"copilot: MCP server {spec.name!r} did not start (status {status!r})"
                + (f": {why[:1000]}" if why else ""),
                secrets,
            )
    final = stream.result
    if final is None:
        return no_result_message("copilot", outcome, len(stream.garbage), secrets)
    failure = stream.failure_text()
    if failure is not None:
        return redact(f"copilot: {failure}", secrets)[:2000]
    code = final.get("exitCode")
    if code not in (0, None):
        detail = redact(outcome.stderr_tail.strip()[-500:], secrets)
        return f"copilot: the session ended with exit code {code}" + (
            f": {detail}" if detail else ""
        )
    return None
