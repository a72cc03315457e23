"""``codex exec --json <prompt>``, parsed into a RunResult.

Stream facts used (Codex ``exec --json``): one JSON object per line; ``thread.started`` carries
``thread_id``; ``item.started``/``item.completed`` carry an ``item`` with ``id`` and ``type``
(``agent_message`` with ``text``, ``reasoning``, ``command_execution`` with ``command``,
``aggregated_output``, ``exit_code``, ``status``, ``mcp_tool_call`` with ``server``, ``tool``,
``arguments``, ``status``); ``turn.completed`` carries ``usage`` {``input_tokens``,
``cached_input_tokens``, ``output_tokens``}; ``turn.failed`` and ``error`` report failures.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_ghxbench.adapters.process import (
    JsonLineStream,
    ProcessOutcome,
    adapter_table,
    locate_runtime,
    mcp_server_command,
    process_transcript,
    provider_model,
    redact,
    run_agent_process,
    scrubbed_env,
    secret_values,
    timeout_message,
)
from pytest_ghxbench.api import AdapterUnavailable, RunRequest, RunResult, Tokens, ToolCall

__all__ = ["CodexAdapter", "CodexStream", "codex_argv", "codex_cost"]

MCP_SERVER_NAME = "ghxbench"
CREDENTIAL_VARS = ("OPENAI_API_KEY", "CODEX_API_KEY")
PASSTHROUGH_VARS = (*CREDENTIAL_VARS, "OPENAI_BASE_URL", "CODEX_HOME")
TOOL_ITEM_TYPES = ("command_execution", "mcp_tool_call")


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
    argv = [binary, "exec", "--json", "--skip-git-repo-check", "--cd", str(request.workdir)]
    argv += ["--sandbox", sandbox]
    _, model = provider_model(request.model, "openai")
    if model:
        argv += ["--model", model]
    if request.mode == "mcp" and mcp_server is not None:
        command, args, env = mcp_server
        key = f"mcp_servers.{MCP_SERVER_NAME}"
        argv += ["-c", f"{key}.command={_toml(command)}", "-c", f"{key}.args={_toml(args)}"]
        argv += ["-c", f"{key}.env={_toml(env)}"]
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


@dataclass
class CodexStream(JsonLineStream):
    """Accumulates one ``exec --json`` session; feed it lines with :meth:`feed`."""

    started: dict[str, float] = field(default_factory=dict)
    tool_calls: list[ToolCall] = field(default_factory=list)
    thread_id: str | None = None
    final_text: str | None = None
    turns_completed: int = 0
    failures: list[str] = field(default_factory=list)
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0

    def handle(self, event: dict[str, Any], arrived: float) -> None:
        kind = event.get("type")
        item = event.get("item")
        if kind == "thread.started":
            self.thread_id = event.get("thread_id") or self.thread_id
        elif kind == "item.started" and isinstance(item, dict):
            self.started[str(item.get("id"))] = arrived
        elif kind == "item.completed" and isinstance(item, dict):
            self._completed(item, arrived)
        elif kind == "turn.completed":
            self.turns_completed += 1
            usage = event.get("usage")
            if isinstance(usage, dict):
                self.input_tokens += _int(usage.get("input_tokens"))
                self.cached_tokens += _int(usage.get("cached_input_tokens"))
                self.output_tokens += _int(usage.get("output_tokens"))
        elif kind in ("turn.failed", "error"):
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else event.get("message")
            self.failures.append(f"{kind}: {message}")

    def _completed(self, item: Mapping[str, Any], arrived: float) -> None:
        item_type = item.get("type")
        if item_type == "agent_message" and isinstance(item.get("text"), str):
            self.final_text = item["text"]
            return
        if item_type not in TOOL_ITEM_TYPES:
            return
        began = self.started.pop(str(item.get("id")), None)
        duration = (arrived - began) * 1000.0 if began is not None else None
        if item_type == "command_execution":
            output = item.get("aggregated_output")
            self.tool_calls.append(
                ToolCall(
                    name="command_execution",
                    arguments={"command": item.get("command")},
                    duration_ms=duration,
                    ok=item.get("status") != "failed" and item.get("exit_code") in (0, None),
                    output=output if isinstance(output, str) else None,
                )
            )
        else:
            arguments = item.get("arguments")
            result = item.get("result")
            self.tool_calls.append(
                ToolCall(
                    name=f"mcp__{item.get('server')}__{item.get('tool')}",
                    arguments=arguments if isinstance(arguments, dict) else {},
                    duration_ms=duration,
                    ok=item.get("status") != "failed" and not item.get("error"),
                    output=json.dumps(result) if result is not None else None,
                )
            )

    def tokens(self) -> Tokens:
        # Codex counts cached tokens inside input_tokens; Tokens keeps them apart.
        return Tokens(
            input=max(0, self.input_tokens - self.cached_tokens),
            output=self.output_tokens,
            cache_read=self.cached_tokens,
        )


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


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


class CodexAdapter:
    """Runs ``codex exec``; config: ``[tool.ghxbench.adapters.codex]`` with ``binary``
    (default ``"codex"``), ``sandbox`` (default ``"danger-full-access"``) and ``extra_args``."""

    name = "codex"
    modes: Sequence[str] = ("agent_direct", "mcp", "ghx")

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
        """The config-free part of :meth:`preflight`."""
        self.binary, self.version = locate_runtime("codex", self.command, "Codex")
        env = os.environ if environ is None else environ
        home = env.get("CODEX_HOME") or os.path.join(env.get("HOME", ""), ".codex")
        if not any(env.get(v) for v in CREDENTIAL_VARS) and not os.path.isfile(
            os.path.join(home, "auth.json")
        ):
            raise AdapterUnavailable(
                "codex: no credentials: set OPENAI_API_KEY (or CODEX_API_KEY), "
                "or run `codex login` once"
            )

    def run(self, request: RunRequest) -> RunResult:
        """Run one item and parse its stream; failures become ``RunResult.error``."""
        if request.model is None and self.model:
            request = replace(request, model=self.model)
        if request.mode not in self.modes:
            return RunResult(error=f"codex: unsupported mode {request.mode!r}")
        env = scrubbed_env(dict(request.env), passthrough=PASSTHROUGH_VARS)
        binary = self.binary or shutil.which(self.command, path=env.get("PATH")) or self.command
        server = mcp_server_command(env) if request.mode == "mcp" else None
        argv = [*codex_argv(binary, request, server, self.sandbox)]
        argv[-1:-1] = self.extra_args  # options go before the prompt
        stream = CodexStream()
        secrets = secret_values(env)
        try:
            outcome = run_agent_process(
                argv, env=env, cwd=request.workdir, deadline=request.deadline, on_line=stream.feed
            )
        except OSError as exc:
            return RunResult(error=f"codex: cannot start {binary!r}: {exc}")
        provider, model = provider_model(request.model, "openai")
        tokens = stream.tokens()
        final = stream.final_text
        return RunResult(
            final_text=redact(final, secrets) if final is not None else None,
            tokens=tokens,
            tool_calls=list(stream.tool_calls),
            cost_usd=codex_cost(f"{provider}/{model}" if model else None, tokens, self.prices),
            session_id=stream.thread_id,
            model=f"{provider}/{model}" if model else None,
            api_calls=stream.turns_completed or None,
            transcript=process_transcript(
                argv, self.version, stream.events, stream.garbage, outcome, secrets
            ),
            error=_error(outcome, stream, secrets),
        )


def _error(outcome: ProcessOutcome, stream: CodexStream, secrets: Sequence[str]) -> str | None:
    if outcome.timed_out:
        return timeout_message("codex", outcome)
    if stream.failures:
        return redact(f"codex: {stream.failures[-1]}", secrets)
    if stream.turns_completed == 0 or outcome.returncode != 0:
        detail = redact(outcome.stderr_tail.strip()[-500:], secrets)
        garbage = f"; {len(stream.garbage)} unparseable line(s)" if stream.garbage else ""
        return f"codex {outcome.describe_exit()} without a completed turn{garbage}" + (
            f": {detail}" if detail else ""
        )
    return None
