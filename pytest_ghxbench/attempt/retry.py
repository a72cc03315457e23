"""Which failed attempts are retried: only what can be transient.

Every failed attempt gets a *kind*:

- ``timeout``: the agent missed the scenario's deadline (the adapter said so, the harness saw
  the answer arrive late, or pytest-timeout's backstop stopped it);
- ``rate_limit``: the adapter reported HTTP 429 / "rate limit" / "too many requests";
- ``server_error``: the adapter reported an HTTP 5xx ("HTTP 503", "bad gateway",
  "overloaded", ...);
- ``connection``: the adapter reported a connection failure (refused, reset, DNS, ...), or
  ``run`` raised :class:`ConnectionError`;
- ``adapter_bug``: ``run`` raised any other exception, or returned something that is not a
  usable :class:`~pytest_ghxbench.RunResult`: a bug that fails the same way every time;
- ``runner_error``: any other runner error (e.g. a backend that fails to open);
- ``wrong_answer``: the agent ran and its answer or checkpoints did not hold.

A :class:`RetryPolicy` says which kinds are retried and how often: timeouts up to the scenario's
``allowed_retries``; rate limits, 5xx and connection errors (the infrastructure's fault, not the
agent's) up to ``max(allowed_retries, transient_reruns)``. Other kinds are never retried.
Reruns are pytest-rerunfailures' ``flaky`` marker, restricted with ``only_rerun`` to the
exceptions an item raises for a retryable attempt (``TransientFailure``, ``TransientTimeout``
in :mod:`pytest_ghxbench.attempt.failures`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

TIMEOUT = "timeout"
RATE_LIMIT = "rate_limit"
SERVER_ERROR = "server_error"
CONNECTION = "connection"
ADAPTER_BUG = "adapter_bug"
RUNNER_ERROR = "runner_error"
WRONG_ANSWER = "wrong_answer"

KINDS = (TIMEOUT, RATE_LIMIT, SERVER_ERROR, CONNECTION, ADAPTER_BUG, RUNNER_ERROR, WRONG_ANSWER)
TRANSIENT_KINDS = (TIMEOUT, RATE_LIMIT, SERVER_ERROR, CONNECTION)
INFRASTRUCTURE_KINDS = (RATE_LIMIT, SERVER_ERROR, CONNECTION)

# Defaults until options.py carries them (ini ``ghx_retry_on`` / ``ghx_transient_reruns``).
DEFAULT_RETRY_ON: frozenset[str] = frozenset(TRANSIENT_KINDS)
DEFAULT_TRANSIENT_RERUNS = 2

# pytest-rerunfailures matches ``only_rerun`` patterns against "<ExceptionName>: <message>".
RERUN_PATTERN = r"^Transient(?:Failure|Timeout): "

_RATE_LIMIT = re.compile(r"\b429\b|rate[ _-]?limit|too many requests", re.IGNORECASE)
_SERVER_ERROR = re.compile(
    r"\b(?:HTTP|status(?: code)?|code)[ :=]*5\d\d\b|\b5\d\d (?:Internal|Bad Gateway|Service"
    r"|Gateway)|internal server error|bad gateway|service unavailable|gateway time-?out"
    r"|\boverloaded",
    re.IGNORECASE,
)
_CONNECTION = re.compile(
    r"connection (?:refused|reset|aborted|error|closed)|\w*ConnectionError|ConnectionResetError"
    r"|remote end closed|broken pipe|name resolution|name or service not known"
    r"|network is unreachable|ECONNRESET|ECONNREFUSED",
    re.IGNORECASE,
)
_TIMEOUT = re.compile(r"\b(timeout|timed out|stall|stalled)\b", re.IGNORECASE)


def classify_message(message: str) -> str:
    """The kind of a runner error the adapter reported (``RunResult.error``) or the harness
    found (a late answer, a backend that failed to open)."""
    if _RATE_LIMIT.search(message):
        return RATE_LIMIT
    if _SERVER_ERROR.search(message):
        return SERVER_ERROR
    if _CONNECTION.search(message):
        return CONNECTION
    if _TIMEOUT.search(message):
        return TIMEOUT
    return RUNNER_ERROR


def classify_exception(exc: BaseException) -> str:
    """The kind of an exception ``Adapter.run`` raised: the operating system's connection and
    timeout errors can be transient; anything else is the adapter's own bug."""
    if isinstance(exc, ConnectionError):
        return CONNECTION
    if isinstance(exc, TimeoutError):
        return TIMEOUT
    return ADAPTER_BUG


