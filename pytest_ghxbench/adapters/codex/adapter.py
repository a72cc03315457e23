"""``codex exec --json <prompt>``, parsed into a RunResult (stream: :mod:`.stream`).

Every item runs with ``-c allow_login_shell=false`` (Codex otherwise runs commands through
``bash -lc``, and a login shell's ``/etc/profile`` may reset ``PATH``, losing the item's own
programs and reaching whatever gh the machine has) and without the hosted web search tool; in
mcp items the shell tool is off (``features.shell_tool=false``), so the agent has the MCP
server's tools and no shell, and the item's MCP server is ``required``: Codex starts it before
``thread.started`` (so its start is startup, not latency) and fails the item if it cannot
(otherwise it waits about a second, then goes on without the server's tools).

The user's Codex setup (``$CODEX_HOME``, its ``config.toml`` and the variables it names)
reaches the runtime unchanged (:mod:`.settings`). ``api_calls`` is the completed responses
Codex records in the thread's rollout (:mod:`.rollout`) plus the failed requests the stream
reports; tool durations and ``sdk_latency_ms`` (Codex's own turn duration) come from the
rollout too.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_ghxbench.adapters.agent_process import (
    ProcessOutcome,
    process_transcript,
    run_agent_process,
    timeout_message,
)
from pytest_ghxbench.adapters.codex.rollout import read_rollout
from pytest_ghxbench.adapters.codex.settings import (
    CodexSettings,
    codex_home,
    credentials_problem,
    read_settings,
)
from pytest_ghxbench.adapters.codex.stream import CodexStream
from pytest_ghxbench.adapters.jailed import item_jail, jailed_argv, runtime_root
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
from pytest_ghxbench.api import AdapterUnavailable, RunRequest, RunResult, Tokens
from pytest_ghxbench.isolation.jail import jail_failure

__all__ = ["CodexAdapter", "CodexStream", "codex_argv", "codex_cost"]

CREDENTIAL_VARS = ("OPENAI_API_KEY", "CODEX_API_KEY")
RUNTIME_PREFIXES = ("CODEX_", "OPENAI_")
"""The runtime's own variables, passed through to it (with those its providers name)."""
ITEM_OVERRIDES = ("allow_login_shell=false", 'web_search="disabled"')
"""``-c`` settings of every item: commands run in the item's environment, no web search."""
MCP_OVERRIDES = ("features.shell_tool=false",)
"""``-c`` settings of mcp items: no shell tool (``exec_command``, ``write_stdin``)."""


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)  # JSON strings and arrays of strings are valid TOML


def codex_argv(
    binary: str,
    request: RunRequest,
    mcp_server: tuple[str, list[str], dict[str, str]] | None = None,
    sandbox: str = "danger-full-access",
) -> list[str]:
    """The command line for one item; the instructions precede the prompt."""
    argv = [
        binary,
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--cd",
        str(working_directory(request)),
    ]
    argv += ["--sandbox", sandbox]
    _, model = provider_model(request.model, "openai")
    if model:
        argv += ["--model", model]
    for setting in ITEM_OVERRIDES:
        argv += ["-c", setting]
    spec = request.mode_spec
    if spec.kind == "mcp":
        for setting in MCP_OVERRIDES:
            argv += ["-c", setting]
    if spec.kind == "mcp" and mcp_server is not None:
        command, args, env = mcp_server
        key = f"mcp_servers.{spec.name}"
        argv += ["-c", f"{key}.command={_toml(command)}", "-c", f"{key}.args={_toml(args)}"]
        argv += ["-c", f"{key}.env={_toml(env)}"]
        # Required: Codex starts it before the thread (startup, not latency), and an item whose
        # server fails to start fails instead of running without its tools.
        argv += ["-c", f"{key}.required=true"]
    prompt = (
        f"{request.instructions}\n\n{request.prompt}" if request.instructions else request.prompt
    )
    return [*argv, prompt]


