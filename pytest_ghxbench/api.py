"""The public extension API: what an adapter receives and returns, and what a backend provides.

Everything here is re-exported from :mod:`pytest_ghxbench`; users import it as
``import pytest_ghxbench as gb``. Keep this module small and stable.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, model_validator

__all__ = [
    "Adapter",
    "AdapterUnavailable",
    "Backend",
    "BackendSession",
    "ModeSpec",
    "RunRequest",
    "RunResult",
    "Tokens",
    "ToolCall",
    "Usage",
]


class Tokens(BaseModel):
    """Token usage: of one agent session (:class:`RunResult`), of one row on disk, of a sum.

    One type from the adapter to the rows file. ``total`` is the sum of the five counts unless
    given (rows imported from other harnesses carry their own); ``a + b`` adds every count.
    Counts are whole numbers >= 0; anything else is a ``ValidationError`` naming the field.
    Other keys (a row from another harness may carry its own) are kept, not added.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    input: NonNegativeInt = 0
    output: NonNegativeInt = 0
    reasoning: NonNegativeInt = 0
    cache_read: NonNegativeInt = 0
    cache_write: NonNegativeInt = 0
    total: NonNegativeInt = 0

    @model_validator(mode="before")
    @classmethod
    def _derive_total(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "total" not in data:
            parts = [data.get(name, 0) for name in _TOKEN_PARTS]
            if all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
                return {**data, "total": sum(parts)}
        return data

    @property
    def active(self) -> int:
        """Tokens the model actually had to process: everything but cache reads."""
        return self.total - self.cache_read

    def __add__(self, other: Tokens) -> Tokens:
        if not isinstance(other, Tokens):
            return NotImplemented
        return Tokens(
            **{
                name: getattr(self, name) + getattr(other, name)
                for name in (*_TOKEN_PARTS, "total")
            }
        )


_TOKEN_PARTS = ("input", "output", "reasoning", "cache_read", "cache_write")


class Usage(BaseModel):
    """What agent sessions used: their :class:`Tokens` and what they cost in USD.

    One type for an item and for a sum of items (``a + b``): a row's usage is
    :attr:`pytest_ghxbench.Row.usage` (its ``tokens`` and ``cost``), and the spending limits
    (``--ghx-budget-usd``, ``--ghx-budget-tokens``) add up rows' usages. The cost is finite and
    >= 0; anything else is a ``ValidationError`` naming the field.
    """

    model_config = ConfigDict(frozen=True)

    tokens: Tokens = Tokens()
    cost_usd: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0

    @property
    def active_tokens(self) -> int:
        """Tokens the model had to process (:attr:`Tokens.active`): what the token budget counts."""
        return self.tokens.active

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(tokens=self.tokens + other.tokens, cost_usd=self.cost_usd + other.cost_usd)


@dataclass(frozen=True)
class ToolCall:
    """One tool invocation made by the agent."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    duration_ms: float | None = None
    ok: bool = True
    output: str | None = None


@dataclass
class RunResult:
    """What an adapter reports about one agent session.

    ``error`` is a runner error message (the agent could not run to completion); leave it
    ``None`` when the agent ran, even if its answer is wrong: the harness judges the answer.
    ``cost_usd`` of ``None`` means "derive it" (price table if the harness has one, else 0).

    Timing has one definition for every adapter (``docs/metrics.md``, "Latency"):
    ``startup_ms`` is from starting the runtime to the moment it is ready and receives the
    prompt (MCP server start included); ``latency_ms`` is from that moment to the final answer,
    on the harness's monotonic clock (:class:`time.monotonic`); ``sdk_latency_ms`` is the
    duration the runtime itself reports, kept for reference. An adapter that leaves
    ``latency_ms`` at ``None`` gets the wall time of :meth:`Adapter.run` minus ``startup_ms``.

    Durations (ms, tool calls' included), ``cost_usd``, ``timing_breakdown``'s values and the
    counts are finite and >= 0; ``tool_calls`` is a list or tuple of :class:`ToolCall` whose
    ``arguments`` are mappings. A result that breaks this (a field of the wrong type, a
    negative, NaN or infinite number) is the item's runner error, one line naming the field.
    """

    final_text: str | None = None
    tokens: Tokens = field(default_factory=Tokens)
    tool_calls: Sequence[ToolCall] = ()
    cost_usd: float | None = None
    latency_ms: float | None = None
    startup_ms: float | None = None
    sdk_latency_ms: float | None = None
    session_id: str | None = None
    model: str | None = None
    api_calls: int | None = None
    internal_retry_count: int = 0
    timing_breakdown: Mapping[str, float] | None = None
    transcript: Any = None
    error: str | None = None


@dataclass(frozen=True)
class ModeSpec:
    """One tool interface: an entry of the mode table (SPEC 18), built-in or declared in
    ``[tool.ghxbench.modes.<name>]``.

    ``kind`` ``"cli"``: ``program`` (a name on ``PATH`` or a path) is on the item's ``PATH``
    under :attr:`cli_name`, the one client the agent's shell tool may run; ``env`` (template
    values rendered per item) is in the agent's environment. ``kind`` ``"mcp"``: ``command`` is
    the stdio server's command line, registered with the runtime under the mode's ``name``;
    ``env`` reaches only the server. ``client``: the id the item's token for this interface is
    issued to (the mode's name for a declared mode). ``instructions``: what the agent is told
    (``None``: the default for the mode)."""

    name: str
    kind: Literal["cli", "mcp"]
    program: str | None = None
    command: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    instructions: str | None = None
    builtin: bool = False
    client: str = ""
    where: str = ""
    """Where the entry was written (``pyproject.toml: [tool.ghxbench.modes.acme]``), for
    errors; empty for a built-in mode."""

    @property
    def cli_name(self) -> str:
        """The name the agent runs a kind cli mode's program by (its basename)."""
        return Path(self.program or "").name

    @property
    def client_id(self) -> str:
        return self.client or self.name


BUILTIN_MODE_SPECS: Mapping[str, ModeSpec] = {
    "agent_direct": ModeSpec(
        "agent_direct",
        "cli",
        program="gh",
        env={"GH_HOST": "{host}", "GH_TOKEN": "{token}", "GH_REPO": "{repo}"},
        builtin=True,
        client="gh",
    ),
    "mcp": ModeSpec(
        "mcp",
        "mcp",
        command=("github-mcp-server", "stdio"),
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": "{token}", "GITHUB_HOST": "http://{host}"},
        builtin=True,
        client="mcp",
    ),
    "ghx": ModeSpec(
        "ghx",
        "cli",
        program="ghx",
        env={"GH_HOST": "{host}", "GH_TOKEN": "{token}", "GH_REPO": "{repo}"},
        builtin=True,
        client="ghx",
    ),
}
"""The three built-in modes as entries of the mode table (``--ghx-gh``, ``--ghx-mcp-server``
and ``--ghx-ghx`` say which build of their client runs)."""


@runtime_checkable
class BackendSession(Protocol):
    """One item's view of the GitHub world (for the sandbox: a fresh private copy).

    ``env`` holds environment variables the mode's tools need (e.g. a PATH with the mode's
    client, or a token); ``run_task`` executes a capability and returns its result envelope
    ``{"ok": bool, "data": ..., "error": ..., "meta": {...}}``. It is what workflow checkpoints
    are verified with after the agent has finished.

    Optional: ``sandbox_gaps()``, a list of ``{kind, detail, count}``: where the backend's
    answers to the item's requests so far diverged from GitHub's. The harness asks when the
    agent is done and puts it in the row's ``sandbox_gaps`` (empty for a backend without it).
    ``mode_violations``, a list of lines: requests refused because a client the item's mode
    does not offer made them; any makes the row a failed ``mode_violation``.
    """

    env: Mapping[str, str]

    def run_task(self, task: str, input: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def close(self) -> None: ...


@runtime_checkable
class Backend(Protocol):
    """Where GitHub state lives. Contributed through ``pytest_ghxbench_backends``.

    Optional methods: ``preflight(config)`` (once per session before any item, in the process
    that owns the session; raise :class:`AdapterUnavailable` to stop with a usage error) and
    ``describe()`` (one line for the report header)."""

    name: str

    def manifest(self) -> Mapping[str, Any] | None:
        """The fixture manifest the backend provides, or ``None`` if one must be given with
        ``--fixture-manifest``."""
        ...

    def open_session(self, item_id: str, workdir: Path) -> BackendSession:
        """A session for one item; called before the adapter runs, closed after judging.

        A backend whose ``open_session`` also takes a ``mode`` keyword gets the item's mode
        (``agent_direct``, ``mcp``, ``ghx``...), so it can give each mode only its own tools."""
        ...


@dataclass
class RunRequest:
    """Everything an adapter needs to run one item.

    ``input`` is the scenario's input with the fixture bindings applied (what ``prompt`` shows);
    ``env`` holds the variables the mode's tools need (from the backend); ``deadline`` is a
    :func:`time.monotonic` instant, see :meth:`remaining_s`.
    """

    scenario: Any
    mode: str
    prompt: str
    instructions: str
    timeout_s: float
    iteration: int
    workdir: Path
    env: Mapping[str, str]
    backend: BackendSession | None
    input: Mapping[str, Any] = field(default_factory=dict)
    item_id: str = ""
    model: str | None = None
    attempt: int = 1
    deadline: float = field(default=0.0)
    interface: ModeSpec | None = None
    """The mode's entry of the mode table; ``None``: the built-in mode of that name."""

    def __post_init__(self) -> None:
        if not self.deadline:
            self.deadline = time.monotonic() + self.timeout_s

    @property
    def mode_spec(self) -> ModeSpec:
        """The item's interface: what kind of mode it is, its CLI's name or its MCP server's.
        A mode that is neither declared nor built in is a ``ValueError`` naming it."""
        if self.interface is not None:
            return self.interface
        found = BUILTIN_MODE_SPECS.get(self.mode)
        if found is None:
            raise ValueError(
                f"mode {self.mode!r} is not in the mode table (built-in: "
                f"{', '.join(BUILTIN_MODE_SPECS)}; declare others in [tool.ghxbench.modes])"
            )
        return found

    def remaining_s(self) -> float:
        """Seconds left before the item's deadline (never negative)."""
        return max(0.0, self.deadline - time.monotonic())


@runtime_checkable
class Adapter(Protocol):
    """An agent runtime. Optional methods: ``preflight(config)`` (once per session, raise
    :class:`AdapterUnavailable` to stop with a usage error), ``close()``, and
    ``model_endpoints()`` (URLs or ``HOST:PORT`` of the runtime's model: the hosts a jailed
    item may reach besides GitHub)."""

    name: str
    modes: Sequence[str]

    def run(self, request: RunRequest) -> RunResult: ...


class AdapterUnavailable(Exception):
    """Raised by an adapter's or a backend's ``preflight`` when it cannot run in this session."""