@dataclass(frozen=True)
class RetryPolicy:
    retry_on: frozenset[str] = DEFAULT_RETRY_ON
    transient_reruns: int = DEFAULT_TRANSIENT_RERUNS

    def budget(self, kind: str | None, allowed_retries: int) -> int:
        """How many reruns an item may have after a failure of this kind."""
        if kind is None or kind not in self.retry_on:
            return 0
        if kind in INFRASTRUCTURE_KINDS:
            return max(allowed_retries, self.transient_reruns)
        if kind == TIMEOUT:
            return allowed_retries
        return 0

    def max_reruns(self, allowed_retries: int) -> int:
        """The most reruns any failure of an item may get (the ``flaky`` marker's count)."""
        return max((self.budget(kind, allowed_retries) for kind in KINDS), default=0)

    def retries(self, kind: str | None, allowed_retries: int, attempt: int) -> bool:
        """Whether attempt number ``attempt`` (1 = the first), failed with ``kind``, gets
        another one."""
        return attempt <= self.budget(kind, allowed_retries)


def parse_retry_on(value: str | list[str] | tuple[str, ...]) -> frozenset[str]:
    """``"timeout,rate_limit"`` (or a list of lines) → kinds; ``"none"`` → no kind.
    Raises ValueError naming the valid kinds."""
    items = value.replace(",", " ").split() if isinstance(value, str) else list(value)
    names = {item.strip() for item in items if item.strip()}
    if names <= {"none"}:
        return frozenset()
    unknown = sorted(names - set(TRANSIENT_KINDS) - {"all"})
    if unknown:
        raise ValueError(
            f"unknown retry kind(s) {', '.join(unknown)}; valid: {', '.join(TRANSIENT_KINDS)}, "
            "all or none"
        )
    return frozenset(TRANSIENT_KINDS) if "all" in names else frozenset(names)


_POLICY_KEY: pytest.StashKey[RetryPolicy] = pytest.StashKey()
RETRY_ON_INI = "ghx_retry_on"
TRANSIENT_RERUNS_INI = "ghx_transient_reruns"


def _ini(config: pytest.Config, name: str) -> Any:
    """The command-line option of that dest when given, else the ini setting; None when
    neither is registered (the module default applies)."""
    given = config.getoption(name, None)
    if given is not None:
        return given
    try:
        return config.getini(name)
    except ValueError:
        return None


def retry_policy(config: pytest.Config) -> RetryPolicy:
    """The session's policy: ``--ghx-retry-on`` / ``ghx_retry_on`` and
    ``--ghx-transient-reruns`` / ``ghx_transient_reruns`` when registered and set, else the
    module defaults. Invalid values are usage errors."""
    policy = config.stash.get(_POLICY_KEY, None)
    if policy is not None:
        return policy
    retry_on, reruns = DEFAULT_RETRY_ON, DEFAULT_TRANSIENT_RERUNS
    raw_on = _ini(config, RETRY_ON_INI)
    if raw_on not in (None, "", []):
        try:
            retry_on = parse_retry_on(raw_on)
        except ValueError as exc:
            raise pytest.UsageError(f"ghxbench: {RETRY_ON_INI}: {exc}") from exc
    raw_reruns = _ini(config, TRANSIENT_RERUNS_INI)
    if raw_reruns not in (None, ""):
        try:
            reruns = int(raw_reruns)
            if reruns < 0:
                raise ValueError
        except (TypeError, ValueError):
            raise pytest.UsageError(
                f"ghxbench: {TRANSIENT_RERUNS_INI}: expected a whole number >= 0, "
                f"got {raw_reruns!r}"
            ) from None
    policy = config.stash[_POLICY_KEY] = RetryPolicy(frozenset(retry_on), reruns)
    return policy
