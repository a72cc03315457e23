"""Price table: costs from tokens, config overrides, and the unknown-model warning."""

from __future__ import annotations

import pytest

from pytest_ghxbench.adapters.pricing import (
    REFERENCE_PRICES,
    Price,
    PriceTableError,
    cost_usd,
    parse_prices,
    price_for,
    session_cost,
)
from pytest_ghxbench.api import Tokens


def test_cost_bills_reasoning_as_output_and_cache_reads_at_the_cached_rate() -> None:
    tokens = Tokens(input=1_000_000, output=200_000, reasoning=100_000, cache_read=2_000_000)
    # 1M x $2 + 2M x $0.5 + 0.3M x $8
    assert cost_usd(tokens, Price(2.0, 0.5, 8.0)) == pytest.approx(2.0 + 1.0 + 2.4)


def test_reference_prices_know_a_current_model() -> None:
    assert price_for("openai/gpt-4.1-mini") == REFERENCE_PRICES["openai/gpt-4.1-mini"]


def test_config_overrides_the_reference() -> None:
    overrides = parse_prices({"openai/gpt-4.1-mini": {"input": 1, "output": 3}}, "[prices]")
    assert price_for("openai/gpt-4.1-mini", overrides) == Price(1.0, 1.0, 3.0)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"input": "cheap", "output": 1}, r'"m/x"\.input: expected a number'),
        ({"input": -1, "output": 1}, r"input: expected a finite number >= 0"),
        ({"input": 1}, r"output: expected a number"),
        ({"input": 1, "output": 1, "cache": 1}, r"unknown field\(s\) cache"),
        (3, r"expected a table"),
    ],
)
def test_bad_entries_name_model_and_field(entry: object, message: str) -> None:
    with pytest.raises(PriceTableError, match=message):
        parse_prices({"m/x": entry}, "[tool.ghxbench.prices]")


def test_unknown_model_costs_zero_and_warns_once() -> None:
    tokens = Tokens(input=10, output=10)
    with pytest.warns(UserWarning, match="no price for model 'nowhere/model-q'"):
        assert session_cost("nowhere/model-q", tokens) == 0.0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert session_cost("nowhere/model-q", tokens) == 0.0
