"""The retry policy: which failures are transient, and how many reruns each kind gets."""

from __future__ import annotations

import pytest

from pytest_ghxbench.attempt import retry
from pytest_ghxbench.attempt.retry import RetryPolicy, classify_exception, classify_message


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("API error after 3 retries: HTTP 429 RateLimitError: slow down", retry.RATE_LIMIT),
        ("anthropic: Too Many Requests", retry.RATE_LIMIT),
        ("POST /session answered HTTP 503: upstream unavailable", retry.SERVER_ERROR),
        ("API error: HTTP 500 InternalServerError: oops", retry.SERVER_ERROR),
        ("claude-code: overloaded_error", retry.SERVER_ERROR),
        ("opencode server unavailable: [Errno 111] Connection refused", retry.CONNECTION),
        ("API error: APIConnectionError: Connection error.", retry.CONNECTION),
        ("codex: timeout: still running at the item deadline (9.0s)", retry.TIMEOUT),
        ("timeout: the agent ran 12.0s, past the 10s deadline", retry.TIMEOUT),
        ("timeout: no time left to retry after HTTP 429 RateLimitError", retry.RATE_LIMIT),
        ("the agent ran for 500 ms and printed nothing", retry.RUNNER_ERROR),
        ("codex: unsupported mode 'mcp'", retry.RUNNER_ERROR),
    ],
)
def test_reported_runner_errors_are_classified(message: str, kind: str) -> None:
    assert classify_message(message) == kind


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (RuntimeError("boom"), retry.ADAPTER_BUG),
        (KeyError("x"), retry.ADAPTER_BUG),
        (RuntimeError("connection refused"), retry.ADAPTER_BUG),  # the type decides
        (ConnectionResetError("reset"), retry.CONNECTION),
        (TimeoutError("read"), retry.TIMEOUT),
    ],
)
def test_exceptions_are_classified_by_type(exc: BaseException, kind: str) -> None:
    assert classify_exception(exc) == kind


def test_default_budgets() -> None:
    policy = RetryPolicy()
    assert policy.budget(retry.TIMEOUT, 0) == 0
    assert policy.budget(retry.TIMEOUT, 3) == 3
    for kind in retry.INFRASTRUCTURE_KINDS:
        assert policy.budget(kind, 0) == retry.DEFAULT_TRANSIENT_RERUNS
        assert policy.budget(kind, 5) == 5
    for kind in (retry.ADAPTER_BUG, retry.WRONG_ANSWER, retry.RUNNER_ERROR, None):
        assert policy.budget(kind, 5) == 0
    assert policy.max_reruns(0) == retry.DEFAULT_TRANSIENT_RERUNS
    assert policy.retries(retry.RATE_LIMIT, 0, attempt=2)
    assert not policy.retries(retry.RATE_LIMIT, 0, attempt=3)


def test_a_policy_without_transient_kinds_retries_only_timeouts() -> None:
    policy = RetryPolicy(retry_on=frozenset({retry.TIMEOUT}), transient_reruns=2)
    assert policy.budget(retry.RATE_LIMIT, 1) == 0
    assert policy.max_reruns(1) == 1
    assert RetryPolicy(retry_on=frozenset()).max_reruns(4) == 0


@pytest.mark.parametrize(
    ("value", "kinds"),
    [
        ("timeout, rate_limit", {"timeout", "rate_limit"}),
        (["server_error", "connection"], {"server_error", "connection"}),
        ("all", set(retry.TRANSIENT_KINDS)),
        ("none", set()),
    ],
)
def test_retry_on_settings_parse(value: str | list[str], kinds: set[str]) -> None:
    assert retry.parse_retry_on(value) == kinds


def test_an_unknown_retry_kind_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"adapter_bug.*valid: timeout, rate_limit"):
        retry.parse_retry_on("timeout adapter_bug")


def test_the_rerun_pattern_matches_only_the_retryable_exceptions() -> None:
    import re

    from pytest_ghxbench.attempt.failures import ScenarioFailed, TransientFailure, TransientTimeout

    for cls in (TransientFailure, TransientTimeout):
        assert re.search(retry.RERUN_PATTERN, f"{cls.__name__}: x")
    for cls in (ScenarioFailed, RuntimeError):
        assert not re.search(retry.RERUN_PATTERN, f"{cls.__name__}: TransientFailure: x")