def codex_cost(
    model: str | None, tokens: Tokens, prices: Mapping[str, Any] | None = None
) -> float | None:
    """Cost from the shared price table (:mod:`pytest_ghxbench.adapters.pricing`; ``prices``
    are configured overrides), or ``None`` (the harness derives it) when there is no table,
    no model or no price for it."""
    if not model:
        return None
    try:
        from pytest_ghxbench.adapters import pricing
    except ImportError:
        return None
    price = pricing.price_for(model, prices)
    return None if price is None else pricing.cost_usd(tokens, price)


def _configured_prices(config: Any) -> dict[str, Any]:
    from pytest_ghxbench.options import resolve_settings

    try:
        from pytest_ghxbench.adapters import pricing
    except ImportError:
        return {}
    table = resolve_settings(config).tables.get("prices")
    try:
        return dict(pricing.parse_prices(table, "[tool.ghxbench.prices]"))
    except pricing.PriceTableError as exc:
        raise AdapterUnavailable(f"codex: {exc}") from exc


class CodexAdapter:
    """Runs ``codex exec``; config: ``[tool.ghxbench.adapters.codex]`` with ``binary``
    (default ``"codex"``), ``sandbox`` (default ``"danger-full-access"``) and ``extra_args``."""

    name = "codex"
    modes: Sequence[str] = ("agent_direct", "mcp", "ghx")
    kinds: Sequence[str] = ("cli", "mcp")

    def __init__(self, command: str = "codex", sandbox: str = "danger-full-access") -> None:
        self.command = command
        self.sandbox = sandbox
        self.extra_args: list[str] = []
        self.prices: dict[str, Any] = {}
        self.binary: str | None = None
        self.model: str | None = None  # PROVIDER/MODEL from config; --ghx-model wins
        self.version: str | None = None

    def preflight(self, config: Any) -> None:
        """Find the binary, record its version, check that credentials are present."""
        table = adapter_table(config, "codex") if config is not None else {}
        self.command = str(table.get("binary", self.command))
        model = table.get("model")
        self.model = str(model) if model else None
        self.sandbox = str(table.get("sandbox", self.sandbox))
        self.prices = _configured_prices(config)
        extra = table.get("extra_args", [])
        self.extra_args = [str(a) for a in extra] if isinstance(extra, list) else []
        self.check_ready()

    def check_ready(self, environ: Mapping[str, str] | None = None) -> None:
        """The config-free part of :meth:`preflight`: the binary, and the credentials of the
        model provider the user's Codex config selects (none for a keyless local server)."""
        self.binary, self.version = locate_runtime("codex", self.command, "Codex")
        env = os.environ if environ is None else environ
        problem = credentials_problem(self.settings(env), env, CREDENTIAL_VARS)
        if problem:
            raise AdapterUnavailable(f"codex: {problem}")

    def settings(self, environ: Mapping[str, str] | None = None) -> CodexSettings:
        """The user's Codex settings (``config.toml``, then ``-c`` in ``extra_args``)."""
        return read_settings(os.environ if environ is None else environ, self.extra_args)

    def environment(self, request: RunRequest, settings: CodexSettings) -> dict[str, str]:
        """The item's environment plus the runtime's own variables: ``CODEX_*``, ``OPENAI_*``
        and those its providers name. An item's HOME is private, so ``CODEX_HOME`` points at
        the user's Codex directory when it exists and the variable is not set; in a jail, at
        the item's own copy of that directory's settings (the user's sessions stay out)."""
        extra = dict(request.env)
        if "CODEX_HOME" not in os.environ and settings.home.is_dir():
            extra.setdefault("CODEX_HOME", str(settings.home))
        env = scrubbed_env(
            extra, passthrough=(*CREDENTIAL_VARS, *settings.variables), prefixes=RUNTIME_PREFIXES
        )
        if item_jail(request) is not None and "HOME" in request.env:
            env["CODEX_HOME"] = str(_item_codex_home(settings, Path(request.env["HOME"])))
        return env

    def model_endpoints(self) -> list[str]:
        """Where the selected provider's model is: its ``base_url``, ``OPENAI_BASE_URL``, or
        OpenAI's API (and ChatGPT's, for a ChatGPT login)."""
        table = self.settings().provider_table or {}
        base = table.get("base_url") or os.environ.get("OPENAI_BASE_URL")
        if isinstance(base, str) and base:
            return [base]
        return ["https://api.openai.com", "https://chatgpt.com"]

    def run(self, request: RunRequest) -> RunResult:
        """Run one item and parse its stream; failures become ``RunResult.error``."""
        if request.model is None and self.model:
            request = replace(request, model=self.model)
        try:
            kind = request.mode_spec.kind
        except ValueError as exc:
            return RunResult(error=f"codex: {exc}")
        settings = self.settings()
        env = self.environment(request, settings)
        binary = self.binary or shutil.which(self.command, path=env.get("PATH")) or self.command
        server = mcp_server_command(env) if kind == "mcp" else None
        provider, model = provider_model(request.model, settings.provider)
        argv = [*codex_argv(binary, request, server, self.sandbox)]
        if model and provider != settings.provider and provider in settings.providers:
            argv[-1:-1] = ["-c", f"model_provider={_toml(provider)}"]
        argv[-1:-1] = self.extra_args  # options go before the prompt
        secrets = _secrets(env, settings)
        since = time.time()
        stream = CodexStream(clock=RuntimeClock())
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
            return RunResult(error=f"codex: cannot start {binary!r}: {exc}")
        model = model or settings.model
        name = f"{provider}/{model}" if model else None
        tokens = stream.tokens()
        final = stream.final_text
        rollout = read_rollout(codex_home(env), stream.thread_id, since)
        tool_calls = list(stream.tool_calls)
        if rollout is not None and len(rollout.tool_ms) == len(tool_calls):
            tool_calls = [
                replace(call, duration_ms=ms)
                for call, ms in zip(tool_calls, rollout.tool_ms, strict=True)
            ]
        failed = stream.failed_requests()
        result = RunResult(
            final_text=redact(final, secrets) if final is not None else None,
            tokens=tokens,
            tool_calls=tool_calls,
            cost_usd=codex_cost(name, tokens, self.prices),
            session_id=stream.thread_id,
            model=name,
            api_calls=None if rollout is None else rollout.responses + failed,
            sdk_latency_ms=None if rollout is None else rollout.duration_ms,
            internal_retry_count=stream.retries,
            transcript=process_transcript(
                argv, self.version, stream.events, stream.garbage, outcome, secrets
            ),
            error=_error(outcome, stream, secrets),
        )
        stream.clock.apply(result)
        if result.latency_ms is not None:
            tool_ms = sum(call.duration_ms or 0.0 for call in tool_calls)
            model_ms = max(0.0, result.latency_ms - tool_ms)
            result.timing_breakdown = {"model_ms": model_ms, "tool_ms": tool_ms}
        return result


