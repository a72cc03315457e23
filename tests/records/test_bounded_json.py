"""Untrusted JSON is read within limits and every refusal names where the document broke one."""

from __future__ import annotations

import json

import pytest

from pytest_ghxbench.bounded_json import BoundedJSONError, describe, loads


def test_ordinary_documents_read_as_json_loads_reads_them() -> None:
    text = '{"a": [1, 2.5, -3, "[[{{", null, true], "b": {"c": "\\"]"}}'
    assert loads(text) == json.loads(text)
    assert loads(text.encode()) == json.loads(text)


@pytest.mark.parametrize("depth", [101, 5_000, 100_000])
def test_deep_nesting_is_one_error_at_the_first_level_too_many(depth: int) -> None:
    with pytest.raises(BoundedJSONError) as info:
        loads("[" * depth + "]" * depth)
    assert describe(info.value) == "nested deeper than 100 levels at line 1 column 101"


def test_nesting_at_the_limit_reads() -> None:
    assert loads("[" * 100 + "]" * 100) is not None


def test_brackets_inside_strings_do_not_count() -> None:
    assert loads(json.dumps({"x": "[" * 500})) == {"x": "[" * 500}


def test_a_huge_integer_is_refused_where_it_starts() -> None:
    with pytest.raises(BoundedJSONError) as info:
        loads('{"tokens":\n  ' + "9" * 5_000 + "}")
    assert describe(info.value) == "number longer than 40 characters at line 2 column 3"


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_numbers_that_are_not_finite_are_not_json(literal: str) -> None:
    with pytest.raises(BoundedJSONError, match="is not a finite JSON number"):
        loads(f'{{"latency_ms": {literal}}}')


def test_syntax_errors_keep_the_standard_message() -> None:
    with pytest.raises(json.JSONDecodeError) as info:
        loads("[1,")
    assert not isinstance(info.value, BoundedJSONError)
    assert describe(info.value) == "Expecting value at line 1 column 4"
