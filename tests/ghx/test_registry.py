"""The registry itself: unknown capabilities, input validation, and the envelope's meta."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.ghx import all_capabilities, run_capability
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import CapabilityError, error_code


def _unreachable() -> GitHubClient:
    return GitHubClient("t", api_url="http://127.0.0.1:9/api/v3", timeout_s=1)


def test_an_unknown_capability_is_unsupported_with_a_suggestion_and_no_route() -> None:
    envelope = run_capability(_unreachable(), "issue.veiw", {})
    assert envelope["ok"] is False
    assert envelope["error"]["code"] == "UNSUPPORTED"
    if any(cap.id == "issue.view" for cap in all_capabilities()):
        assert "did you mean issue.view" in envelope["error"]["message"]
    assert envelope["meta"]["route_used"] is None


@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        (0, "cannot reach", "NETWORK"),
        (401, "Bad credentials", "AUTH"),
        (403, "API rate limit exceeded", "RATE_LIMIT"),
        (404, "Not Found", "NOT_FOUND"),
        (409, "conflict", "CONFLICT"),
        (422, "Validation Failed", "VALIDATION"),
        (502, "bad gateway", "SERVER"),
        (200, "NOT_FOUND: Could not resolve", "NOT_FOUND"),
        (200, "Something else", "VALIDATION"),
    ],
)
def test_request_failures_map_to_envelope_codes(status: int, message: str, code: str) -> None:
    assert error_code(GitHubError("GET", "/x", status, message)) == code


def test_an_unknown_error_code_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown error code"):
        CapabilityError("OOPS", "x")


def test_every_schema_is_a_valid_draft_2020_12_object_schema() -> None:
    import jsonschema  # type: ignore[import-untyped]

    for cap in all_capabilities():
        jsonschema.Draft202012Validator.check_schema(cap.input_schema)
        schema: dict[str, Any] = dict(cap.input_schema)
        assert schema["type"] == "object", cap.id


def test_a_capability_id_has_one_handler_but_a_reimported_module_may_bring_it_again() -> None:
    from pytest_ghxbench.ghx import registry

    def handler(client: object, input: object) -> object:
        return None

    def other(client: object, input: object) -> object:
        return None

    schema = registry.input_schema([])
    try:
        registry.capability("test.only", "a test capability", schema)(handler)
        registry.capability("test.only", "a test capability", schema)(handler)  # same origin
        with pytest.raises(ValueError, match=r"'test\.only' is registered twice"):
            registry.capability("test.only", "a test capability", schema)(other)
    finally:
        registry._REGISTRY.pop("test.only", None)
