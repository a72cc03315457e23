"""The ``openai`` adapter: the built-in agent loop against any OpenAI-compatible endpoint.

Configuration: ``[tool.ghxbench.adapters.openai]`` (see docs/adapters.md), ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY`` and ``--ghx-model=PROVIDER/MODEL``. The API key is held by the client only:
it is never put in results, transcripts or error messages.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import openai

from pytest_ghxbench.adapters.bash_tool import (
    DEFAULT_MAX_OUTPUT_CHARS,
    DEFAULT_TIMEOUT_S,
    BashTool,
    scrubbed_env,
)
from pytest_ghxbench.adapters.jailed import jailed_argv, open_shell, runtime_root
from pytest_ghxbench.adapters.openai_chat.loop import LoopLimits, LoopOutcome, run_loop
from pytest_ghxbench.adapters.openai_chat.tools import BashHost, McpHost
from pytest_ghxbench.adapters.pricing import Price, PriceTableError, parse_prices, session_cost
from pytest_ghxbench.adapters.process import (
    command_words,
    mcp_server_command,
    working_directory,
)
from pytest_ghxbench.adapters.timing import RuntimeClock
from pytest_ghxbench.api import AdapterUnavailable, RunRequest, RunResult
from pytest_ghxbench.isolation.jail import JailError

if TYPE_CHECKING:
    from pytest_ghxbench.isolation.shell import JailShell

__all__ = ["OpenAIAdapter", "OpenAISettings", "settings_from_table"]

_REDACTED = "[REDACTED]"
_WHERE = "[tool.ghxbench.adapters.openai]"


@dataclass(frozen=True)
class OpenAISettings:
    """The adapter's resolved configuration."""

    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    api_key: str | None = None
    limits: LoopLimits = field(default_factory=LoopLimits)
    tool_timeout_s: float = DEFAULT_TIMEOUT_S
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
    preflight_timeout_s: float = 10.0
    mcp_command: tuple[str, ...] | None = None
    prices: Mapping[str, Price] = field(default_factory=dict)


def _number(table: Mapping[str, Any], key: str, default: float, minimum: float) -> float:
    raw = table.get(key, default)
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw < minimum:
        raise AdapterUnavailable(f"{_WHERE} {key}: expected a number >= {minimum}, got {raw!r}")
    return float(raw)


def settings_from_table(
    table: Mapping[str, Any], model: str | None = None, prices: Mapping[str, Any] | None = None
) -> OpenAISettings:
    """Settings from the config table; ``model`` (``--ghx-model``) wins over the table's.
    ``prices`` is ``[tool.ghxbench.prices]``; it wins over the table's own ``prices`` entry."""
    known = {
        "model", "base_url", "api_key_env", "api_key", "max_turns", "max_retries",
        "backoff_base_s", "backoff_max_s", "request_timeout_s", "tool_timeout_s",
        "max_output_chars", "preflight_timeout_s", "mcp_command", "prices",
    }  # fmt: skip
    unknown = sorted(set(table) - known)
    if unknown:
        raise AdapterUnavailable(
            f"{_WHERE}: unknown key(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}"
        )
    configured = table.get("mcp_command")
    command = command_words(configured)
    if configured is not None and command is None:
        raise AdapterUnavailable(
            f"{_WHERE} mcp_command: expected a command line, got {configured!r}"
        )
    try:
        merged = {
            **parse_prices(table.get("prices"), f"{_WHERE}.prices"),
            **parse_prices(prices, "[tool.ghxbench.prices]"),
        }
    except PriceTableError as exc:
        raise AdapterUnavailable(str(exc)) from None
    limits = LoopLimits(
        max_turns=int(_number(table, "max_turns", 20, 1)),
        max_retries=int(_number(table, "max_retries", 4, 0)),
        backoff_base_s=_number(table, "backoff_base_s", 1.0, 0),
        backoff_max_s=_number(table, "backoff_max_s", 30.0, 0),
        request_timeout_s=_number(table, "request_timeout_s", 120.0, 0.001),
    )
    return OpenAISettings(
        model=model or (str(table["model"]) if table.get("model") else None),
        base_url=str(table["base_url"]) if table.get("base_url") else None,
        api_key_env=str(table.get("api_key_env") or "OPENAI_API_KEY"),
        api_key=str(table["api_key"]) if table.get("api_key") else None,
        limits=limits,
        tool_timeout_s=_number(table, "tool_timeout_s", DEFAULT_TIMEOUT_S, 0.001),
        max_output_chars=int(_number(table, "max_output_chars", DEFAULT_MAX_OUTPUT_CHARS, 100)),
        preflight_timeout_s=_number(table, "preflight_timeout_s", 10.0, 0.001),
        mcp_command=tuple(command) if command else None,
        prices=merged,
    )


def _split_model(signature: str) -> tuple[str, str]:
    """("provider/model", API model name); a bare name is taken as an OpenAI model."""
    _, _, name = signature.partition("/")
    if not name:
        return f"openai/{signature}", signature
    return signature, name