def _secrets(env: Mapping[str, str], settings: CodexSettings) -> list[str]:
    """Credential-like values of ``env``, and the values of every variable a provider names
    (whatever the variable is called)."""
    named = [env[name] for name in settings.variables if len(env.get(name, "")) >= 6]
    return sorted({*secret_values(env), *named}, key=len, reverse=True)


def _item_codex_home(settings: CodexSettings, home: Path) -> Path:
    """A Codex directory in the item's HOME holding the user's settings and login."""
    target = home / ".codex"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("config.toml", "auth.json"):
        source = settings.home / name
        if source.is_file():
            shutil.copyfile(source, target / name)
    return target


def _error(outcome: ProcessOutcome, stream: CodexStream, secrets: Sequence[str]) -> str | None:
    if outcome.timed_out:
        return timeout_message("codex", outcome)
    jail = jail_failure(outcome.stderr_tail) if stream.turns_completed == 0 else None
    if jail is not None:
        return f"codex: {jail}"
    failure = stream.failure()
    if failure is not None:
        what = "model API error" if stream.failed_requests() else "turn failed"
        return redact(f"codex: {what}: {failure}", secrets)
    if stream.turns_completed == 0 or outcome.returncode != 0:
        detail = stream.notices[-1] if stream.notices else outcome.stderr_tail.strip()[-500:]
        detail = redact(detail, secrets)
        garbage = f"; {len(stream.garbage)} unparseable line(s)" if stream.garbage else ""
        return f"codex {outcome.describe_exit()} without a completed turn{garbage}" + (
            f": {detail}" if detail else ""
        )
    return None