class OpenAIAdapter:
    """Chat-completions tool calling through the official ``openai`` SDK."""

    name = "openai"
    modes = ("agent_direct", "mcp", "ghx")
    kinds = ("cli", "mcp")

    def __init__(self, config: Any = None, settings: OpenAISettings | None = None) -> None:
        self._config = config
        self._settings = settings
        self._client: openai.OpenAI | None = None

    @property
    def settings(self) -> OpenAISettings:
        if self._settings is None:
            from pytest_ghxbench.options import resolve_settings

            resolved = resolve_settings(self._config)
            table = resolved.tables.get("adapters", {}).get("openai") or {}
            self._settings = settings_from_table(
                table, resolved.model, resolved.tables.get("prices")
            )
        return self._settings

    @property
    def model(self) -> str | None:
        """The "provider/model" signature recorded in rows."""
        signature = self.settings.model
        return _split_model(signature)[0] if signature else None

    def _api_key(self) -> str:
        settings = self.settings
        key = settings.api_key or os.environ.get(settings.api_key_env)
        if not key:
            raise AdapterUnavailable(
                f"{settings.api_key_env} is not set: export it with your API key (for a local "
                f"server any placeholder works, or set api_key_env / api_key in {_WHERE})"
            )
        return key

    def client(self) -> openai.OpenAI:
        """The SDK client (retries are the loop's, so it can count them)."""
        if self._client is None:
            base_url = self.settings.base_url or os.environ.get("OPENAI_BASE_URL") or None
            self._client = openai.OpenAI(api_key=self._api_key(), base_url=base_url, max_retries=0)
        return self._client

    def preflight(self, config: Any = None) -> None:
        """Credentials present, a model chosen, the endpoint answering; else one clear error."""
        if config is not None and self._config is None:
            self._config = config
        if not self.settings.model:
            raise AdapterUnavailable(
                f"no model: give --ghx-model=PROVIDER/MODEL or set model in {_WHERE}"
            )
        client = self.client()
        key = self._api_key()
        try:
            client.with_options(timeout=self.settings.preflight_timeout_s).models.list()
        except openai.APIError as exc:
            message = f"{type(exc).__name__}: {exc}".replace(key, _REDACTED)
            raise AdapterUnavailable(
                f"the endpoint {client.base_url} does not answer: {message}"
            ) from None

    def run(self, request: RunRequest) -> RunResult:
        settings = self.settings
        if not settings.model:
            return RunResult(error=f"no model: give --ghx-model=PROVIDER/MODEL or set {_WHERE}")
        signature, api_model = _split_model(request.model or settings.model)
        clock = RuntimeClock()
        env = scrubbed_env(request.env)
        cwd = working_directory(request)
        host: BashHost | McpHost
        shell: JailShell | None = None
        try:
            spec = request.mode_spec
        except ValueError as exc:
            return RunResult(error=f"openai: {exc}")
        try:
            if spec.kind == "cli":
                shell = open_shell(request, env, cwd)
                tool = BashTool(
                    spec.cli_name,
                    env,
                    cwd=cwd,
                    timeout_s=settings.tool_timeout_s,
                    max_output_chars=settings.max_output_chars,
                    shell=shell,
                )
                host = BashHost(tool, spec)
            elif spec.kind == "mcp":
                if settings.mcp_command:
                    command = settings.mcp_command
                else:
                    program, args, _ = mcp_server_command(env)
                    command = (program, *args)
                runtime = [runtime_root(command[0])] if settings.mcp_command else []
                argv = jailed_argv(request, command, cwd=cwd, runtime=runtime)
                host = McpHost(argv, env, cwd=cwd, timeout_s=settings.tool_timeout_s)
            else:
                return RunResult(error=f"the openai adapter does not drive mode {request.mode!r}")
        except JailError as exc:
            return RunResult(error=f"openai: {exc}")
        messages: list[dict[str, Any]] = []
        if request.instructions:
            messages.append({"role": "system", "content": request.instructions})
        messages.append({"role": "user", "content": request.prompt})
        try:
            outcome = run_loop(
                self.client(),
                api_model,
                messages,
                host,
                request.deadline,
                settings.limits,
                clock=clock,
            )
        finally:
            if isinstance(host, McpHost):
                host.close()
            if shell is not None:
                shell.close()
        return clock.apply(self._result(outcome, signature, request))

    def _result(self, outcome: LoopOutcome, signature: str, request: RunRequest) -> RunResult:
        key = self._api_key()

        def clean(text: str | None) -> str | None:
            return text.replace(key, _REDACTED) if text else text

        return RunResult(
            final_text=outcome.final_text,
            tokens=outcome.tokens,
            tool_calls=outcome.tool_calls,
            cost_usd=session_cost(signature, outcome.tokens, self.settings.prices),
            model=signature,
            api_calls=outcome.api_calls,
            internal_retry_count=outcome.retries,
            timing_breakdown={"model_ms": outcome.model_ms, "tool_ms": outcome.tool_ms},
            transcript={
                "adapter": "openai",
                "model": signature,
                "mode": request.mode,
                "finished_at": time.time(),
                "messages": outcome.messages,
            },
            error=clean(outcome.error),
        )
